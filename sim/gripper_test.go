package sim

import (
	"math"
	"testing"
	"time"
)

func gripTo(pos, effort float64) GripperGoal {
	return GripperGoal{Position: pos, MaxEffort: effort}
}

func gripResultOf(t *testing.T, o GoalOutcome) GripperResult {
	t.Helper()
	res, ok := o.Result.(GripperResult)
	if !ok {
		t.Fatalf("result is %T", o.Result)
	}
	return res
}

func TestGripperReachesPositionAtItsSpeed(t *testing.T) {
	r := newTestRobot(t) // starts open at 0.08, moves at 0.05 m/s
	r.GripperGoal(GoalID{ID: "close"}, gripTo(0.03, 10))
	start := r.Now()
	o := runUntilDone(t, r, Gripper, "close", 3*time.Second)
	res := gripResultOf(t, o)
	if o.Status != StatusSucceeded || !res.ReachedGoal || res.Stalled {
		t.Fatalf("outcome %+v, want SUCCEEDED with reached_goal", o)
	}
	// 0.05 m at 0.05 m/s, minus the goal tolerance.
	if took := r.Now().Sub(start); took < 900*time.Millisecond || took > 1100*time.Millisecond {
		t.Errorf("took %s, want about 1s", took)
	}
	if pos, _ := r.GripperState(); math.Abs(pos-0.03) > 0.002 {
		t.Errorf("finger at %g, want 0.03", pos)
	}
}

func TestGripperStallFaultAbortsWithStalled(t *testing.T) {
	r := newTestRobot(t)
	r.SetFaults(Faults{Gripper: GripperFaults{Stall: true}})
	r.GripperGoal(GoalID{ID: "g"}, gripTo(0.0, 15))
	o := runUntilDone(t, r, Gripper, "g", 3*time.Second)
	res := gripResultOf(t, o)
	if o.Status != StatusAborted || !res.Stalled || res.ReachedGoal {
		t.Fatalf("outcome %+v, want ABORTED with stalled", o)
	}
	if res.Effort != 15 || math.Abs(res.Position-0.08) > 1e-9 {
		t.Errorf("result %+v, want effort 15 (max_effort) at the start position", res)
	}
}

func TestGripperTargetBeyondLimitStallsAtLimit(t *testing.T) {
	r := newTestRobot(t)
	r.GripperGoal(GoalID{ID: "g"}, gripTo(-0.05, 0))
	o := runUntilDone(t, r, Gripper, "g", 4*time.Second)
	res := gripResultOf(t, o)
	if o.Status != StatusAborted || !res.Stalled || math.Abs(res.Position) > 1e-9 {
		t.Errorf("outcome %+v, want ABORTED stalled at the 0.0 limit", o)
	}
	if res.Effort != 40 {
		t.Errorf("effort %g, want the joint's limit 40 when max_effort is 0", res.Effort)
	}
}

func TestGripperNewGoalPreemptsAndCancelStops(t *testing.T) {
	r := newTestRobot(t)
	r.GripperGoal(GoalID{ID: "a"}, gripTo(0.0, 10))
	r.Advance(200 * time.Millisecond)
	r.GripperGoal(GoalID{ID: "b"}, gripTo(0.0, 10))
	if o, _ := r.Goal(Gripper, "a"); o.Status != StatusPreempted {
		t.Errorf("a: %s, want PREEMPTED", StatusName(o.Status))
	}
	r.Advance(200 * time.Millisecond)
	if err := r.Cancel(Gripper, GoalID{ID: "b"}); err != nil {
		t.Fatal(err)
	}
	if o, _ := r.Goal(Gripper, "b"); o.Status != StatusPreempted {
		t.Errorf("b: %s, want PREEMPTED", StatusName(o.Status))
	}
	held, _ := r.GripperState()
	r.Advance(time.Second)
	if pos, _ := r.GripperState(); pos != held {
		t.Errorf("finger moved after cancel: %g, held %g", pos, held)
	}
}
