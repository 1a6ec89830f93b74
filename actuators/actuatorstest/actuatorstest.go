// Package actuatorstest checks a robot transport (or a fake) against the
// robot contract of package actuators, as testing/fstest checks an io/fs
// implementation: every transport and every fake the tests use runs
// TestRobot, so none can drift from what the tool layer relies on.
package actuatorstest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/actbridge/actbridge/actuators"
)

// Rig is a robot under test and what the suite must know of it.
type Rig struct {
	Robot actuators.Robot
	// Wire returns the ids of the goals that reached the robot, in the
	// order they arrived, a goal received twice listed twice: what the
	// robot saw, not what the transport says it sent (for ROS 1, the
	// sim's goal log).
	Wire func() []string
	// Arm names an actuator that runs Goal to success, taking at least a
	// second so a cancel lands while it is active.
	Arm  string
	Goal actuators.Goal
	// Held names an actuator whose sends wait for a server that is not
	// there (until their ctx ends, a cancel or StopAll); HeldGoal is a
	// goal of its kind.
	Held     string
	HeldGoal actuators.Goal
	// Timeout bounds each wait for the robot: a goal's end, a lost goal's
	// grace.
	Timeout time.Duration
}

// TestRobot runs the contract's properties against the robot newRig
// makes. They share the rig, one after the other, each with its own goal
// ids (prefixed with the test's name), so a slow transport starts once.
func TestRobot(t *testing.T, newRig func(t *testing.T) Rig) {
	rig := newRig(t)
	s := &suite{Rig: rig, log: &Updates{}}
	if s.Timeout <= 0 {
		s.Timeout = 20 * time.Second
	}
	rig.Robot.SetObserver(s.log.Push)
	t.Run("GoalReachesTheWireExactlyOnce", s.goalOnTheWireOnce)
	t.Run("SameIDIsNeverSentTwice", s.sameIDNeverTwice)
	t.Run("StatesAreReportedInOrder", s.statesInOrder)
	t.Run("CancelEndsAnActiveGoal", s.cancel)
	t.Run("StopAllIsNeverBlockedByASendInProgress", s.stopAllNotBlocked)
	t.Run("TrackedGoalsTheRobotDoesNotKnowBecomeLost", s.lost)
	t.Run("ErrorsAreTheContractsValues", s.errorsAreContract)
}

type suite struct {
	Rig
	log *Updates
}

const firstID = "actuatorstest-once"

func (s *suite) goalOnTheWireOnce(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), s.Timeout)
	defer cancel()
	if err := s.Robot.Send(ctx, s.Arm, firstID, s.Goal); err != nil {
		t.Fatalf("Send: %v", err)
	}
	end := s.log.waitTerminal(t, firstID, s.Timeout)
	if end.State != actuators.GoalSucceeded {
		t.Errorf("goal ended %s (%s), want %s", end.State, end.Text, actuators.GoalSucceeded)
	}
	if n := count(s.Wire(), firstID); n != 1 {
		t.Errorf("goal reached the robot %d times, want once", n)
	}
}

func (s *suite) sameIDNeverTwice(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), s.Timeout)
	defer cancel()
	err := s.Robot.Send(ctx, s.Arm, firstID, s.Goal)
	if !errors.Is(err, actuators.ErrDuplicateGoal) {
		t.Errorf("second Send of %s = %v, want ErrDuplicateGoal", firstID, err)
	}
	time.Sleep(200 * time.Millisecond) // a wrongly sent goal would arrive by now
	if n := count(s.Wire(), firstID); n != 1 {
		t.Errorf("goal reached the robot %d times, want once", n)
	}
}

func (s *suite) statesInOrder(t *testing.T) {
	states := s.log.States(firstID)
	if err := inOrder(states); err != nil {
		t.Errorf("states %v: %v", states, err)
	}
}

func (s *suite) cancel(t *testing.T) {
	const id = "actuatorstest-cancel"
	ctx, cancel := context.WithTimeout(context.Background(), s.Timeout)
	defer cancel()
	if err := s.Robot.Send(ctx, s.Arm, id, s.Goal); err != nil {
		t.Fatalf("Send: %v", err)
	}
	s.log.wait(t, id, s.Timeout, func(u actuators.GoalUpdate) bool { return u.State == actuators.GoalActive })
	if err := s.Robot.Cancel(ctx, s.Arm, id); err != nil {
		t.Fatalf("Cancel: %v", err)
	}
	end := s.log.waitTerminal(t, id, s.Timeout)
	if end.State != actuators.GoalCanceled {
		t.Errorf("canceled active goal ended %s (%s), want %s", end.State, end.Text, actuators.GoalCanceled)
	}
	if err := inOrder(s.log.States(id)); err != nil {
		t.Errorf("states %v: %v", s.log.States(id), err)
	}
	if n := count(s.Wire(), id); n != 1 {
		t.Errorf("goal reached the robot %d times, want once", n)
	}
}

func (s *suite) stopAllNotBlocked(t *testing.T) {
	const id = "actuatorstest-held"
	ctx, cancel := context.WithTimeout(context.Background(), s.Timeout)
	defer cancel()
	sent := make(chan error, 1)
	go func() { sent <- s.Robot.Send(ctx, s.Held, id, s.HeldGoal) }()
	time.Sleep(300 * time.Millisecond) // the send is waiting for its server
	select {
	case err := <-sent:
		t.Fatalf("Send to %s returned before StopAll: %v (Held must name an actuator whose sends wait)", s.Held, err)
	default:
	}
	sctx, scancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer scancel()
	start := time.Now()
	if err := s.Robot.StopAll(sctx); err != nil {
		t.Errorf("StopAll: %v", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("StopAll took %s while a send waited", d)
	}
	select {
	case err := <-sent:
		if !errors.Is(err, actuators.ErrCanceledBeforeSend) {
			t.Errorf("the waiting Send returned %v, want ErrCanceledBeforeSend", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the waiting Send did not return within 5 s of StopAll")
	}
	end := s.log.waitTerminal(t, id, s.Timeout)
	if end.State != actuators.GoalRecalled {
		t.Errorf("a goal stopped before it was sent ended %s, want %s", end.State, actuators.GoalRecalled)
	}
	if n := count(s.Wire(), id); n != 0 {
		t.Errorf("a goal stopped before it was sent reached the robot %d times", n)
	}
}

func (s *suite) lost(t *testing.T) {
	const id = "actuatorstest-never-sent"
	s.Robot.Track(s.Arm, id)
	s.log.wait(t, id, s.Timeout, func(u actuators.GoalUpdate) bool { return u.State == actuators.GoalLost })
	if n := count(s.Wire(), id); n != 0 {
		t.Errorf("tracking a goal sent it %d times", n)
	}
}

func (s *suite) errorsAreContract(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), s.Timeout)
	defer cancel()
	wrongKind := actuators.Goal(actuators.GripperCommand{Position: 0.01, MaxEffort: 1})
	if s.Goal.Kind() == actuators.KindGripper {
		wrongKind = actuators.Navigate{}
	}
	cases := []struct {
		name string
		err  error
		want error
	}{
		{"send to an unknown actuator", s.Robot.Send(ctx, "actuatorstest-nobody", "actuatorstest-e1", s.Goal), actuators.ErrUnknownActuator},
		{"send a goal of another kind", s.Robot.Send(ctx, s.Arm, "actuatorstest-e2", wrongKind), actuators.ErrInvalidArgument},
		{"cancel on an unknown actuator", s.Robot.Cancel(ctx, "actuatorstest-nobody", "actuatorstest-e3"), actuators.ErrUnknownActuator},
	}
	for _, c := range cases {
		if !errors.Is(c.err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, c.err, c.want)
		}
	}
	for _, id := range []string{"actuatorstest-e1", "actuatorstest-e2"} {
		if n := count(s.Wire(), id); n != 0 {
			t.Errorf("refused goal %s reached the robot %d times", id, n)
		}
	}
}

// rank orders the states a goal passes through; terminal states share the last rank.
func rank(s actuators.GoalState) int {
	switch s {
	case actuators.GoalPending:
		return 0
	case actuators.GoalActive:
		return 1
	case actuators.GoalCanceling:
		return 2
	}
	if s.Terminal() {
		return 3
	}
	return -1 // GoalLost: may come and go
}

// inOrder checks that states never go back and end with exactly one
// terminal state.
func inOrder(states []actuators.GoalState) error {
	last, terminal := -1, 0
	for _, s := range states {
		r := rank(s)
		if r < 0 {
			continue
		}
		if terminal > 0 {
			return fmt.Errorf("%s after the terminal state", s)
		}
		if r < last {
			return fmt.Errorf("%s after a later state", s)
		}
		if r == 3 {
			terminal++
		}
		last = r
	}
	if terminal != 1 {
		return errors.New("no terminal state")
	}
	return nil
}

func count(ids []string, id string) int {
	n := 0
	for _, x := range ids {
		if x == id {
			n++
		}
	}
	return n
}

// Updates records every goal update an observer gets (pass Push to
// SetObserver); transports' own tests use it too.
type Updates struct {
	mu  sync.Mutex
	all []actuators.GoalUpdate
}

// Push records one update.
func (u *Updates) Push(x actuators.GoalUpdate) {
	u.mu.Lock()
	u.all = append(u.all, x)
	u.mu.Unlock()
}

// Of is id's updates so far, in order.
func (u *Updates) Of(id string) []actuators.GoalUpdate {
	u.mu.Lock()
	defer u.mu.Unlock()
	var out []actuators.GoalUpdate
	for _, x := range u.all {
		if x.GoalID == id {
			out = append(out, x)
		}
	}
	return out
}

// States is id's states so far, in order.
func (u *Updates) States(id string) []actuators.GoalState {
	var out []actuators.GoalState
	for _, x := range u.Of(id) {
		out = append(out, x.State)
	}
	return out
}

// wait returns the first update of id that ok accepts, failing after timeout.
func (u *Updates) wait(t *testing.T, id string, timeout time.Duration, ok func(actuators.GoalUpdate) bool) actuators.GoalUpdate {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		u.mu.Lock()
		i := slices.IndexFunc(u.all, func(x actuators.GoalUpdate) bool { return x.GoalID == id && ok(x) })
		var got actuators.GoalUpdate
		if i >= 0 {
			got = u.all[i]
		}
		u.mu.Unlock()
		if i >= 0 {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("goal %s: no such update within %s; states %v", id, timeout, u.States(id))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (u *Updates) waitTerminal(t *testing.T, id string, timeout time.Duration) actuators.GoalUpdate {
	t.Helper()
	return u.wait(t, id, timeout, func(x actuators.GoalUpdate) bool { return x.State.Terminal() })
}
