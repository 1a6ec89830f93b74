package bridge

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// recorder keeps every CallRecord the pipeline reports.
type recorder struct {
	mu   sync.Mutex
	recs []CallRecord
}

func (o *recorder) ObserveCall(r CallRecord) {
	o.mu.Lock()
	o.recs = append(o.recs, r)
	o.mu.Unlock()
}

func (o *recorder) last(t *testing.T, tool string) CallRecord {
	t.Helper()
	o.mu.Lock()
	defer o.mu.Unlock()
	for i := len(o.recs) - 1; i >= 0; i-- {
		if o.recs[i].Tool == tool {
			return o.recs[i]
		}
	}
	t.Fatalf("no record of %s", tool)
	return CallRecord{}
}

func TestCallRecordsNameTheToolWhosePreviewTheyIssuedOrConfirmed(t *testing.T) {
	r := newROSRig(t)
	obs := &recorder{}
	r.p.Observer = obs
	cases := []struct {
		name, tool, args string
		previewOf        string // "" when the call issued no preview
	}{
		{"an arm preview", "arm_move_joints", `{"positions":{"j1":0.4}}`, "arm_move_joints"},
		{"a gripper preview", "gripper_move", `{"position":0.02}`, "gripper_move"},
		{"a read service answered at once", "service_call", `{"service":"/sim/status"}`, ""},
		{"a write service answered at once", "service_call", `{"service":"/sim/led/set","request":{"data":true}}`, ""},
		{"an irreversible service previewed", "service_call", `{"service":"/sim/reset"}`, "service_call"},
		{"a read", "joints_read", `{}`, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := mustOK(t, r, RolePlanner, c.tool, c.args)
			if rec := obs.last(t, c.tool); rec.PreviewOf != c.previewOf || rec.Denial != "" {
				t.Fatalf("record names preview of %q (denial %q), want %q", rec.PreviewOf, rec.Denial, c.previewOf)
			}
			if c.previewOf == "" {
				return
			}
			mustOK(t, r, RolePlanner, "motion_confirm", `{"preview_id":"`+out["preview_id"].(string)+`"}`)
			if rec := obs.last(t, "motion_confirm"); rec.PreviewOf != c.previewOf || rec.Outcome != "ok" {
				t.Fatalf("confirm record names preview of %q (%s), want %q", rec.PreviewOf, rec.Outcome, c.previewOf)
			}
		})
	}
}

func TestADeclinedElicitationIsRecordedAsADenialOfThePreviewsTool(t *testing.T) {
	r := elicitRig(t)
	obs := &recorder{}
	r.p.Observer = obs
	var asked atomic.Int32
	cs := connectWith(t, r, answering("decline", &asked, nil), "")
	id := armPreview(t, cs, 0.5)
	toolCall(t, cs, &mcp.CallToolParams{Name: "motion_confirm", Arguments: map[string]any{"preview_id": id}})
	rec := obs.last(t, "motion_confirm")
	if rec.Denial != DenialElicitation || rec.PreviewOf != "arm_move_joints" || rec.Outcome != "error" {
		t.Fatalf("record %+v", rec)
	}
	// asking again is refused as already denied: not a second denial
	toolCall(t, cs, &mcp.CallToolParams{Name: "motion_confirm", Arguments: map[string]any{"preview_id": id}})
	if rec := obs.last(t, "motion_confirm"); rec.Denial != "" {
		t.Fatalf("a refusal of a denied preview counted as a denial again: %+v", rec)
	}
}
