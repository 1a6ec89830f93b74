package msgs

import (
	"github.com/bluenviron/goroslib/v2/pkg/msg"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/actionlib_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/geometry_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_msgs"
)

// MoveBaseGoal is move_base_msgs/MoveBaseGoal.
type MoveBaseGoal struct {
	msg.Package `ros:"move_base_msgs"`
	TargetPose  geometry_msgs.PoseStamped
}

// MoveBaseResult is move_base_msgs/MoveBaseResult; it is empty.
type MoveBaseResult struct {
	msg.Package `ros:"move_base_msgs"`
}

// MoveBaseFeedback is move_base_msgs/MoveBaseFeedback.
type MoveBaseFeedback struct {
	msg.Package  `ros:"move_base_msgs"`
	BasePosition geometry_msgs.PoseStamped
}

// MoveBaseActionGoal is what travels on <ns>/goal.
type MoveBaseActionGoal struct {
	msg.Package `ros:"move_base_msgs"`
	Header      std_msgs.Header
	GoalId      actionlib_msgs.GoalID //nolint:revive // goroslib derives goal_id from this name
	Goal        MoveBaseGoal
}

// MoveBaseActionResult is what travels on <ns>/result.
type MoveBaseActionResult struct {
	msg.Package `ros:"move_base_msgs"`
	Header      std_msgs.Header
	Status      actionlib_msgs.GoalStatus
	Result      MoveBaseResult
}

// MoveBaseActionFeedback is what travels on <ns>/feedback.
type MoveBaseActionFeedback struct {
	msg.Package `ros:"move_base_msgs"`
	Header      std_msgs.Header
	Status      actionlib_msgs.GoalStatus
	Feedback    MoveBaseFeedback
}
