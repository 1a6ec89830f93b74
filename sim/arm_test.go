package sim

import (
	"math"
	"strings"
	"testing"
	"time"
)

func TestTrajectoryReachesTargetAndSucceeds(t *testing.T) {
	r := newTestRobot(t)
	target := []float64{0.5, -0.4, 1.0, 0.2, -0.3, 2.0}
	r.ArmGoal(GoalID{ID: "g"}, traj(r, 1.0, []float64{0.2, -0.2, 0.5, 0.1, -0.1, 1.0}, target))

	r.Advance(time.Second)
	if o, _ := r.Goal(Arm, "g"); o.Status != StatusActive {
		t.Fatalf("mid-trajectory: %s, want ACTIVE", StatusName(o.Status))
	}
	o := runUntilDone(t, r, Arm, "g", 3*time.Second)
	if o.Status != StatusSucceeded || errorCode(t, o) != ErrorSuccessful {
		t.Fatalf("outcome %+v, want SUCCEEDED/SUCCESSFUL", o)
	}
	if got := r.ArmPositions(); !near(got, target, 1e-6) {
		t.Errorf("positions %v, want %v", got, target)
	}
}

func TestSucceedsNoEarlierThanTrajectoryEnd(t *testing.T) {
	r := newTestRobot(t)
	r.ArmGoal(GoalID{ID: "g"}, traj(r, 2.0, uniform(6, 0.3)))
	start := r.Now()
	runUntilDone(t, r, Arm, "g", 4*time.Second)
	if took := r.Now().Sub(start); took < 2*time.Second || took > 2100*time.Millisecond {
		t.Errorf("goal ended after %s of simulated time, want just after 2s", took)
	}
}

func TestGoalJointsMustMatchControllerJoints(t *testing.T) {
	tests := []struct {
		name  string
		names func([]string) []string
	}{
		{"unknown joint", func(n []string) []string { return append(n[:5:5], "no_such_joint") }},
		{"missing joint", func(n []string) []string { return n[:5] }},
		{"joint twice", func(n []string) []string { return append(n[:5:5], n[0]) }},
		{"extra joint", func(n []string) []string { return append(n, "gripper_finger_joint") }},
		{"no joints", func([]string) []string { return nil }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newTestRobot(t)
			g := traj(r, 1, uniform(6, 0.5))
			g.Trajectory.JointNames = tt.names(r.ArmJoints())
			for i := range g.Trajectory.Points {
				g.Trajectory.Points[i].Positions = uniform(len(g.Trajectory.JointNames), 0.5)
			}
			r.ArmGoal(GoalID{ID: "g"}, g)
			o, _ := r.Goal(Arm, "g")
			if o.Status != StatusRejected || errorCode(t, o) != ErrorInvalidJoints {
				t.Errorf("outcome %+v, want REJECTED/INVALID_JOINTS", o)
			}
			r.Advance(500 * time.Millisecond)
			if got := r.ArmPositions(); !near(got, uniform(6, 0), 1e-9) {
				t.Errorf("arm moved to %v after a rejected goal", got)
			}
		})
	}
}

func TestGoalJointOrderIsMappedByName(t *testing.T) {
	r := newTestRobot(t)
	names := r.ArmJoints()
	rev := make([]string, len(names))
	pos := make([]float64, len(names))
	for i := range names {
		rev[i] = names[len(names)-1-i]
		pos[i] = float64(len(names)-1-i) * 0.1 // joint k gets 0.1*k
	}
	g := traj(r, 0.5, pos)
	g.Trajectory.JointNames = rev
	r.ArmGoal(GoalID{ID: "g"}, g)
	runUntilDone(t, r, Arm, "g", 2*time.Second)
	want := []float64{0, 0.1, 0.2, 0.3, 0.4, 0.5}
	if got := r.ArmPositions(); !near(got, want, 1e-6) {
		t.Errorf("positions %v, want %v", got, want)
	}
}

func TestInvalidTrajectoryIsRejectedInvalidGoal(t *testing.T) {
	tests := []struct {
		name string
		mod  func(*TrajectoryGoal)
	}{
		{"times not increasing", func(g *TrajectoryGoal) {
			g.Trajectory.Points[1].TimeFromStart = g.Trajectory.Points[0].TimeFromStart
		}},
		{"too few positions", func(g *TrajectoryGoal) { g.Trajectory.Points[0].Positions = []float64{1} }},
		{"velocities of the wrong length", func(g *TrajectoryGoal) { g.Trajectory.Points[0].Velocities = []float64{1, 2} }},
		{"NaN position", func(g *TrajectoryGoal) { g.Trajectory.Points[1].Positions[2] = math.NaN() }},
		{"only a point at time 0", func(g *TrajectoryGoal) {
			g.Trajectory.Points = g.Trajectory.Points[:1]
			g.Trajectory.Points[0].TimeFromStart = 0
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newTestRobot(t)
			g := traj(r, 1, uniform(6, 0.1), uniform(6, 0.2))
			tt.mod(&g)
			r.ArmGoal(GoalID{ID: "g"}, g)
			o, _ := r.Goal(Arm, "g")
			if o.Status != StatusRejected || errorCode(t, o) != ErrorInvalidGoal {
				t.Errorf("outcome %+v, want REJECTED/INVALID_GOAL", o)
			}
		})
	}
}

func TestEmptyTrajectoryStopsAndSucceeds(t *testing.T) {
	r := newTestRobot(t)
	r.ArmGoal(GoalID{ID: "move"}, traj(r, 2.0, uniform(6, 1.0)))
	r.Advance(time.Second)
	mid := r.ArmPositions()

	empty := TrajectoryGoal{}
	empty.Trajectory.JointNames = r.ArmJoints()
	r.ArmGoal(GoalID{ID: "stop"}, empty)
	if o, _ := r.Goal(Arm, "move"); o.Status != StatusPreempted {
		t.Errorf("moving goal: %s, want PREEMPTED", StatusName(o.Status))
	}
	o := runUntilDone(t, r, Arm, "stop", time.Second)
	if o.Status != StatusSucceeded {
		t.Errorf("empty trajectory: %s, want SUCCEEDED", StatusName(o.Status))
	}
	r.Advance(2 * time.Second)
	if got := r.ArmPositions(); !near(got, mid, 1e-3) {
		t.Errorf("arm kept moving after the empty trajectory: %v, stopped at %v", got, mid)
	}
}

func TestNewGoalPreemptsAndContinuesFromDesiredState(t *testing.T) {
	r := newTestRobot(t)
	r.ArmGoal(GoalID{ID: "a"}, traj(r, 2.0, uniform(6, 1.0)))
	r.Advance(time.Second)
	before := r.ArmPositions()
	r.ArmGoal(GoalID{ID: "b"}, traj(r, 1.0, uniform(6, -0.5)))
	if o, _ := r.Goal(Arm, "a"); o.Status != StatusPreempted {
		t.Errorf("first goal: %s, want PREEMPTED", StatusName(o.Status))
	}
	r.Advance(time.Millisecond)
	if got := r.ArmPositions(); !near(got, before, 0.01) {
		t.Errorf("arm jumped from %v to %v at preemption", before, got)
	}
	if o := runUntilDone(t, r, Arm, "b", 3*time.Second); o.Status != StatusSucceeded {
		t.Errorf("second goal: %s, want SUCCEEDED", StatusName(o.Status))
	}
	if got := r.ArmPositions(); !near(got, uniform(6, -0.5), 1e-6) {
		t.Errorf("positions %v, want the second goal's target", got)
	}
}

func TestCancelHoldsPosition(t *testing.T) {
	r := newTestRobot(t)
	r.ArmGoal(GoalID{ID: "a"}, traj(r, 2.0, uniform(6, 1.0)))
	r.Advance(time.Second)
	if err := r.Cancel(Arm, GoalID{ID: "a"}); err != nil {
		t.Fatal(err)
	}
	held := r.ArmPositions()
	if o, _ := r.Goal(Arm, "a"); o.Status != StatusPreempted {
		t.Errorf("canceled goal: %s, want PREEMPTED", StatusName(o.Status))
	}
	r.Advance(2 * time.Second)
	if got := r.ArmPositions(); !near(got, held, 1e-9) {
		t.Errorf("arm moved after cancel: %v, held %v", got, held)
	}
}

func TestTrackingOffsetBeyondPathToleranceAborts(t *testing.T) {
	r := newTestRobot(t)
	r.SetFaults(Faults{Arm: ArmFaults{TrackingOffset: 0.3}}) // default path tolerance 0.2
	r.ArmGoal(GoalID{ID: "g"}, traj(r, 1.0, uniform(6, 0.5)))
	o := runUntilDone(t, r, Arm, "g", 2*time.Second)
	if o.Status != StatusAborted || errorCode(t, o) != ErrorPathToleranceViolated {
		t.Errorf("outcome %+v, want ABORTED/PATH_TOLERANCE_VIOLATED", o)
	}
}

func TestGoalPathToleranceOverridesDefault(t *testing.T) {
	tests := []struct {
		name    string
		pathTol float64
		want    int32
	}{
		{"wider tolerance lets it pass the path, fails the goal", 0.5, ErrorGoalToleranceViolated},
		{"negative disables the path check", -1, ErrorGoalToleranceViolated},
		{"zero keeps the default", 0, ErrorPathToleranceViolated},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newTestRobot(t)
			r.SetFaults(Faults{Arm: ArmFaults{TrackingOffset: 0.3}})
			g := traj(r, 1.0, uniform(6, 0.5))
			g.PathTolerance = tolerances(r, tt.pathTol)
			r.ArmGoal(GoalID{ID: "g"}, g)
			o := runUntilDone(t, r, Arm, "g", 3*time.Second)
			if o.Status != StatusAborted || errorCode(t, o) != tt.want {
				t.Errorf("outcome %+v, want ABORTED/%d", o, tt.want)
			}
		})
	}
}

func TestLagWithinGoalTimeSucceeds(t *testing.T) {
	tests := []struct {
		name     string
		goalTime time.Duration
		want     uint8
	}{
		{"enough goal time", 2 * time.Second, StatusSucceeded},
		{"too little goal time", 10 * time.Millisecond, StatusAborted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newTestRobot(t)
			r.SetFaults(Faults{Arm: ArmFaults{Lag: 200 * time.Millisecond}})
			g := traj(r, 1.0, uniform(6, 0.5)) // lags about 0.1 rad at the end
			g.GoalTimeTolerance = tt.goalTime
			r.ArmGoal(GoalID{ID: "g"}, g)
			o := runUntilDone(t, r, Arm, "g", 4*time.Second)
			if o.Status != tt.want {
				t.Errorf("outcome %+v, want %s", o, StatusName(tt.want))
			}
			if tt.want == StatusAborted && errorCode(t, o) != ErrorGoalToleranceViolated {
				t.Errorf("error code %d, want GOAL_TOLERANCE_VIOLATED", errorCode(t, o))
			}
		})
	}
}

func TestAbortAfterFaultAbortsMidTrajectory(t *testing.T) {
	tests := []struct {
		name  string
		hold  bool
		check func(t *testing.T, aborted, later []float64)
	}{
		{"like JTC, the trajectory runs on", false, func(t *testing.T, aborted, later []float64) {
			if !near(later, uniform(6, 1.0), 1e-6) {
				t.Errorf("arm at %v after the trajectory's end, want its target (JTC does not stop)", later)
			}
		}},
		{"with HoldOnAbort the arm stops", true, func(t *testing.T, aborted, later []float64) {
			if !near(later, aborted, 1e-9) {
				t.Errorf("arm moved after the abort: %v, held %v", later, aborted)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newTestRobot(t, func(c *Config) { c.HoldOnAbort = tt.hold })
			r.SetFaults(Faults{Arm: ArmFaults{AbortAfter: 500 * time.Millisecond}})
			r.ArmGoal(GoalID{ID: "g"}, traj(r, 2.0, uniform(6, 1.0)))
			start := r.Now()
			o := runUntilDone(t, r, Arm, "g", 3*time.Second)
			if o.Status != StatusAborted || errorCode(t, o) != ErrorPathToleranceViolated || !strings.Contains(o.Text, "fault") {
				t.Errorf("outcome %+v, want ABORTED by the fault", o)
			}
			if took := r.Now().Sub(start); took > 600*time.Millisecond {
				t.Errorf("aborted after %s, want about 500ms", took)
			}
			aborted := r.ArmPositions()
			r.Advance(2 * time.Second)
			tt.check(t, aborted, r.ArmPositions())
		})
	}
}

func TestPastHeaderStampDropsElapsedPoints(t *testing.T) {
	r := newTestRobot(t)
	r.Advance(5 * time.Second)
	g := traj(r, 1.0, uniform(6, 0.1), uniform(6, 0.2), uniform(6, 0.3))
	g.Trajectory.Stamp = r.Now().Add(-1500 * time.Millisecond)
	r.ArmGoal(GoalID{ID: "g"}, g)
	start := r.Now()
	runUntilDone(t, r, Arm, "g", 3*time.Second)
	if took := r.Now().Sub(start); took > 1600*time.Millisecond {
		t.Errorf("took %s, want the remaining 1.5s", took)
	}
	if got := r.ArmPositions(); !near(got, uniform(6, 0.3), 1e-6) {
		t.Errorf("positions %v, want the last point", got)
	}

	old := traj(r, 1.0, uniform(6, 0.5))
	old.Trajectory.Stamp = r.Now().Add(-10 * time.Second)
	r.ArmGoal(GoalID{ID: "old"}, old)
	if o, _ := r.Goal(Arm, "old"); o.Status != StatusRejected || errorCode(t, o) != ErrorOldHeaderTimestamp {
		t.Errorf("all points in the past: %+v, want REJECTED/OLD_HEADER_TIMESTAMP", o)
	}
}

func TestFutureHeaderStampDelaysStart(t *testing.T) {
	r := newTestRobot(t)
	g := traj(r, 1.0, uniform(6, 0.5))
	g.Trajectory.Stamp = r.Now().Add(time.Second)
	r.ArmGoal(GoalID{ID: "g"}, g)
	r.Advance(900 * time.Millisecond)
	if got := r.ArmPositions(); !near(got, uniform(6, 0), 1e-9) {
		t.Errorf("arm moved before the header stamp: %v", got)
	}
	runUntilDone(t, r, Arm, "g", 3*time.Second)
	if got := r.ArmPositions(); !near(got, uniform(6, 0.5), 1e-6) {
		t.Errorf("positions %v after the goal", got)
	}
}

func TestContinuousJointTakesShortestWay(t *testing.T) {
	r := newTestRobot(t, func(c *Config) { c.ArmInitial = []float64{0, 0, 0, 0, 0, 3.0} })
	target := []float64{0, 0, 0, 0, 0, -3.0} // 0.28 rad away through ±pi
	r.ArmGoal(GoalID{ID: "g"}, traj(r, 1.0, target))
	runUntilDone(t, r, Arm, "g", 2*time.Second)
	got := r.ArmPositions()[5]
	if math.Abs(got-(2*math.Pi-3.0)) > 1e-6 {
		t.Errorf("wrist_3 ended at %g, want %g (same angle as -3, reached the short way)", got, 2*math.Pi-3.0)
	}
}

func TestJointStopsAtURDFLimit(t *testing.T) {
	r := newTestRobot(t)
	target := uniform(6, 0)
	target[1] = 2.1 // shoulder_lift upper limit 2.0
	g := traj(r, 2.0, target)
	g.PathTolerance = tolerances(r, -1)
	r.ArmGoal(GoalID{ID: "g"}, g)
	o := runUntilDone(t, r, Arm, "g", 4*time.Second)
	if o.Status != StatusAborted || errorCode(t, o) != ErrorGoalToleranceViolated {
		t.Errorf("outcome %+v, want ABORTED/GOAL_TOLERANCE_VIOLATED", o)
	}
	if got := r.ArmPositions()[1]; got > 2.0 {
		t.Errorf("shoulder_lift at %g, beyond its limit 2.0", got)
	}
}

func TestFeedbackPublishedWhileMoving(t *testing.T) {
	r := newTestRobot(t)
	r.ArmGoal(GoalID{ID: "g"}, traj(r, 1.0, uniform(6, 0.5)))
	r.Drain()
	r.Advance(500 * time.Millisecond)
	n := 0
	for _, m := range r.Drain() {
		if fb, ok := m.(*ActionFeedback); ok && fb.Action == Arm {
			n++
			if fb.Status.ID.ID != "g" || len(fb.Feedback.(TrajectoryFeedback).JointNames) != 6 {
				t.Fatalf("feedback %+v", fb)
			}
		}
	}
	if n < 8 || n > 12 {
		t.Errorf("%d feedback messages in 0.5s, want about 10 (20 Hz)", n)
	}
}
