package msgs

import (
	"fmt"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msg"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/actionlib_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/control_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/trajectory_msgs"
)

// FollowJointTrajectoryGoal is control_msgs/FollowJointTrajectoryGoal
// (goroslib calls it FollowJointTrajectoryActionGoal, the wrapper's name).
type FollowJointTrajectoryGoal struct {
	msg.Package       `ros:"control_msgs"`
	Trajectory        trajectory_msgs.JointTrajectory
	PathTolerance     []control_msgs.JointTolerance
	GoalTolerance     []control_msgs.JointTolerance
	GoalTimeTolerance time.Duration
}

// FollowJointTrajectoryResult error codes.
const (
	FollowJointTrajectorySuccessful            int32 = 0
	FollowJointTrajectoryInvalidGoal           int32 = -1
	FollowJointTrajectoryInvalidJoints         int32 = -2
	FollowJointTrajectoryOldHeaderTimestamp    int32 = -3
	FollowJointTrajectoryPathToleranceViolated int32 = -4
	FollowJointTrajectoryGoalToleranceViolated int32 = -5
)

// FollowJointTrajectoryResult is control_msgs/FollowJointTrajectoryResult.
type FollowJointTrajectoryResult struct {
	msg.Package     `ros:"control_msgs"`
	msg.Definitions `ros:"int32 SUCCESSFUL=0,int32 INVALID_GOAL=-1,int32 INVALID_JOINTS=-2,int32 OLD_HEADER_TIMESTAMP=-3,int32 PATH_TOLERANCE_VIOLATED=-4,int32 GOAL_TOLERANCE_VIOLATED=-5"`
	ErrorCode       int32
	ErrorString     string
}

// FollowJointTrajectoryFeedback is control_msgs/FollowJointTrajectoryFeedback.
type FollowJointTrajectoryFeedback struct {
	msg.Package `ros:"control_msgs"`
	Header      std_msgs.Header
	JointNames  []string
	Desired     trajectory_msgs.JointTrajectoryPoint
	Actual      trajectory_msgs.JointTrajectoryPoint
	Error       trajectory_msgs.JointTrajectoryPoint
}

// FollowJointTrajectoryActionGoal is what travels on <ns>/goal.
type FollowJointTrajectoryActionGoal struct {
	msg.Package `ros:"control_msgs"`
	Header      std_msgs.Header
	GoalId      actionlib_msgs.GoalID //nolint:revive // goroslib derives goal_id from this name
	Goal        FollowJointTrajectoryGoal
}

// FollowJointTrajectoryActionResult is what travels on <ns>/result.
type FollowJointTrajectoryActionResult struct {
	msg.Package `ros:"control_msgs"`
	Header      std_msgs.Header
	Status      actionlib_msgs.GoalStatus
	Result      FollowJointTrajectoryResult
}

// FollowJointTrajectoryActionFeedback is what travels on <ns>/feedback.
type FollowJointTrajectoryActionFeedback struct {
	msg.Package `ros:"control_msgs"`
	Header      std_msgs.Header
	Status      actionlib_msgs.GoalStatus
	Feedback    FollowJointTrajectoryFeedback
}

// TrajectoryErrorName is the lower-case name of a FollowJointTrajectory
// error code ("path_tolerance_violated"), or "error_<code>" if unknown.
func TrajectoryErrorName(code int32) string {
	switch code {
	case FollowJointTrajectorySuccessful:
		return "successful"
	case FollowJointTrajectoryInvalidGoal:
		return "invalid_goal"
	case FollowJointTrajectoryInvalidJoints:
		return "invalid_joints"
	case FollowJointTrajectoryOldHeaderTimestamp:
		return "old_header_timestamp"
	case FollowJointTrajectoryPathToleranceViolated:
		return "path_tolerance_violated"
	case FollowJointTrajectoryGoalToleranceViolated:
		return "goal_tolerance_violated"
	}
	return fmt.Sprintf("error_%d", code)
}
