package inflight

import (
	"context"
	"errors"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// The latch written before a restart is the latch read after it, and a
// store that never held one says so.
func TestEStopLatchSurvivesReopen(t *testing.T) {
	path := testPath(t)
	ctx := context.Background()
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, found, err := s.EStop(); err != nil || found {
		t.Fatalf("fresh store EStop() found=%v err=%v, want none", found, err)
	}
	since := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := s.PutEStop(ctx, EStopRecord{Latched: true, Event: 7, Reason: "robot_stop by planner: person", Since: since}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openStore(t, path, Options{})
	r, found, err := s.EStop()
	if err != nil || !found || !r.Latched || r.Event != 7 || r.Reason != "robot_stop by planner: person" || !r.Since.Equal(since) {
		t.Fatalf("after reopen EStop() = %+v found=%v err=%v", r, found, err)
	}
}

// An event number once stored is never handed out again: a record naming
// an older event is refused and the stored one stays.
func TestEStopEventNumbersNeverGoBack(t *testing.T) {
	s := openStore(t, testPath(t), Options{})
	ctx := context.Background()
	if err := s.PutEStop(ctx, EStopRecord{Latched: true, Event: 3, Reason: "a"}); err != nil {
		t.Fatal(err)
	}
	if err := s.PutEStop(ctx, EStopRecord{Latched: false, Event: 3}); err != nil {
		t.Fatalf("release of the same event: %v", err)
	}
	if err := s.PutEStop(ctx, EStopRecord{Latched: true, Event: 2, Reason: "b"}); !errors.Is(err, ErrInvalidRecord) {
		t.Fatalf("older event = %v, want ErrInvalidRecord", err)
	}
	if err := s.Healthy(); err != nil {
		t.Errorf("a refused record made the store unhealthy: %v", err)
	}
	if r, _, _ := s.EStop(); r.Latched || r.Event != 3 {
		t.Fatalf("stored %+v, want released event 3", r)
	}
}

// A run that was started and never ended reads as unclean at the next
// start, across a reopen; one ended in order reads clean and leaves the
// latch it ended with in the store. Each start reserves events above
// everything stored or reserved before.
func TestARunNeverEndedReadsAsUncleanAtTheNextStart(t *testing.T) {
	path := testPath(t)
	ctx := context.Background()
	s := openStore(t, path, Options{})
	if err := s.PutEStop(ctx, EStopRecord{Event: 3}); err != nil {
		t.Fatal(err)
	}
	rs, err := s.StartRun(ctx, 41)
	if err != nil || rs.Unclean || rs.EventFloor != 3 || rs.EventsUpTo != 3+EventReserve {
		t.Fatalf("first run: %+v %v, want clean, floor 3, reserved to %d", rs, err, 3+EventReserve)
	}
	if err := s.Close(); err != nil { // killed: never ended
		t.Fatal(err)
	}
	s = openStore(t, path, Options{})
	rs, err = s.StartRun(ctx, 42)
	if err != nil || !rs.Unclean || rs.Prev.PID != 41 || rs.EventFloor != 3+EventReserve {
		t.Fatalf("after a run never ended: %+v %v, want pid 41 unclean, floor at its reservation", rs, err)
	}
	latch := EStopRecord{Latched: true, Event: 3 + EventReserve + 1, Reason: "unclean"}
	if err := s.EndRun(ctx, latch); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openStore(t, path, Options{})
	if r, _, _ := s.EStop(); !r.Latched || r.Event != latch.Event {
		t.Fatalf("latch after a clean end: %+v, want event %d latched", r, latch.Event)
	}
	rs, err = s.StartRun(ctx, 43)
	if err != nil || rs.Unclean || rs.Prev.PID != 42 || rs.Prev.Ended.IsZero() {
		t.Fatalf("after a clean end: %+v %v, want pid 42 ended", rs, err)
	}
}

// A run record that cannot be read counts as unclean, and is replaced:
// the next start is not latched by it forever.
func TestAnUnreadableRunRecordIsUncleanOnce(t *testing.T) {
	s := openStore(t, testPath(t), Options{})
	ctx := context.Background()
	if err := s.db.Update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists([]byte(bucketEStop))
		if err != nil {
			return err
		}
		return b.Put([]byte(keyRun), []byte("{torn"))
	}); err != nil {
		t.Fatal(err)
	}
	if rs, err := s.StartRun(ctx, 1); err != nil || !rs.Unclean {
		t.Fatalf("start over a torn record: %+v %v, want unclean", rs, err)
	}
	if err := s.EndRun(ctx, EStopRecord{}); err != nil {
		t.Fatal(err)
	}
	if rs, err := s.StartRun(ctx, 2); err != nil || rs.Unclean {
		t.Fatalf("the start after: %+v %v, want clean", rs, err)
	}
}

// A run cannot end clean with a latch older than the stored one: the end
// is refused and the run stays running, so the next start latches.
func TestARunWhoseLatchIsRefusedDoesNotEndClean(t *testing.T) {
	s := openStore(t, testPath(t), Options{})
	ctx := context.Background()
	if _, err := s.StartRun(ctx, 7); err != nil {
		t.Fatal(err)
	}
	if err := s.PutEStop(ctx, EStopRecord{Latched: true, Event: 9}); err != nil {
		t.Fatal(err)
	}
	if err := s.EndRun(ctx, EStopRecord{Event: 8}); !errors.Is(err, ErrInvalidRecord) {
		t.Fatalf("EndRun with an older latch = %v, want ErrInvalidRecord", err)
	}
	if r, _, _ := s.LastRun(); !r.Running {
		t.Fatalf("run after a refused end: %+v, want still running", r)
	}
}
