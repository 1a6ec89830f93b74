package sim

import (
	"testing"
	"time"
)

// fakeExec accepts every goal, preempting the one it runs, like JTC and
// move_base; it records what the server asked of it.
type fakeExec struct {
	active  *goalHandle[string, string, string]
	started []string
	reject  map[string]bool
}

func (e *fakeExec) goal(now time.Time, h *goalHandle[string, string, string]) {
	if e.reject[h.Goal()] {
		_ = h.reject(now, "rejected", "no")
		return
	}
	if e.active != nil {
		_ = e.active.canceled(now, "preempted", "preempted by a new goal")
	}
	_ = h.accept(now, "")
	e.active = h
	e.started = append(e.started, h.ID().ID)
}

func (e *fakeExec) cancel(now time.Time, h *goalHandle[string, string, string]) {
	if h.Same(e.active) {
		e.active = nil
	}
	_ = h.canceled(now, "canceled", "")
}

func newFakeServer() (*actionServer[string, string, string], *fakeExec) {
	e := &fakeExec{reject: map[string]bool{}}
	s := newActionServer(actionServerConfig{
		Name: "test", StatusListTimeout: 5 * time.Second, StatusPeriod: 100 * time.Millisecond,
	}, executor[string, string, string](e), newActionLog("/test"))
	return s, e
}

// at is a fixed instant plus ms milliseconds.
func at(ms int) time.Time { return time.Unix(1_000_000, 0).Add(time.Duration(ms) * time.Millisecond) }

func state(t *testing.T, s *actionServer[string, string, string], id string) uint8 {
	t.Helper()
	o, ok := s.outcome(id)
	if !ok {
		t.Fatalf("goal %q unknown to the server", id)
	}
	return o.Status
}

func results(ms []Message) map[string]uint8 {
	out := map[string]uint8{}
	for _, m := range ms {
		if r, ok := m.(*ActionResult); ok && r.Action == "test" {
			out[r.Status.ID.ID] = r.Status.Status
		}
	}
	return out
}

func TestDuplicateGoalIDStartsNothing(t *testing.T) {
	s, e := newFakeServer()
	s.handleGoal(at(0), at(0), GoalID{ID: "g1", Stamp: at(0)}, "first")
	s.handleGoal(at(10), at(10), GoalID{ID: "g1", Stamp: at(10)}, "second")
	if len(e.started) != 1 {
		t.Fatalf("started %v, want only the first g1", e.started)
	}
	if g := s.byID["g1"].goal; g != "first" {
		t.Errorf("goal replaced by duplicate: %q", g)
	}
	snap := s.log.snapshot()
	if snap.Received != 2 || snap.Duplicates != 1 || !snap.Goals[1].Duplicate || snap.Goals[0].Duplicate {
		t.Errorf("goal log = %+v, want 2 received, the second a duplicate", snap)
	}

	// Still a duplicate after the goal ended and left the status list.
	_ = e.active.succeed(at(20), "ok", "")
	s.drain(at(20))
	s.drain(at(20 + 6000))
	if _, listed := s.byID["g1"]; listed {
		t.Fatalf("finished goal still listed after StatusListTimeout")
	}
	s.handleGoal(at(7000), at(7000), GoalID{ID: "g1"}, "third")
	if len(e.started) != 1 {
		t.Errorf("a goal id that left the status list was started again: %v", e.started)
	}
}

func TestCancelBeforeGoalRecallsIt(t *testing.T) {
	tests := []struct {
		name   string
		cancel GoalID
		goal   GoalID
	}{
		{"by id", GoalID{ID: "g1"}, GoalID{ID: "g1", Stamp: at(5)}},
		{"by id, goal stamped before the cancel", GoalID{ID: "g1", Stamp: at(1)}, GoalID{ID: "g1", Stamp: at(0)}},
		{"by stamp", GoalID{Stamp: at(10)}, GoalID{ID: "g1", Stamp: at(9)}},
		{"by stamp, equal", GoalID{Stamp: at(10)}, GoalID{ID: "g1", Stamp: at(10)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, e := newFakeServer()
			s.handleCancel(at(0), at(0), tt.cancel)
			out := s.drain(at(1))
			if tt.cancel.ID != "" && statusOf(out, tt.cancel.ID) != StatusRecalling {
				t.Errorf("cancel for an unknown id: status list %v, want it RECALLING", out)
			}
			s.handleGoal(at(20), at(20), tt.goal, "g")
			if len(e.started) != 0 {
				t.Errorf("executor started %v, want nothing", e.started)
			}
			if got := state(t, s, "g1"); got != StatusRecalled {
				t.Errorf("state = %s, want RECALLED", StatusName(got))
			}
			if got := results(s.drain(at(21)))["g1"]; got != StatusRecalled {
				t.Errorf("result status = %s, want RECALLED", StatusName(got))
			}
		})
	}
}

func TestGoalStampedAfterCancelStampRuns(t *testing.T) {
	s, e := newFakeServer()
	s.handleCancel(at(0), at(0), GoalID{Stamp: at(10)})
	s.handleGoal(at(20), at(20), GoalID{ID: "late", Stamp: at(11)}, "g")
	if len(e.started) != 1 || state(t, s, "late") != StatusActive {
		t.Errorf("a goal stamped after the last cancel was not started: %v", e.started)
	}
}

func TestCancelAllCancelsEveryLiveGoal(t *testing.T) {
	s, e := newFakeServer()
	e.reject["r"] = false
	s.handleGoal(at(0), at(0), GoalID{ID: "a", Stamp: at(0)}, "a")
	s.handleGoal(at(1), at(1), GoalID{ID: "b", Stamp: at(1)}, "b") // preempts a
	s.handleCancel(at(2), at(2), GoalID{})
	for id, want := range map[string]uint8{"a": StatusPreempted, "b": StatusPreempted} {
		if got := state(t, s, id); got != want {
			t.Errorf("%s: %s, want %s", id, StatusName(got), StatusName(want))
		}
	}
	// Cancel-all has no stamp, so it does not recall later goals.
	s.handleGoal(at(3), at(3), GoalID{ID: "c", Stamp: at(3)}, "c")
	if got := state(t, s, "c"); got != StatusActive {
		t.Errorf("goal after cancel-all: %s, want ACTIVE", StatusName(got))
	}
}

func TestNewGoalPreemptsActiveGoal(t *testing.T) {
	s, _ := newFakeServer()
	s.handleGoal(at(0), at(0), GoalID{ID: "a", Stamp: at(0)}, "a")
	s.handleGoal(at(5), at(5), GoalID{ID: "b", Stamp: at(5)}, "b")
	if got := state(t, s, "a"); got != StatusPreempted {
		t.Errorf("a: %s, want PREEMPTED", StatusName(got))
	}
	if got := results(s.drain(at(6)))["a"]; got != StatusPreempted {
		t.Errorf("a's result: %s, want PREEMPTED", StatusName(got))
	}
}

func TestRejectedGoalEndsRejectedWithResult(t *testing.T) {
	s, e := newFakeServer()
	e.reject["bad"] = true
	s.handleGoal(at(0), at(0), GoalID{ID: "x"}, "bad")
	if got := results(s.drain(at(0)))["x"]; got != StatusRejected {
		t.Errorf("result: %s, want REJECTED", StatusName(got))
	}
}

func TestTerminalStateCannotChange(t *testing.T) {
	s, e := newFakeServer()
	s.handleGoal(at(0), at(0), GoalID{ID: "a"}, "a")
	h := e.active
	if err := h.succeed(at(1), "", ""); err != nil {
		t.Fatal(err)
	}
	for name, f := range map[string]func() error{
		"abort":  func() error { return h.abort(at(2), "", "") },
		"cancel": func() error { return h.canceled(at(2), "", "") },
		"accept": func() error { return h.accept(at(2), "") },
	} {
		if err := f(); err == nil {
			t.Errorf("%s after SUCCEEDED: no error", name)
		}
	}
	if got := state(t, s, "a"); got != StatusSucceeded {
		t.Errorf("state %s, want SUCCEEDED", StatusName(got))
	}
}

func TestIgnoreGoalsFaultNeverAnswers(t *testing.T) {
	s, e := newFakeServer()
	s.faults.IgnoreGoals = true
	s.handleGoal(at(0), at(0), GoalID{ID: "a"}, "a")
	out := s.drain(at(1000))
	if len(e.started) != 0 || len(results(out)) != 0 || statusOf(out, "a") != 255 {
		t.Errorf("ignored goal reached the executor or the topics: started %v, out %v", e.started, out)
	}
	if snap := s.log.snapshot(); snap.Received != 1 || !snap.Goals[0].Ignored {
		t.Errorf("ignored goal not logged: %+v", snap)
	}
}

func TestDelayFaultHoldsBackStatusAndResult(t *testing.T) {
	s, e := newFakeServer()
	s.faults.Delay = 300 * time.Millisecond
	s.handleGoal(at(0), at(0), GoalID{ID: "a"}, "a")
	_ = e.active.succeed(at(10), "", "")
	early := s.drain(at(200))
	if statusOf(early, "a") != 255 || len(results(early)) != 0 {
		t.Errorf("before the delay: %v, want no sign of the goal", early)
	}
	late := s.drain(at(320))
	if got := results(late)["a"]; got != StatusSucceeded {
		t.Errorf("after the delay: result %s, want SUCCEEDED", StatusName(got))
	}
}

func TestMuteStatusPublishesNoStatus(t *testing.T) {
	s, _ := newFakeServer()
	s.faults.MuteStatus = true
	s.handleGoal(at(0), at(0), GoalID{ID: "a"}, "a")
	for _, m := range s.drain(at(1000)) {
		if _, ok := m.(*ActionStatus); ok {
			t.Fatalf("status published while muted")
		}
	}
}

func TestGoalWithoutIDGetsOne(t *testing.T) {
	s, e := newFakeServer()
	s.handleGoal(at(0), at(0), GoalID{}, "a")
	s.handleGoal(at(1), at(1), GoalID{}, "b")
	if len(e.started) != 2 || e.started[0] == "" || e.started[0] == e.started[1] {
		t.Errorf("started %v, want two distinct generated ids", e.started)
	}
}

func TestStatusListTimeoutDropsFinishedGoals(t *testing.T) {
	s, e := newFakeServer()
	s.handleGoal(at(0), at(0), GoalID{ID: "a"}, "a")
	_ = e.active.succeed(at(1), "", "")
	if statusOf(s.drain(at(2)), "a") != StatusSucceeded {
		t.Fatal("finished goal not in the status list")
	}
	s.drain(at(4000))
	if statusOf(s.drain(at(4200)), "a") != StatusSucceeded {
		t.Errorf("finished goal left the status list before StatusListTimeout")
	}
	if got := statusOf(s.drain(at(5200)), "a"); got != 255 {
		t.Errorf("finished goal still listed after StatusListTimeout: %s", StatusName(got))
	}
}

// statusOf is the goal's state in the last status array of ms, 255 if absent.
func statusOf(ms []Message, id string) uint8 {
	st := uint8(255)
	for _, m := range ms {
		if a, ok := m.(*ActionStatus); ok {
			st = 255
			for _, g := range a.List {
				if g.ID.ID == id {
					st = g.Status
				}
			}
		}
	}
	return st
}
