package inflight

import (
	"context"
	"errors"
	"testing"
	"time"
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
