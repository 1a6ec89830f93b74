package inflight

import (
	"context"
	"os"
	"testing"
	"time"
)

func TestOpenShrinksAFileLeftSparseByABurst(t *testing.T) {
	c := newClock()
	path := testPath(t)
	opts := Options{Now: c.Now, Retention: time.Hour, UnsafeNoSync: true, compactMinBytes: 1}
	s := openStore(t, path, opts)
	ctx := context.Background()
	if _, _, err := claim(ctx, s, testMotion("keep")); err != nil {
		t.Fatal(err)
	}
	appendConcurrently(t, s, 5000)
	c.Advance(2 * time.Hour)
	if _, err := s.Compact(ctx, c.Now()); err != nil {
		t.Fatal(err)
	}
	if err := s.appendOne(ctx, AuditRecord{Tool: "after-burst"}); err != nil {
		t.Fatal(err)
	}
	before, _ := s.Stats()
	_ = s.Close()

	s = openStore(t, path, opts)
	after, err := s.Stats()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("file %d → %d bytes (live %d)", before.FileBytes, after.FileBytes, after.LiveBytes)
	if after.FileBytes*4 > before.FileBytes {
		t.Errorf("reopening a mostly free %d-byte file left %d bytes", before.FileBytes, after.FileBytes)
	}
	if m, err := s.Get("keep"); err != nil || m.State != StateDispatching {
		t.Errorf("motion after compaction: %v, %v", m.State, err)
	}
	// The audit sequence survives compaction, so cursors and order hold.
	if err := s.appendOne(ctx, AuditRecord{Tool: "after-reopen"}); err != nil {
		t.Fatal(err)
	}
	lines := allAudit(t, s)
	if len(lines) != 2 || lines[0].Seq != 5001 || lines[1].Seq != 5002 {
		t.Errorf("audit after compaction: %+v", lines)
	}
	if _, err := os.Stat(path + ".compact"); !os.IsNotExist(err) {
		t.Errorf("compaction left its temporary file: %v", err)
	}
}

func TestOpenLeavesADenseFileInPlace(t *testing.T) {
	path := testPath(t)
	opts := Options{UnsafeNoSync: true, compactMinBytes: 1}
	s := openStore(t, path, opts)
	appendConcurrently(t, s, 2000)
	_ = s.Close()
	before, _ := os.Stat(path)
	if err := os.WriteFile(path+".compact", []byte("left by a crash"), 0o600); err != nil {
		t.Fatal(err)
	}
	openStore(t, path, opts)
	after, _ := os.Stat(path)
	if !os.SameFile(before, after) {
		t.Error("a dense file was rewritten at Open")
	}
	if _, err := os.Stat(path + ".compact"); !os.IsNotExist(err) {
		t.Errorf("a leftover compaction file survived Open: %v", err)
	}
}
