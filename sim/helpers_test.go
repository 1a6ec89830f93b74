package sim

import (
	"math"
	"testing"
	"time"
)

// newTestRobot is the default robot on a fixed simulated epoch.
func newTestRobot(t *testing.T, mod ...func(*Config)) *Robot {
	t.Helper()
	cfg := DefaultConfig()
	cfg.Epoch = time.Unix(1_700_000_000, 0)
	cfg.Wall = func() time.Time { return time.Unix(1_800_000_000, 0) }
	for _, m := range mod {
		m(&cfg)
	}
	r, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// traj is a FollowJointTrajectory goal through the given waypoints (one
// position per arm joint), spaced dt seconds apart.
func traj(r *Robot, dt float64, waypoints ...[]float64) TrajectoryGoal {
	g := TrajectoryGoal{}
	g.Trajectory.JointNames = r.ArmJoints()
	for i, w := range waypoints {
		g.Trajectory.Points = append(g.Trajectory.Points, TrajectoryPoint{
			Positions:     w,
			TimeFromStart: time.Duration(float64(i+1) * dt * float64(time.Second)),
		})
	}
	return g
}

func uniform(n int, v float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// runUntilDone advances the robot in 10 ms steps until the goal ends or
// limit passes, and returns its outcome.
func runUntilDone(t *testing.T, r *Robot, action, id string, limit time.Duration) GoalOutcome {
	t.Helper()
	for elapsed := time.Duration(0); elapsed <= limit; elapsed += 10 * time.Millisecond {
		o, ok := r.Goal(action, id)
		if !ok {
			t.Fatalf("%s goal %q unknown", action, id)
		}
		if terminal(o.Status) {
			return o
		}
		r.Advance(10 * time.Millisecond)
	}
	o, _ := r.Goal(action, id)
	t.Fatalf("%s goal %q still %s after %s", action, id, StatusName(o.Status), limit)
	return o
}

func errorCode(t *testing.T, o GoalOutcome) int32 {
	t.Helper()
	res, ok := o.Result.(TrajectoryResult)
	if !ok {
		t.Fatalf("result is %T, want TrajectoryResult", o.Result)
	}
	return res.ErrorCode
}

func near(a, b []float64, tol float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(a[i]-b[i]) > tol {
			return false
		}
	}
	return true
}

func tolerances(r *Robot, pos float64) []JointTolerance {
	var out []JointTolerance
	for _, n := range r.ArmJoints() {
		out = append(out, JointTolerance{Name: n, Position: pos})
	}
	return out
}

func trajectoryPoint(pos []float64, secs float64) TrajectoryPoint {
	return TrajectoryPoint{Positions: pos, TimeFromStart: time.Duration(secs * float64(time.Second))}
}
