package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/actbridge/actbridge/actuators/actuatorsfake"
	"github.com/actbridge/actbridge/inflight"
)

// reopen closes the store and opens its file again, as a restarted
// bridge does, and restores the e-stop from it.
func reopen(t *testing.T, old *inflight.Store, path string) (*inflight.Store, *DurableEStop) {
	t.Helper()
	if err := old.Close(); err != nil {
		t.Fatal(err)
	}
	st, err := inflight.Open(path, inflight.Options{UnsafeNoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	es, err := RestoreEStop(st, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	return st, es
}

// robot_stop answers only after the latch is in the store: a bridge
// restarted from that store is latched on the same event and reason, only
// that event resets it, and the next stop raises a new event number.
func TestEStopLatchedBeforeARestartIsLatchedAfterIt(t *testing.T) {
	r := newRig(t)
	s, e := r.call(t, RolePlanner, "robot_stop", `{"reason":"person nearby"}`)
	if e != nil || s["durable"] != true {
		t.Fatalf("robot_stop: %v %+v", s, e)
	}
	st, es := reopen(t, r.store, r.storePath)
	latched, ev, reason := es.State()
	if !latched || ev != 1 || reason != "robot_stop by planner: person nearby" {
		t.Fatalf("after restart: latched %v event %d reason %q", latched, ev, reason)
	}
	if err := es.Reset(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	_, es = reopen(t, st, r.storePath)
	if latched, ev, _ := es.State(); latched || ev != 1 {
		t.Fatalf("a persisted reset is not kept: latched %v event %d", latched, ev)
	}
	if ev := es.Latch("again"); ev != 2 {
		t.Fatalf("the stop after a restart got event %d, want 2 (never a repeat)", ev)
	}
}

// A disk that refuses the latch never fails the stop: it latches in
// memory, stops the robot and says it is not durable. A reset the store
// does not take is not applied (a restart would latch again).
func TestEStopWithoutItsStoreStillStopsAndNeverReleases(t *testing.T) {
	r := newRig(t)
	if err := r.store.Close(); err != nil { // every write now fails
		t.Fatal(err)
	}
	s, e := r.call(t, RolePlanner, "robot_stop", `{"reason":"disk gone"}`)
	if e != nil || s["stopped"] != true || s["durable"] != false || s["durable_error"] == nil || r.robot.Stops() != 1 {
		t.Fatalf("robot_stop with the store down: %v %+v", s, e)
	}
	if latched, _, _ := r.estop.State(); !latched {
		t.Fatal("the latch did not close in memory")
	}
	_, e = r.call(t, RoleOperator, "estop_reset", `{"event":1}`)
	if e == nil || e.Code != CodeUnavailable {
		t.Fatalf("estop_reset with the store down: %+v, want unavailable", e)
	}
	if latched, _, _ := r.estop.State(); !latched {
		t.Fatal("a release the store did not take was applied")
	}
	if err := r.estop.Reset(context.Background(), 1); !errors.Is(err, ErrEStopNotDurable) {
		t.Fatalf("Reset = %v, want ErrEStopNotDurable", err)
	}
}

// A store that cannot be read at start leaves the bridge stopped: it
// cannot know the last stop was released.
func TestEStopUnreadableAtStartIsLatched(t *testing.T) {
	r := newRig(t)
	if err := r.store.Close(); err != nil {
		t.Fatal(err)
	}
	es, err := RestoreEStop(r.store, time.Now)
	if err == nil {
		t.Fatal("restoring from a closed store reported no error")
	}
	if latched, _, reason := es.State(); !latched || reason != EStopUnknownReason {
		t.Fatalf("latched %v reason %q, want latched with %q", latched, reason, EStopUnknownReason)
	}
}

// Stops and resets racing each other leave the store holding exactly the
// latch in memory, and the stored event never goes back.
func TestStoredLatchMatchesMemoryAfterConcurrentStopsAndResets(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	var wg sync.WaitGroup
	for g := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 30 {
				if g%2 == 0 {
					r.estop.Latch(fmt.Sprintf("stop %d", (g+i)%4))
					_ = r.estop.Persist(ctx)
				} else {
					_, ev, _ := r.estop.State()
					_ = r.estop.Reset(ctx, ev)
				}
			}
		}()
	}
	wg.Wait()
	latched, ev, reason := r.estop.State()
	rec, found, err := r.store.EStop()
	if err != nil || !found || rec.Latched != latched || rec.Event != ev || (latched && rec.Reason != reason) {
		t.Fatalf("store %+v (found %v, %v), memory latched %v event %d %q", rec, found, err, latched, ev, reason)
	}
}

// hungStore is the store on a disk that does not answer: every PutEStop
// waits until release is closed, then writes.
type hungStore struct {
	*inflight.Store
	release chan struct{}
}

func (h hungStore) PutEStop(ctx context.Context, r inflight.EStopRecord) error {
	<-h.release
	return h.Store.PutEStop(ctx, r)
}

// A disk that hangs never holds the stop back: the cancels reach the robot
// while the latch's write waits, and robot_stop answers once it is written.
func TestAHungStoreNeverHoldsTheStopBack(t *testing.T) {
	r := newRig(t)
	hung := hungStore{Store: r.store, release: make(chan struct{})}
	es, err := RestoreEStop(hung, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	reg := NewRegistry()
	reg.MustAdd(MotionTools(r.m, es, func() any { return nil }, NewSpeedScale(1))...)
	p := NewPipeline(reg, PipelineDeps{})
	answered := make(chan map[string]any, 1)
	go func() {
		m, e := callStop(p)
		if e != nil {
			t.Errorf("robot_stop: %+v", e)
		}
		answered <- m
	}()
	for deadline := time.Now().Add(10 * time.Second); r.robot.Stops() == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the stop never reached the robot while the store hung")
		}
	}
	select {
	case out := <-answered:
		t.Fatalf("robot_stop answered before its latch was written: %v", out)
	default:
	}
	close(hung.release)
	if out := <-answered; out["durable"] != true || out["stopped"] != true {
		t.Fatalf("robot_stop after the store answered: %v", out)
	}
	if rec, _, _ := r.store.EStop(); !rec.Latched || rec.Event != 1 {
		t.Fatalf("stored %+v", rec)
	}
}

// slowStore takes the latch after delay: a slow disk.
type slowStore struct {
	*inflight.Store
	delay time.Duration
}

func (s slowStore) PutEStop(ctx context.Context, r inflight.EStopRecord) error {
	select {
	case <-time.After(s.delay):
	case <-ctx.Done():
		return ctx.Err()
	}
	return s.Store.PutEStop(ctx, r)
}

// stopSignal records, when StopAll is called, whether the latch already
// refused new motions and whether the store already held it; with hang
// it then blocks until its ctx ends (a transport that never answers).
type stopSignal struct {
	*actuatorsfake.Robot
	store   *inflight.Store
	latched func() bool
	hang    bool
	steps   *stepLog // when set, notes "StopAll returned"

	latchedAtStop, storedAtStop atomic.Bool
}

func (s *stopSignal) StopAll(ctx context.Context) error {
	s.latchedAtStop.Store(s.latched())
	rec, _, _ := s.store.EStop()
	s.storedAtStop.Store(rec.Latched)
	err := s.Robot.StopAll(ctx)
	switch {
	case s.hang:
		<-ctx.Done()
	case s.steps != nil:
		// A transport's own hand-offs take a moment: a write started
		// beside StopAll would begin within it (under stopPersistWait).
		select {
		case <-s.steps.began:
		case <-time.After(stopPersistWait / 2):
		}
	}
	s.steps.note("StopAll returned")
	return err
}

// stepLog is the order things happened in, across goroutines; began is
// closed at the first "write began".
type stepLog struct {
	mu    sync.Mutex
	steps []string
	began chan struct{}
}

func newStepLog() *stepLog { return &stepLog{began: make(chan struct{})} }

func (l *stepLog) note(step string) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if step == "write began" && !slices.Contains(l.steps, step) {
		close(l.began)
	}
	l.steps = append(l.steps, step)
}

func (l *stepLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.steps, ", ")
}

// loggedStore notes when each latch write begins and ends.
type loggedStore struct {
	*inflight.Store
	steps *stepLog
}

func (s loggedStore) PutEStop(ctx context.Context, r inflight.EStopRecord) error {
	s.steps.note("write began")
	defer s.steps.note("write ended")
	return s.Store.PutEStop(ctx, r)
}

// stopRig is a pipeline serving robot_stop over robot and the store st
// (r's store underneath).
func stopRig(t *testing.T, r *rig, robot *stopSignal, st EStopStore) *Pipeline {
	t.Helper()
	es, err := RestoreEStop(st, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	return stopRigWith(t, r, robot, es)
}

// stopRigWith is stopRig over the latch es.
func stopRigWith(t *testing.T, r *rig, robot *stopSignal, es *DurableEStop) *Pipeline {
	t.Helper()
	robot.latched = func() bool { latched, _, _ := es.State(); return latched }
	m := &Motions{Robot: robot, Store: r.store, Signer: r.m.Signer, Now: time.Now, EStop: es.State}
	if err := m.Start(); err != nil {
		t.Fatal(err)
	}
	reg := NewRegistry()
	reg.MustAdd(MotionTools(m, es, func() any { return nil }, NewSpeedScale(1))...)
	return NewPipeline(reg, PipelineDeps{})
}

// callStop runs robot_stop through p and gives its answer as JSON reads it.
func callStop(p *Pipeline) (map[string]any, *Error) {
	out, e := p.Call(context.Background(), "robot_stop", json.RawMessage(`{"reason":"test"}`), Invocation{Role: RolePlanner, Session: "s"})
	b, _ := json.Marshal(out)
	var got map[string]any
	_ = json.Unmarshal(b, &got)
	return got, e
}

func stopOnce(t *testing.T, p *Pipeline) map[string]any {
	t.Helper()
	got, e := callStop(p)
	if e != nil {
		t.Fatalf("robot_stop: %+v", e)
	}
	return got
}

// A stop whose cancels left before its latch was written, in a run that
// then died, restarts latched (UncleanExitReason, written) on an event
// above every number the dead run could have shown; a run ended in order
// does not, and a released latch stays released across one.
func TestAStopCutShortBeforeItsWriteRestartsLatched(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	if latched, err := r.estop.StartRun(ctx, 100); err != nil || latched {
		t.Fatalf("first run: latched %v err %v, want neither", latched, err)
	}
	if r.estop.PersistFirst() {
		t.Fatal("a recorded run's stop still writes before its cancels")
	}
	shown := r.estop.Latch("robot_stop by planner: cut short") // the cancels left; the process dies before Persist
	st, es := reopen(t, r.store, r.storePath)
	if latched, _, _ := es.State(); latched {
		t.Fatal("the unwritten latch was read back: this test no longer cuts the write short")
	}
	if latched, err := es.StartRun(ctx, 101); err != nil || !latched {
		t.Fatalf("start after a run that never ended: latched %v err %v, want latched", latched, err)
	}
	latched, ev, reason := es.State()
	if !latched || !strings.HasPrefix(reason, UncleanExitReason+" (process 100") || ev <= shown {
		t.Fatalf("after an unclean exit: latched %v event %d (the dead run showed %d) reason %q", latched, ev, shown, reason)
	}
	if err := es.Reset(ctx, shown); err == nil {
		t.Fatalf("a reset naming the dead run's event %d released the unclean exit's %d", shown, ev)
	}
	if rec, _, _ := st.EStop(); !rec.Latched || rec.Event != ev {
		t.Fatalf("stored %+v, want event %d latched", rec, ev)
	}
	if err := es.Reset(ctx, ev); err != nil {
		t.Fatal(err)
	}
	if err := es.EndRun(ctx); err != nil {
		t.Fatal(err)
	}
	_, es = reopen(t, st, r.storePath)
	if latched, err := es.StartRun(ctx, 102); err != nil || latched {
		t.Fatalf("start after a run ended in order: latched %v err %v, want neither", latched, err)
	}
}

// An unclean exit after a stop that was written keeps that stop's reason
// beside the crash's, on a new event.
func TestAnUncleanExitOverALatchedStopSaysBoth(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	if _, err := r.estop.StartRun(ctx, 7); err != nil {
		t.Fatal(err)
	}
	stop := r.estop.Latch("robot_stop by operator: cell open")
	if err := r.estop.Persist(ctx); err != nil {
		t.Fatal(err)
	}
	_, es := reopen(t, r.store, r.storePath)
	if _, err := es.StartRun(ctx, 8); err != nil {
		t.Fatal(err)
	}
	_, ev, reason := es.State()
	if ev <= stop || !strings.HasPrefix(reason, UncleanExitReason) || !strings.Contains(reason, "latched before it: robot_stop by operator: cell open") {
		t.Fatalf("event %d (stop was %d), reason %q", ev, stop, reason)
	}
}

// PersistFirst holds outside a recorded run: before StartRun, when it
// failed, after EndRun, and past the run's reserved events.
func TestAStopWritesFirstWhereACrashWouldNotLatch(t *testing.T) {
	ctx := context.Background()
	r := newRig(t)
	if !r.estop.PersistFirst() {
		t.Error("before StartRun: want persist first")
	}
	broken := newRig(t)
	es, err := RestoreEStop(failingStart{broken.store}, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	if latched, err := es.StartRun(ctx, 1); err == nil || !latched || !es.PersistFirst() {
		t.Errorf("StartRun failing: latched %v err %v persist first %v, want latched, an error, persist first", latched, err, es.PersistFirst())
	}
	if _, err := r.estop.StartRun(ctx, 1); err != nil || r.estop.PersistFirst() {
		t.Fatalf("recorded run: err %v persist first %v", err, r.estop.PersistFirst())
	}
	for range inflight.EventReserve { // each a new cause: a new event
		r.estop.Latch(fmt.Sprint(r.estop.latch.Snapshot().Event))
	}
	if r.estop.PersistFirst() {
		t.Fatal("within the reservation: want no persist first")
	}
	r.estop.Latch("one past the reservation")
	if !r.estop.PersistFirst() {
		t.Error("past the reserved events: want persist first")
	}
	fresh := newRig(t)
	if _, err := fresh.estop.StartRun(ctx, 2); err != nil {
		t.Fatal(err)
	}
	if err := fresh.estop.EndRun(ctx); err != nil || !fresh.estop.PersistFirst() {
		t.Errorf("after EndRun: err %v persist first %v, want persist first", err, fresh.estop.PersistFirst())
	}
}

// failingStart is a store that cannot record a run.
type failingStart struct{ *inflight.Store }

func (failingStart) StartRun(context.Context, int) (inflight.RunStart, error) {
	return inflight.RunStart{}, errors.New("ENOSPC")
}

// A stop that comes after the run's end (a call still running as the
// server shut down) writes its latch before its cancels: the run is
// already marked clean, so a crash after them would restart unlatched.
func TestAStopAfterTheRunEndedWritesBeforeItsCancels(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	robot := &stopSignal{Robot: r.robot, store: r.store}
	es, err := RestoreEStop(r.store, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := es.StartRun(ctx, 1); err != nil {
		t.Fatal(err)
	}
	p := stopRigWith(t, r, robot, es)
	if err := es.EndRun(ctx); err != nil {
		t.Fatal(err)
	}
	if got := stopOnce(t, p); got["durable"] != true {
		t.Fatalf("robot_stop = %v", got)
	}
	if !robot.storedAtStop.Load() {
		t.Fatal("a stop after EndRun sent its cancels before its latch was in the store")
	}
}

// failingPut is a store whose latch writes fail while the rest works (a
// transient disk error).
type failingPut struct{ *inflight.Store }

func (failingPut) PutEStop(context.Context, inflight.EStopRecord) error {
	return errors.New("EIO")
}

// A stop whose write failed answers durable false, and the run's clean
// end writes that latch with it: the next start is latched on its event.
func TestACleanEndKeepsALatchWhoseWriteFailed(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	robot := &stopSignal{Robot: r.robot, store: r.store}
	es, err := RestoreEStop(failingPut{r.store}, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := es.StartRun(ctx, 1); err != nil {
		t.Fatal(err)
	}
	got := stopOnce(t, stopRigWith(t, r, robot, es))
	if got["durable"] != false || got["stopped"] != true {
		t.Fatalf("robot_stop = %v, want stopped, not durable", got)
	}
	if err := es.EndRun(ctx); err != nil {
		t.Fatal(err)
	}
	_, es = reopen(t, r.store, r.storePath)
	latched, ev, reason := es.State()
	if !latched || ev != 1 || reason != "robot_stop by planner: test" {
		t.Fatalf("after a clean end: latched %v event %d %q, want event 1 latched", latched, ev, reason)
	}
}

// A slow disk does not hold the cancels back, and its write, done while a
// transport that never answers holds StopAll to the stop's deadline, still
// makes the answer durable.
func TestASlowDisksLatchStillAnswersDurable(t *testing.T) {
	r := newRig(t)
	robot := &stopSignal{Robot: r.robot, store: r.store, hang: true}
	got := stopOnce(t, stopRig(t, r, robot, slowStore{Store: r.store, delay: 150 * time.Millisecond}))
	if got["durable"] != true {
		t.Fatalf("robot_stop = %v, want durable: the write finished before the answer", got)
	}
	if !robot.latchedAtStop.Load() || robot.storedAtStop.Load() {
		t.Fatalf("at the cancels: latched in memory %v, in the store %v; want in memory only (the disk was slow)", robot.latchedAtStop.Load(), robot.storedAtStop.Load())
	}
}

// In a recorded run the latch's write starts once StopAll returned, and a
// transport that never returns does not hold it back: it is written while
// StopAll still hangs, and the answer is durable.
func TestInARecordedRunTheCancelsLeaveFirstAndAHungTransportDoesNotHoldTheWrite(t *testing.T) {
	for _, c := range []struct {
		hang bool
		want string
	}{
		{false, "StopAll returned, write began, write ended"},
		{true, "write began, write ended, StopAll returned"},
	} {
		t.Run(fmt.Sprintf("hung transport %v", c.hang), func(t *testing.T) {
			r := newRig(t)
			steps := newStepLog()
			robot := &stopSignal{Robot: r.robot, store: r.store, hang: c.hang, steps: steps}
			es, err := RestoreEStop(loggedStore{r.store, steps}, time.Now)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := es.StartRun(context.Background(), 1); err != nil {
				t.Fatal(err)
			}
			got := stopOnce(t, stopRigWith(t, r, robot, es))
			if got["durable"] != true {
				t.Fatalf("robot_stop = %v, want durable", got)
			}
			if s := steps.String(); s != c.want {
				t.Fatalf("steps: %s; want %s", s, c.want)
			}
		})
	}
}
