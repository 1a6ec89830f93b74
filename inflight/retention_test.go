package inflight

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestCompactDeletesOnlyFinishedRecordsOlderThanRetention(t *testing.T) {
	c := newClock()
	s := openStore(t, testPath(t), Options{Now: c.Now, Retention: 24 * time.Hour})
	ctx := context.Background()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	claim := func(id string, path ...State) {
		t.Helper()
		_, _, err := claim(ctx, s, testMotion(id))
		must(err)
		walk(t, s, id, path...)
	}
	preview := func(id string, ttl time.Duration, usedBy string) {
		t.Helper()
		must(s.PutPreview(ctx, testPreview(id, c.Now().Add(ttl))))
		if usedBy != "" {
			_, err := consume(ctx, s, id, usedBy)
			must(err)
		}
	}
	audit := func(tool string) { must(s.appendOne(ctx, AuditRecord{Tool: tool})) }

	// Two days ago.
	claim("old-succeeded", StateSent, StateSucceeded)
	claim("old-rejected", StateRejected)
	claim("old-unknown", StateUnknown)
	claim("old-active", StateSent, StateActive)
	preview("old-used", time.Minute, "old-succeeded")
	preview("old-expired", time.Minute, "")
	must(s.Remember(ctx, "old-key", "d", json.RawMessage(`1`)))
	audit("old-1")
	audit("old-2")
	audit("old-3")
	c.Advance(47 * time.Hour)
	// One hour ago.
	claim("new-succeeded", StateSent, StateSucceeded)
	preview("new-expired", time.Minute, "")
	preview("long-lived", 72*time.Hour, "")
	must(s.Remember(ctx, "new-key", "d", json.RawMessage(`2`)))
	audit("new-1")
	audit("new-2")
	c.Advance(time.Hour)

	removed, err := s.Compact(ctx, c.Now())
	must(err)
	// Previews: old-used, old-expired, and the four old claims' own.
	if want := (Removed{Motions: 2, Previews: 6, Keys: 1, Audit: 3}); removed != want {
		t.Errorf("Compact removed %+v, want %+v", removed, want)
	}
	for _, id := range []string{"old-unknown", "old-active", "new-succeeded"} {
		if _, err := s.Get(id); err != nil {
			t.Errorf("motion %s: %v; open and recent motions must stay", id, err)
		}
	}
	for _, id := range []string{"old-succeeded", "old-rejected"} {
		if _, err := s.Get(id); !errors.Is(err, ErrNotFound) {
			t.Errorf("motion %s: %v; want it swept", id, err)
		}
	}
	if _, total, _, err := s.List(Filter{}, "", 10); err != nil || total != 3 {
		t.Errorf("List after sweep: total %d, %v; the order index must follow the records", total, err)
	}
	for id, want := range map[string]error{"old-used": ErrNotFound, "old-expired": ErrNotFound, "new-expired": nil, "long-lived": nil} {
		if _, err := s.GetPreview(id); !errors.Is(err, want) {
			t.Errorf("preview %s: %v, want %v", id, err, want)
		}
	}
	if _, found, _ := s.Lookup("old-key", "d"); found {
		t.Error("old idempotency key survived")
	}
	if _, found, _ := s.Lookup("new-key", "d"); !found {
		t.Error("recent idempotency key was swept")
	}
	if lines := allAudit(t, s); len(lines) != 2 || lines[0].Tool != "new-1" {
		t.Errorf("audit after sweep: %+v", lines)
	}
	if again, err := s.Compact(ctx, c.Now()); err != nil || again != (Removed{}) {
		t.Errorf("second Compact = %+v, %v; want nothing left to do", again, err)
	}
}

func TestCompactWorksThroughABacklogInChunks(t *testing.T) {
	c := newClock()
	s := openStore(t, testPath(t), Options{Now: c.Now, Retention: time.Hour, UnsafeNoSync: true})
	appendConcurrently(t, s, sweepChunk+7)
	c.Advance(2 * time.Hour)
	removed, err := s.Compact(context.Background(), c.Now())
	if err != nil || removed.Audit != sweepChunk+7 {
		t.Fatalf("Compact = %+v, %v; want all %d lines", removed, err, sweepChunk+7)
	}
}

// appendConcurrently appends n audit lines from many goroutines, as a busy
// bridge would, so batches fill.
func appendConcurrently(t testing.TB, s *Store, n int) {
	t.Helper()
	const workers = 64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += workers {
				r := benchAudit()
				r.Code = fmt.Sprint(i)
				if err := s.appendOne(context.Background(), r); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

func TestRunRetentionSweepsAndStopsWithItsContext(t *testing.T) {
	c := newClock()
	s := openStore(t, testPath(t), Options{Now: c.Now, Retention: time.Hour})
	if err := s.appendOne(context.Background(), AuditRecord{Tool: "old"}); err != nil {
		t.Fatal(err)
	}
	c.Advance(2 * time.Hour)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.RunRetention(ctx, time.Hour) }()

	// The first sweep runs at once; wait for it without guessing a duration.
	deadline := time.Now().Add(30 * time.Second)
	for {
		lines, _, err := s.AuditList("", 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(lines) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("RunRetention never swept")
		}
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("RunRetention returned %v, want context.Canceled", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("RunRetention did not return after its context ended")
	}
}

// TestStoreStaysSmallUnderSustainedAuditedCalls is the million-call store at
// a tiny scale: with retention running, freed pages are reused and the file
// stops growing once the window is full. Without reuse it would reach four
// times its early size; one doubling is allowed for bbolt's growth steps.
func TestStoreStaysSmallUnderSustainedAuditedCalls(t *testing.T) {
	c := newClock()
	s := openStore(t, testPath(t), Options{Now: c.Now, Retention: 2 * time.Hour, UnsafeNoSync: true})
	const rounds, perRound = 20, 500 // one round = one simulated hour
	var early int64
	for round := range rounds {
		appendConcurrently(t, s, perRound)
		c.Advance(time.Hour)
		if _, err := s.Compact(context.Background(), c.Now()); err != nil {
			t.Fatal(err)
		}
		st, err := s.Stats()
		if err != nil {
			t.Fatal(err)
		}
		if st.Audit > 2*perRound {
			t.Fatalf("round %d: %d audit lines kept, retention allows %d", round, st.Audit, 2*perRound)
		}
		if round == 3 {
			early = st.FileBytes
		}
		if round == rounds-1 {
			t.Logf("%d calls: file %d bytes (%d at round 3), live %d", rounds*perRound, st.FileBytes, early, st.LiveBytes)
			if st.FileBytes > 2*early {
				t.Errorf("file grew from %d to %d bytes with a steady window", early, st.FileBytes)
			}
		}
	}
}

// BenchmarkAuditAppendWithRetention is the long-running bridge: b.N audited
// calls with fsync, 10,000 per simulated hour, a 24h retention sweep every
// hour. It reports the file size and, at the end, the latency of a
// confirm's commit (ConfirmPreview: one bbolt commit with fsync);
// -benchtime=1000000x is the million-call store.
func BenchmarkAuditAppendWithRetention(b *testing.B) {
	c := newClock()
	s := openStore(b, testPath(b), Options{Now: c.Now, Retention: 24 * time.Hour})
	ctx := context.Background()
	r := benchAudit()
	var calls atomic.Int64
	b.ReportAllocs()
	b.SetParallelism(16)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := s.appendOne(ctx, r); err != nil {
				b.Error(err)
				return
			}
			if calls.Add(1)%10000 == 0 {
				c.Advance(time.Hour)
				if _, err := s.Compact(ctx, c.Now()); err != nil {
					b.Error(err)
					return
				}
			}
		}
	})
	b.StopTimer()
	st, err := s.Stats()
	if err != nil {
		b.Fatal(err)
	}
	const claims = 50
	var confirming time.Duration
	for i := range claims {
		pv := testPreview(fmt.Sprint("p-after-", i), c.Now().Add(time.Minute))
		if err := s.PutPreview(ctx, pv); err != nil {
			b.Fatal(err)
		}
		m := testMotion(fmt.Sprint("confirmed-", i))
		m.Tool, m.ArgsDigest = pv.Tool, pv.ArgsDigest
		start := time.Now()
		if _, _, err := confirmID(ctx, s, pv.ID, m); err != nil {
			b.Fatal(err)
		}
		confirming += time.Since(start)
	}
	b.ReportMetric(float64(confirming.Microseconds())/claims, "confirm-µs")
	b.ReportMetric(float64(st.FileBytes), "file-bytes")
	b.ReportMetric(float64(st.Audit), "lines-kept")
}
