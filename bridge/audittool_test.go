package bridge

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/actbridge/actbridge/inflight"
)

// The audit log says how a confirm was approved: a planner's call that
// carried the client's user's approval reads "via elicitation".
func TestAuditRecordsHowACallCame(t *testing.T) {
	st, err := inflight.Open(filepath.Join(t.TempDir(), "a.db"), inflight.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	recs := []CallRecord{
		{Tool: "motion_confirm", Role: RolePlanner, Via: ViaElicitation, Outcome: "ok"},
		{Tool: "motion_confirm", Role: RoleOperator, Via: ViaConsole, Outcome: "ok"},
		{Tool: "motion_confirm", Role: RolePlanner, Outcome: "ok"},
	}
	var rs []inflight.AuditRecord
	for _, r := range recs {
		rs = append(rs, r.Audit())
	}
	if err := st.AppendAll(context.Background(), rs); err != nil {
		t.Fatal(err)
	}
	got, _, err := st.AuditList("", 10)
	if err != nil || len(got) != len(recs) {
		t.Fatalf("%d records, %v", len(got), err)
	}
	for i, r := range got {
		if r.Via != recs[i].Via || r.Role != string(recs[i].Role) {
			t.Errorf("record %d: %s via %q, want %s via %q", i, r.Role, r.Via, recs[i].Role, recs[i].Via)
		}
	}
}
