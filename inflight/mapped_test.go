//go:build linux

package inflight

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"
)

// fileRSSMB is this process's file-backed resident memory in MiB.
func fileRSSMB(t *testing.T) float64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "RssFile:"); ok {
			kb, err := strconv.Atoi(strings.Fields(v)[0])
			if err != nil {
				t.Fatal(err)
			}
			return float64(kb) / 1024
		}
	}
	t.Skip("no RssFile in /proc/self/status")
	return 0
}

// Reading a 30 MB audit log maps its pages into the process; ReleaseMapped
// unmaps them, and the log still reads back whole afterwards.
func TestReleaseMappedGivesBackTheStoresPages(t *testing.T) {
	s := openStore(t, testPath(t), Options{UnsafeNoSync: true})
	args := json.RawMessage(`{"note":"` + strings.Repeat("x", 500) + `"}`)
	batch := make([]AuditRecord, 1000)
	for i := range batch {
		batch[i] = AuditRecord{Tool: "joints_read", Outcome: OutcomeOK, Args: args}
	}
	for range 50 {
		if err := s.AppendAll(context.Background(), batch); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.WriteAuditJSONL(io.Discard); err != nil { // every page read through the map
		t.Fatal(err)
	}
	before := fileRSSMB(t)
	defer func() { t.Logf("file-backed RSS %.1f MB before ReleaseMapped", before) }()
	if err := s.ReleaseMapped(); err != nil {
		t.Fatal(err)
	}
	after := fileRSSMB(t)
	if before-after < 15 {
		t.Errorf("file-backed RSS %.1f MB before ReleaseMapped, %.1f after; want the store's ~30 MB given back", before, after)
	}
	var n countingWriter
	if err := s.WriteAuditJSONL(&n); err != nil {
		t.Fatal(err)
	}
	if n.lines != 50000 {
		t.Errorf("%d audit lines read back after ReleaseMapped, want 50000", n.lines)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.ReleaseMapped(); err != ErrClosed {
		t.Errorf("ReleaseMapped on a closed store = %v, want ErrClosed", err)
	}
}

type countingWriter struct{ lines int }

func (c *countingWriter) Write(p []byte) (int, error) {
	c.lines += strings.Count(string(p), "\n")
	return len(p), nil
}
