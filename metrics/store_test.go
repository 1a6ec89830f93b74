package metrics

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/actbridge/actbridge/bridge"
	"github.com/actbridge/actbridge/inflight"
)

// failingStore fails every operation with err.
type failingStore struct{ err error }

func (f failingStore) PutPreview(context.Context, inflight.Preview) error { return f.err }
func (f failingStore) GetPreview(string) (inflight.Preview, error)        { return inflight.Preview{}, f.err }
func (f failingStore) ConfirmPreview(context.Context, inflight.Preview, inflight.Motion) (inflight.Motion, bool, error) {
	return inflight.Motion{}, false, f.err
}
func (f failingStore) Transition(context.Context, string, inflight.State, func(*inflight.Motion)) (inflight.Motion, error) {
	return inflight.Motion{}, f.err
}
func (f failingStore) Get(string) (inflight.Motion, error)     { return inflight.Motion{}, f.err }
func (f failingStore) NonTerminal() ([]inflight.Motion, error) { return nil, f.err }
func (f failingStore) List(inflight.Filter, string, int) ([]inflight.Motion, int, string, error) {
	return nil, 0, "", f.err
}
func (f failingStore) Healthy() error { return f.err }

// everyOp calls each MotionStore operation once.
func everyOp(s bridge.MotionStore) {
	ctx := context.Background()
	_ = s.PutPreview(ctx, inflight.Preview{})
	_, _ = s.GetPreview("p")
	_, _, _ = s.ConfirmPreview(ctx, inflight.Preview{ID: "p"}, inflight.Motion{})
	_, _ = s.Transition(ctx, "m", inflight.StateActive, nil)
	_, _ = s.Get("m")
	_, _ = s.NonTerminal()
	_, _, _, _ = s.List(inflight.Filter{}, "", 1)
}

func TestStoreFailuresAreCountedAndAnswersAreNot(t *testing.T) {
	for _, tc := range []struct {
		err     error
		counted bool
	}{
		{nil, false},
		{errors.New("input/output error"), true},
		{fmt.Errorf("wrapped: %w", inflight.ErrClosed), true},
		{inflight.ErrReadOnly, true},
		{inflight.ErrCorrupt, true},
		{inflight.ErrLocked, true},
		{fmt.Errorf("motion x: %w", inflight.ErrNotFound), false},
		{inflight.ErrPreviewUsed, false},
		{inflight.ErrPreviewExpired, false},
		{inflight.ErrInvalidTransition, false},
		{inflight.ErrBadCursor, false},
		{inflight.ErrInvalidRecord, false},
		{context.Canceled, false},
	} {
		t.Run(fmt.Sprint(tc.err), func(t *testing.T) {
			m := newTestMetrics(time.Now())
			everyOp(m.InstrumentStore(failingStore{err: tc.err}))
			for _, op := range storeOps {
				want := 0.0
				if tc.counted {
					want = 1
				}
				if got := mustValue(t, m, "actbridge_store_errors_total", "op", op); got != want {
					t.Errorf("%s: %v, want %v", op, got, want)
				}
			}
		})
	}
}

func TestInstrumentedStorePassesAnswersThrough(t *testing.T) {
	m := newTestMetrics(time.Now())
	want := inflight.ErrNotFound
	s := m.InstrumentStore(failingStore{err: want})
	if _, err := s.Get("x"); !errors.Is(err, want) {
		t.Errorf("Get: %v", err)
	}
	if err := s.Healthy(); !errors.Is(err, want) {
		t.Errorf("Healthy: %v", err)
	}
}

func TestRealStoreCommitsAndFailuresAreObserved(t *testing.T) {
	m := newTestMetrics(time.Now())
	st, err := inflight.Open(filepath.Join(t.TempDir(), "s.db"), inflight.Options{ObserveCommit: m.ObserveCommit})
	if err != nil {
		t.Fatal(err)
	}
	commitsAtOpen := mustValue(t, m, "actbridge_store_commit_duration_seconds")
	ctx := context.Background()
	// A preview shares a batched commit (not observed); the confirm is one
	// fsynced commit.
	pv := inflight.Preview{ID: "p1", Tool: "arm_move_joints", Actuator: "arm", ArgsDigest: "d",
		Goal: json.RawMessage(`{}`), ExpiresAt: time.Now().Add(time.Hour)}
	if err := st.PutPreview(ctx, pv); err != nil {
		t.Fatal(err)
	}
	commitsAtOpen = mustValue(t, m, "actbridge_store_commit_duration_seconds")
	pv, err = st.GetPreview("p1")
	if err != nil {
		t.Fatal(err)
	}
	_, created, err := st.ConfirmPreview(ctx, pv, inflight.Motion{ID: "m1", Tool: pv.Tool, ArgsDigest: pv.ArgsDigest})
	if err != nil || !created {
		t.Fatalf("claim: %v %v", created, err)
	}
	if got := mustValue(t, m, "actbridge_store_commit_duration_seconds"); got != commitsAtOpen+1 {
		t.Errorf("commits observed: %v, want %v", got, commitsAtOpen+1)
	}
	s := m.InstrumentStore(st)
	if _, err := s.Get("missing"); !errors.Is(err, inflight.ErrNotFound) {
		t.Fatalf("get: %v", err)
	}
	if got := mustValue(t, m, "actbridge_store_errors_total", "op", "get"); got != 0 {
		t.Errorf("not found counted as a failure: %v", got)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get("m1"); err == nil {
		t.Fatal("get on a closed store succeeded")
	}
	if got := mustValue(t, m, "actbridge_store_errors_total", "op", "get"); got != 1 {
		t.Errorf("closed store: %v failures, want 1", got)
	}
}
