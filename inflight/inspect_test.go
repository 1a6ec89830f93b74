package inflight

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
)

func TestMotionsCanBeInspectedOfflineAsATableOrJSON(t *testing.T) {
	path := testPath(t)
	s := openStore(t, path, Options{})
	ctx := context.Background()
	for _, id := range []string{"m-arm", "m-base"} {
		m := testMotion(id)
		if id == "m-base" {
			m.Actuator = ActuatorBase
		} else {
			m.Role, m.Via = "operator", "elicitation"
		}
		if _, _, err := claim(ctx, s, m); err != nil {
			t.Fatal(err)
		}
	}
	walk(t, s, "m-arm", StateSent, StateActive)
	if _, err := s.Transition(ctx, "m-arm", StateAborted, func(m *Motion) {
		m.Progress = 0.42
		m.ErrorText = "controller\tfault\nline two"
	}); err != nil {
		t.Fatal(err)
	}
	_ = s.Close()

	ro := openStore(t, path, Options{ReadOnly: true})
	var table bytes.Buffer
	if err := ro.WriteMotionsTable(&table, Filter{}); err != nil {
		t.Fatal(err)
	}
	rows := strings.Split(strings.TrimSpace(table.String()), "\n")
	if len(rows) != 3 || !strings.HasPrefix(rows[0], "ID") {
		t.Fatalf("table:\n%s", table.String())
	}
	if f := strings.Fields(rows[1]); f[0] != "m-arm" || f[1] != "aborted" || f[2] != "arm" || f[4] != "42%" || !strings.Contains(rows[1], "controller fault line two") ||
		!strings.Contains(rows[1], "operator via elicitation") || !strings.Contains(rows[2], " planner ") {
		t.Errorf("row %q", rows[1])
	}

	for _, tc := range []struct {
		filter Filter
		want   []string
	}{
		{Filter{}, []string{"m-arm", "m-base"}},
		{Filter{Actuator: ActuatorBase}, []string{"m-base"}},
		{Filter{States: []State{StateSucceeded}}, nil},
	} {
		var out bytes.Buffer
		if err := ro.WriteMotionsJSON(&out, tc.filter); err != nil {
			t.Fatal(err)
		}
		var got []Motion
		if err := json.Unmarshal(out.Bytes(), &got); err != nil {
			t.Fatalf("WriteMotionsJSON wrote invalid JSON: %v\n%s", err, out.String())
		}
		var ids []string
		for _, m := range got {
			ids = append(ids, m.ID)
		}
		if strings.Join(ids, ",") != strings.Join(tc.want, ",") {
			t.Errorf("filter %+v: %v, want %v", tc.filter, ids, tc.want)
		}
	}
}
