package ros2

import (
	"fmt"
	"math"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/cdr"
)

// followJointTrajectory is the arm's action type (ros2_controllers'
// joint_trajectory_controller).
const followJointTrajectory = "control_msgs/action/FollowJointTrajectory"

// errorCodeInvalidGoal is FollowJointTrajectory's INVALID_GOAL, the
// error_code joint_trajectory_controller ends a preempted goal with.
const errorCodeInvalidGoal = -1

// Goal time tolerance: joint_trajectory_controller reads 0 as "wait for
// the goal tolerances forever", so every goal carries
// max(minGoalTime, goalTimeShare × duration): an arm that is still out
// of tolerance that long after the last point's time ends ABORTED
// (GOAL_TOLERANCE_VIOLATED) and holds, instead of never ending.
const (
	minGoalTime   = 1.0 // s
	goalTimeShare = 0.25
)

// goalTimeTolerance is the tolerance sent with a trajectory lasting
// duration seconds.
func goalTimeTolerance(duration float64) float64 {
	return math.Max(minGoalTime, goalTimeShare*duration)
}

// trajectoryCodec is an arm's FollowJointTrajectory.
type trajectoryCodec struct {
	joints map[string]bool // the arm's
}

func newTrajectoryCodec(joints []string) trajectoryCodec {
	c := trajectoryCodec{joints: map[string]bool{}}
	for _, j := range joints {
		c.joints[j] = true
	}
	return c
}

func (trajectoryCodec) actionType() string { return followJointTrajectory }

func (c trajectoryCodec) build(msg *cdr.Message, g actuators.Goal) (progressFunc, error) {
	t, ok := g.(actuators.Trajectory)
	if !ok {
		return nil, fmt.Errorf("%w: an arm takes no %T goal", actuators.ErrInvalidArgument, g)
	}
	for _, j := range t.Joints {
		if !c.joints[j] {
			return nil, fmt.Errorf("%w: joint %q is not this arm's", actuators.ErrInvalidArgument, j)
		}
	}
	duration, err := trajectoryGoal(msg, t)
	if err != nil {
		return nil, err
	}
	return func(fb *cdr.Message) (float64, bool) { return progress(fb, duration) }, nil
}

// outcome reads a FollowJointTrajectory result: joint_trajectory_controller
// ends a preempted goal ABORTED with INVALID_GOAL on Jazzy and later.
func (trajectoryCodec) outcome(m *cdr.Message) outcome {
	if m == nil {
		return outcome{}
	}
	code, _ := m.Get("error_code").(int32)
	text, _ := m.Get("error_string").(string)
	return outcome{preemption: code == errorCodeInvalidGoal, text: text,
		result: map[string]any{"error_code": code, "error_string": text}}
}

// trajectoryGoal fills goal (a zero FollowJointTrajectory_Goal of the
// distro) with t: one point per spline point, the last point's velocities
// zero (the controller rejects others by default), and the goal time
// tolerance. A zero header stamp means "start now". It returns the
// trajectory's duration.
func trajectoryGoal(goal *cdr.Message, t actuators.Trajectory) (float64, error) {
	bad := func(format string, args ...any) (float64, error) {
		return 0, fmt.Errorf("%w: %s", actuators.ErrInvalidArgument, fmt.Sprintf(format, args...))
	}
	n := len(t.Joints)
	if n == 0 || len(t.Points) == 0 {
		return bad("a trajectory needs joints and points (%d joints, %d points)", n, len(t.Points))
	}
	tr, _ := goal.Get("trajectory").(*cdr.Message)
	if tr == nil {
		return bad("%s has no trajectory", goal.Type.Name())
	}
	pts, ok := cdr.MakeSlice(tr.Type.Field(tr.Type.FieldIndex("points")).Type, len(t.Points)).([]*cdr.Message)
	if !ok {
		return bad("%s: points are not messages", tr.Type.Name())
	}
	prev := -1.0
	last := len(t.Points) - 1
	for i, p := range t.Points {
		vel := p.Velocities
		if i == last {
			for _, v := range vel {
				if v != 0 {
					return bad("points[%d].velocities: the last point must be at rest, got %v", i, vel)
				}
			}
			vel = make([]float64, n)
		}
		for _, f := range []struct {
			name string
			xs   []float64
		}{{"positions", p.Positions}, {"velocities", vel}, {"accelerations", p.Accelerations}} {
			name, xs := f.name, f.xs
			if len(xs) != n && (name == "positions" || len(xs) != 0) {
				return bad("points[%d].%s: %d values for %d joints", i, name, len(xs), n)
			}
			for _, x := range xs {
				if math.IsNaN(x) || math.IsInf(x, 0) {
					return bad("points[%d].%s: %v is not finite", i, name, x)
				}
			}
			pts[i].Set(name, append([]float64(nil), xs...))
		}
		if !(p.Time > prev && p.Time >= 0 && p.Time <= 24*3600) {
			return bad("points[%d].time: %v must be in [0, 24 h] and after the previous point's", i, p.Time)
		}
		prev = p.Time
		setDuration(pts[i].Get("time_from_start"), p.Time)
	}
	tr.Set("joint_names", append([]string(nil), t.Joints...))
	tr.Set("points", pts)
	duration := t.Points[last].Time
	setDuration(goal.Get("goal_time_tolerance"), goalTimeTolerance(duration))
	return duration, nil
}

// setDuration writes s seconds into a builtin_interfaces/Duration.
func setDuration(v any, s float64) {
	m, ok := v.(*cdr.Message)
	if !ok {
		return
	}
	sec := math.Floor(s)
	m.Set("sec", int32(sec))
	m.Set("nanosec", uint32(math.Round((s-sec)*1e9)))
}

// durationOf reads a builtin_interfaces/Duration in seconds.
func durationOf(v any) float64 {
	m, ok := v.(*cdr.Message)
	if !ok {
		return 0
	}
	sec, _ := m.Get("sec").(int32)
	ns, _ := m.Get("nanosec").(uint32)
	return float64(sec) + float64(ns)/1e9
}

// progress is how far a FollowJointTrajectory feedback says a goal of
// duration seconds got: desired.time_from_start over the duration, in
// [0, 1]; false when the feedback says nothing usable.
func progress(fb *cdr.Message, duration float64) (float64, bool) {
	desired, _ := fb.Get("desired").(*cdr.Message)
	if desired == nil || duration <= 0 {
		return 0, false
	}
	t := durationOf(desired.Get("time_from_start"))
	if t <= 0 {
		return 0, false
	}
	return math.Min(1, t/duration), true
}
