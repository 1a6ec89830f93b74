package sim

import (
	"math"
	"testing"
	"time"
)

func navTo(x, y, yaw float64, frame string) PoseStamped {
	g := PoseStamped{Frame: frame}
	g.Pose.Position.X, g.Pose.Position.Y = x, y
	_, _, g.Pose.Orientation.Z, g.Pose.Orientation.W = quaternionFromYaw(yaw)
	return g
}

func TestMoveBaseReachesGoalWithinTolerance(t *testing.T) {
	tests := []struct{ x, y, yaw float64 }{
		{1, 0.5, math.Pi / 2},
		{-1, -1, 0},
		{0, 0.3, -3},
	}
	for _, tt := range tests {
		r := newTestRobot(t)
		r.NavigateGoal(GoalID{ID: "g"}, navTo(tt.x, tt.y, tt.yaw, "odom"))
		o := runUntilDone(t, r, MoveBase, "g", 30*time.Second)
		p := r.BasePose()
		if o.Status != StatusSucceeded {
			t.Errorf("goal %+v: %s (%s)", tt, StatusName(o.Status), o.Text)
		}
		if math.Hypot(p.X-tt.x, p.Y-tt.y) > 0.05 || math.Abs(wrapAngle(p.Yaw-tt.yaw)) > 0.05 {
			t.Errorf("goal %+v: ended at %+v", tt, p)
		}
		r.Advance(time.Second)
		if v := r.BaseVelocity(); v != (Twist2D{}) {
			t.Errorf("base still moving after success: %+v", v)
		}
	}
}

func TestMoveBaseZeroDistanceSucceedsPromptly(t *testing.T) {
	r := newTestRobot(t)
	r.NavigateGoal(GoalID{ID: "g"}, navTo(0, 0, 0, ""))
	r.Advance(10 * time.Millisecond)
	if o, _ := r.Goal(MoveBase, "g"); o.Status != StatusSucceeded {
		t.Errorf("zero-distance goal after 10 ms: %s, want SUCCEEDED", StatusName(o.Status))
	}
}

func TestMoveBaseAbortsGoalsItCannotPursue(t *testing.T) {
	tests := []struct {
		name string
		goal PoseStamped
	}{
		{"zero quaternion", func() PoseStamped { g := navTo(1, 0, 0, "odom"); g.Pose.Orientation.W = 0; return g }()},
		{"unknown frame", navTo(1, 0, 0, "camera_link")},
		{"NaN position", navTo(math.NaN(), 0, 0, "odom")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newTestRobot(t)
			r.NavigateGoal(GoalID{ID: "g"}, tt.goal)
			if o, _ := r.Goal(MoveBase, "g"); o.Status != StatusAborted {
				t.Errorf("%s (%s), want ABORTED", StatusName(o.Status), o.Text)
			}
		})
	}
}

func TestMoveBaseCancelStopsBase(t *testing.T) {
	r := newTestRobot(t)
	r.NavigateGoal(GoalID{ID: "g"}, navTo(3, 0, 0, "odom"))
	r.Advance(time.Second)
	_ = r.Cancel(MoveBase, GoalID{ID: "g"})
	if o, _ := r.Goal(MoveBase, "g"); o.Status != StatusPreempted {
		t.Errorf("%s, want PREEMPTED", StatusName(o.Status))
	}
	r.Advance(10 * time.Millisecond)
	stopped := r.BasePose()
	r.Advance(time.Second)
	if p := r.BasePose(); p != stopped {
		t.Errorf("base moved after cancel: %+v → %+v", stopped, p)
	}
}

func TestMoveBaseTakesPrecedenceOverCmdVel(t *testing.T) {
	r := newTestRobot(t)
	r.NavigateGoal(GoalID{ID: "g"}, navTo(1, 0, 0, "odom"))
	for range 100 {
		r.CmdVel(-0.5, 0)
		r.Advance(10 * time.Millisecond)
	}
	if p := r.BasePose(); p.X <= 0 {
		t.Errorf("cmd_vel overrode move_base: pose %+v", p)
	}
}
