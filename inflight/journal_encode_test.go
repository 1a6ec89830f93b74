package inflight

import (
	"encoding/json"
	"math"
	"math/rand"
	"reflect"
	"testing"
	"time"
)

// fullMotion and fullPreview set every stored field, so a field the
// encoder forgot shows as a difference from json.Marshal.
func fullMotion() *Motion {
	at := time.Date(2026, 12, 3, 14, 5, 6, 123456789, time.UTC)
	return &Motion{Version: 1, ID: "m-1", Tool: "arm_move_joints", Actuator: "arm", Scope: "task-7",
		PreviewID: "pv-1", ArgsDigest: "sha256:ab", Args: json.RawMessage(`{"positions":{"j1":0.5}}`),
		Goal:  json.RawMessage(`{"trajectory":{"joints":["j1"],"points":[{"t":0.1,"q":[0.5]}]},"start":{"j1":0}}`),
		State: StateSucceeded, Progress: 0.75, Result: json.RawMessage(`{"error_code":0}`), ErrorText: "none",
		Role: "planner", CreatedAt: at, UpdatedAt: at.Add(time.Second),
		History: []Transition{{From: StateDispatching, To: StateSent, At: at, Note: "goal published"}, {From: StateSent, To: StateSucceeded, At: at.Add(time.Second)}}}
}

func fullPreview() *Preview {
	at := time.Date(2026, 12, 3, 14, 5, 6, 5, time.FixedZone("x", 3600))
	return &Preview{Version: 1, ID: "pv-1", Tool: "arm_move_joints", Actuator: "arm", ArgsDigest: "sha256:ab",
		Args: json.RawMessage(`{"positions":{"j1":0.5}}`), Goal: json.RawMessage(`{"start":{"j1":0}}`),
		StateDigest: "sd", Summary: json.RawMessage(`{"joints_moving":["j1"],"warnings":[]}`), Role: "operator",
		CreatedAt: at, ExpiresAt: at.Add(time.Minute), UsedBy: "m-1", UsedAt: at.Add(2 * time.Second)}
}

// TestJournalLineMatchesMarshal: the hand-written encoder writes exactly
// what json.Marshal writes, for full, minimal and awkward records.
func TestJournalLineMatchesMarshal(t *testing.T) {
	odd := fullMotion()
	odd.ID, odd.ErrorText = "m \"quoted\" <tag> & \\ é \u2028", "line1\nline2\x00"
	odd.History = []Transition{}
	odd.Result = nil
	odd.Progress = 1e-7
	odd.Args = json.RawMessage(`{"b": "<&>"}`)
	oddPreview := fullPreview()
	oddPreview.UsedBy, oddPreview.UsedAt, oddPreview.Summary, oddPreview.Goal = "", time.Time{}, nil, nil
	oddPreview.StateDigest = "tab\there"
	cases := map[string]journalLine{
		"claim":           {Kind: "c", Motion: fullMotion(), Preview: fullPreview()},
		"motion":          {Kind: "m", Motion: fullMotion()},
		"preview":         {Kind: "p", Preview: fullPreview()},
		"minimal motion":  {Kind: "m", Motion: &Motion{ID: "x", Goal: json.RawMessage(`{}`)}},
		"zero motion":     {Kind: "m", Motion: &Motion{}},
		"minimal preview": {Kind: "p", Preview: &Preview{ID: "y"}},
		"odd strings":     {Kind: "c", Motion: odd, Preview: oddPreview},
		"raw needing compaction": {Kind: "m", Motion: &Motion{ID: "z", Goal: json.RawMessage("{\n  \"a\": [1, 2]\n}"),
			Args: json.RawMessage(`{"b": "<&>"}`)}},
		"no records": {Kind: "p"},
	}
	for name, l := range cases {
		t.Run(name, func(t *testing.T) {
			want, err := json.Marshal(l)
			if err != nil {
				t.Fatal(err)
			}
			got, err := appendJournalLine(nil, l)
			if err != nil {
				t.Fatal(err)
			}
			if name == "raw needing compaction" || name == "odd strings" {
				// Raw JSON without a newline is copied, not HTML-escaped:
				// the same values, possibly other bytes.
				assertSameLine(t, got, want)
				return
			}
			if string(got) != string(want) {
				t.Errorf("encoder wrote\n%s\njson.Marshal writes\n%s", got, want)
			}
		})
	}
}

func assertSameLine(t *testing.T, got, want []byte) {
	t.Helper()
	var g, w journalLine
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("encoder output does not decode: %v\n%s", err, got)
	}
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatal(err)
	}
	gj, _ := json.Marshal(g)
	wj, _ := json.Marshal(w)
	if string(gj) != string(wj) {
		t.Errorf("decoded lines differ:\n%s\n%s", gj, wj)
	}
	for i, c := range got {
		if c == '\n' || c == 0 {
			t.Fatalf("byte %d of the line is %q: it would split the journal line", i, c)
		}
	}
}

// TestJournalLineFieldsKnown fails when a stored field is added to a
// record the encoder writes by hand: teach appendMotion/appendPreview it.
func TestJournalLineFieldsKnown(t *testing.T) {
	for typ, want := range map[reflect.Type]int{
		reflect.TypeFor[Motion]():      18,
		reflect.TypeFor[Transition]():  4,
		reflect.TypeFor[Preview]():     14,
		reflect.TypeFor[journalLine](): 3,
	} {
		if n := typ.NumField(); n != want {
			t.Errorf("%s has %d fields, the journal encoder knows %d: update journal_encode.go and this test", typ, n, want)
		}
	}
}

// TestJournalLineFloats: progress is written as encoding/json writes it.
func TestJournalLineFloats(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	vals := []float64{0, 1, 0.5, 1e-6, 9.99e-7, 1e-7, 1e20, 1e21, 123456789.125, math.SmallestNonzeroFloat64, -0.25, 1.0 / 3}
	for range 2000 {
		vals = append(vals, r.Float64(), math.Float64frombits(r.Uint64()))
	}
	for _, v := range vals {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		want, _ := json.Marshal(v)
		if got := appendFloat(nil, v); string(got) != string(want) {
			t.Fatalf("appendFloat(%v) = %s, json.Marshal writes %s", v, got, want)
		}
	}
}

// TestJournalLineRefusesWhatMarshalRefuses: a time json.Marshal cannot
// write is an error here too, never a line that would not parse back.
func TestJournalLineRefusesWhatMarshalRefuses(t *testing.T) {
	m := fullMotion()
	m.UpdatedAt = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
	if _, err := appendJournalLine(nil, journalLine{Kind: "m", Motion: m}); err == nil {
		t.Fatal("a year-10000 time was encoded; json.Marshal refuses it")
	}
	m = fullMotion()
	m.Progress = math.NaN()
	if _, err := appendJournalLine(nil, journalLine{Kind: "m", Motion: m}); err == nil {
		t.Fatal("a NaN progress was encoded; json.Marshal refuses it")
	}
}

func BenchmarkJournalLineClaim(b *testing.B) {
	l := journalLine{Kind: "c", Motion: fullMotion(), Preview: fullPreview()}
	b.Run("encoder", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = appendJournalLine(nil, l)
		}
	})
	b.Run("json.Marshal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = json.Marshal(l)
		}
	})
}
