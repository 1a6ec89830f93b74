package inflight

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

// A burst larger than one batch, queued faster than any disk commits, is
// written completely, in order, including what is still queued at shutdown.
func TestAuditWriterWritesEveryQueuedRecordInOrder(t *testing.T) {
	st, err := Open(filepath.Join(t.TempDir(), "a.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	w := NewAuditWriter(st)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); w.Run(ctx) }()
	const n = 3*auditBatch + 17
	start := time.Now()
	for i := range n {
		w.Add(AuditRecord{Time: start, Tool: fmt.Sprint("tool_", i), Outcome: "ok"})
	}
	cancel()
	<-done
	var got []AuditRecord
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
