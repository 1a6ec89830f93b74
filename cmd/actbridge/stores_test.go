package main

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/actbridge/actbridge/bridge"
	"github.com/actbridge/actbridge/inflight"
)

// A burst larger than one batch, queued faster than any disk commits, is
// written completely, in order, including what is still queued at shutdown.
func TestAuditorWritesEveryQueuedRecordInOrder(t *testing.T) {
	st, err := inflight.Open(filepath.Join(t.TempDir(), "a.db"), inflight.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	a := newAuditor(st)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); a.run(ctx) }()
	const n = 3*auditBatch + 17
	start := time.Now()
	for i := range n {
		a.ObserveCall(bridge.CallRecord{Started: start, Tool: fmt.Sprint("tool_", i), Tier: bridge.TierRead, Outcome: "ok"})
	}
	cancel()
	<-done
	var got []inflight.AuditRecord
	cursor := ""
	for {
		page, next, err := st.AuditList(cursor, 1000)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, page...)
		if next == "" {
			break
		}
		cursor = next
	}
	if len(got) != n {
		t.Fatalf("%d of %d records written", len(got), n)
	}
	for i, r := range got {
		if r.Tool != fmt.Sprint("tool_", i) {
			t.Fatalf("record %d is %s: order lost", i, r.Tool)
		}
	}
}

// The audit log says how a confirm was approved: a planner's call that
// carried the client's user's approval reads "via elicitation".
func TestAuditRecordsHowACallCame(t *testing.T) {
	st, err := inflight.Open(filepath.Join(t.TempDir(), "a.db"), inflight.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	recs := []bridge.CallRecord{
		{Tool: "motion_confirm", Role: bridge.RolePlanner, Via: bridge.ViaElicitation, Outcome: "ok"},
		{Tool: "motion_confirm", Role: bridge.RoleOperator, Via: bridge.ViaConsole, Outcome: "ok"},
		{Tool: "motion_confirm", Role: bridge.RolePlanner, Outcome: "ok"},
	}
	var rs []inflight.AuditRecord
	for _, r := range recs {
		rs = append(rs, auditRecord(r))
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
