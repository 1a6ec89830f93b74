package ros1

import (
	"fmt"
	"math"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/actionlib_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/control_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/geometry_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/trajectory_msgs"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/msgs/ros1"
	"github.com/actbridge/actbridge/spline"
)

// What each actuator kind puts on the wire and how its results look to the
// planner. Results are maps with ROS field names, ready for JSON.

var armTopics = actionTopics[msgs.FollowJointTrajectoryActionGoal, msgs.FollowJointTrajectoryActionResult, msgs.FollowJointTrajectoryActionFeedback]{
	result: func(m *msgs.FollowJointTrajectoryActionResult) (actionlib_msgs.GoalStatus, any) {
		return m.Status, map[string]any{
			"error_code":   m.Result.ErrorCode,
			"error_name":   msgs.TrajectoryErrorName(m.Result.ErrorCode),
			"error_string": m.Result.ErrorString,
		}
	},
	feedback: func(m *msgs.FollowJointTrajectoryActionFeedback) (actionlib_msgs.GoalStatus, any) {
		return m.Status, &m.Feedback
	},
}

var gripperTopics = actionTopics[msgs.GripperCommandActionGoal, msgs.GripperCommandActionResult, msgs.GripperCommandActionFeedback]{
	result: func(m *msgs.GripperCommandActionResult) (actionlib_msgs.GoalStatus, any) {
		return m.Status, map[string]any{
			"position":     m.Result.Position,
			"effort":       m.Result.Effort,
			"stalled":      m.Result.Stalled,
			"reached_goal": m.Result.ReachedGoal,
		}
	},
	feedback: func(m *msgs.GripperCommandActionFeedback) (actionlib_msgs.GoalStatus, any) {
		return m.Status, &m.Feedback
	},
}

var moveBaseTopics = actionTopics[msgs.MoveBaseActionGoal, msgs.MoveBaseActionResult, msgs.MoveBaseActionFeedback]{
	result: func(m *msgs.MoveBaseActionResult) (actionlib_msgs.GoalStatus, any) {
		return m.Status, map[string]any{} // move_base_msgs/MoveBaseResult is empty
	},
	feedback: func(m *msgs.MoveBaseActionFeedback) (actionlib_msgs.GoalStatus, any) {
		return m.Status, &m.Feedback
	},
}

// trajectoryGoal checks the shape of a trajectory (the safety layer checks
// limits) and converts it. time_from_start is rounded to the nanosecond.
func trajectoryGoal(joints []string, points []spline.Point) (msgs.FollowJointTrajectoryGoal, error) {
	bad := func(format string, args ...any) (msgs.FollowJointTrajectoryGoal, error) {
		return msgs.FollowJointTrajectoryGoal{}, fmt.Errorf("%w: %s", actuators.ErrInvalidArgument, fmt.Sprintf(format, args...))
	}
	if len(joints) == 0 {
		return bad("joints: empty")
	}
	if len(points) == 0 {
		return bad("points: empty")
	}
	n := len(joints)
	out := make([]trajectory_msgs.JointTrajectoryPoint, len(points))
	prev := -1.0
	for i, p := range points {
		if len(p.Positions) != n {
			return bad("points[%d].positions: %d values for %d joints", i, len(p.Positions), n)
		}
		if len(p.Velocities) != 0 && len(p.Velocities) != n {
			return bad("points[%d].velocities: %d values for %d joints", i, len(p.Velocities), n)
		}
		if len(p.Accelerations) != 0 && len(p.Accelerations) != n {
			return bad("points[%d].accelerations: %d values for %d joints", i, len(p.Accelerations), n)
		}
		for _, xs := range [][]float64{p.Positions, p.Velocities, p.Accelerations} {
			for _, x := range xs {
				if !finite(x) {
					return bad("points[%d]: non-finite value %v", i, x)
				}
			}
		}
		if !finite(p.Time) || p.Time <= prev || p.Time < 0 || p.Time > 24*3600 {
			return bad("points[%d].time: %v must be finite and after the previous point's", i, p.Time)
		}
		prev = p.Time
		out[i] = trajectory_msgs.JointTrajectoryPoint{
			Positions:     append([]float64(nil), p.Positions...),
			Velocities:    append([]float64(nil), p.Velocities...),
			Accelerations: append([]float64(nil), p.Accelerations...),
			TimeFromStart: time.Duration(math.Round(p.Time * 1e9)),
		}
	}
	// A zero header stamp means "start now" to joint_trajectory_controller.
	return msgs.FollowJointTrajectoryGoal{Trajectory: trajectory_msgs.JointTrajectory{
		JointNames: append([]string(nil), joints...),
		Points:     out,
	}}, nil
}

func armGoal(id actionlib_msgs.GoalID, g msgs.FollowJointTrajectoryGoal) any {
	return &msgs.FollowJointTrajectoryActionGoal{Header: std_msgs.Header{Stamp: id.Stamp}, GoalId: id, Goal: g}
}

// trajectoryProgress is the desired time_from_start over the trajectory's
// duration. Controllers that leave time_from_start at zero (or fill it with
// something else than time along this trajectory) get the time elapsed since
// the first feedback instead, by the feedback's own stamps.
func trajectoryProgress(duration float64) func(any) (float64, bool) {
	var first time.Time
	return func(fb any) (float64, bool) {
		f, ok := fb.(*msgs.FollowJointTrajectoryFeedback)
		if !ok || duration <= 0 {
			return 0, false
		}
		if t := f.Desired.TimeFromStart.Seconds(); t > 0 && t <= 1.5*duration+1 {
			return t / duration, true
		}
		stamp := f.Header.Stamp
		if stamp.IsZero() {
			return 0, false
		}
		if first.IsZero() {
			first = stamp
		}
		return stamp.Sub(first).Seconds() / duration, true
	}
}

// holdGoal is an empty trajectory for every arm joint: ROS 1's
// joint_trajectory_controller takes it as "stop and hold where you are".
func holdGoal(joints []string) func(actionlib_msgs.GoalID) any {
	return func(id actionlib_msgs.GoalID) any {
		return &msgs.FollowJointTrajectoryActionGoal{
			Header: std_msgs.Header{Stamp: id.Stamp},
			GoalId: id,
			Goal: msgs.FollowJointTrajectoryGoal{Trajectory: trajectory_msgs.JointTrajectory{
				JointNames: append([]string(nil), joints...),
				Points:     []trajectory_msgs.JointTrajectoryPoint{},
			}},
		}
	}
}

// gripperProgress is the share of the way from start to target covered.
func gripperProgress(start, target float64, haveStart bool) func(any) (float64, bool) {
	return func(fb any) (float64, bool) {
		f, ok := fb.(*msgs.GripperCommandFeedback)
		span := math.Abs(target - start)
		if !ok || !haveStart || span < 1e-4 {
			return 0, false
		}
		return 1 - math.Abs(target-f.Position)/span, true
	}
}

func gripperGoal(id actionlib_msgs.GoalID, position, maxEffort float64) any {
	return &msgs.GripperCommandActionGoal{
		Header: std_msgs.Header{Stamp: id.Stamp},
		GoalId: id,
		Goal:   msgs.GripperCommandGoal{Command: control_msgs.GripperCommand{Position: position, MaxEffort: maxEffort}},
	}
}

func navigateGoal(id actionlib_msgs.GoalID, p actuators.Pose2D) any {
	return &msgs.MoveBaseActionGoal{
		Header: std_msgs.Header{Stamp: id.Stamp},
		GoalId: id,
		Goal: msgs.MoveBaseGoal{TargetPose: geometry_msgs.PoseStamped{
			Header: std_msgs.Header{Stamp: id.Stamp, FrameId: p.Frame},
			Pose: geometry_msgs.Pose{
				Position:    geometry_msgs.Point{X: p.X, Y: p.Y},
				Orientation: geometry_msgs.Quaternion{Z: math.Sin(p.Yaw / 2), W: math.Cos(p.Yaw / 2)},
			},
		}},
	}
}

// navigateProgress measures the remaining distance against the distance at
// the first feedback: the feedback's frame is move_base's global frame,
// which need not be the odom frame the start pose was read in.
func navigateProgress(goal actuators.Pose2D) func(any) (float64, bool) {
	first := -1.0
	return func(fb any) (float64, bool) {
		f, ok := fb.(*msgs.MoveBaseFeedback)
		if !ok {
			return 0, false
		}
		p := f.BasePosition.Pose.Position
		d := math.Hypot(goal.X-p.X, goal.Y-p.Y)
		if first < 0 {
			first = d
		}
		if first < 1e-3 {
			return 0, false
		}
		return 1 - d/first, true
	}
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
