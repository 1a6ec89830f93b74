package msgs

import (
	"github.com/bluenviron/goroslib/v2/pkg/msg"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/actionlib_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/control_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_msgs"
)

// GripperCommandGoal is control_msgs/GripperCommandGoal.
type GripperCommandGoal struct {
	msg.Package `ros:"control_msgs"`
	Command     control_msgs.GripperCommand
}

// GripperCommandResult is control_msgs/GripperCommandResult.
type GripperCommandResult struct {
	msg.Package `ros:"control_msgs"`
	Position    float64 // gap in meters
	Effort      float64 // newtons
	Stalled     bool    // exerting max effort and not moving
	ReachedGoal bool
}

// GripperCommandFeedback is control_msgs/GripperCommandFeedback.
type GripperCommandFeedback struct {
	msg.Package `ros:"control_msgs"`
	Position    float64
	Effort      float64
	Stalled     bool
	ReachedGoal bool
}

// GripperCommandActionGoal is what travels on <ns>/goal.
type GripperCommandActionGoal struct {
	msg.Package `ros:"control_msgs"`
	Header      std_msgs.Header
	GoalId      actionlib_msgs.GoalID //nolint:revive // goroslib derives goal_id from this name
	Goal        GripperCommandGoal
}

// GripperCommandActionResult is what travels on <ns>/result.
type GripperCommandActionResult struct {
	msg.Package `ros:"control_msgs"`
	Header      std_msgs.Header
	Status      actionlib_msgs.GoalStatus
	Result      GripperCommandResult
}

// GripperCommandActionFeedback is what travels on <ns>/feedback.
type GripperCommandActionFeedback struct {
	msg.Package `ros:"control_msgs"`
	Header      std_msgs.Header
	Status      actionlib_msgs.GoalStatus
	Feedback    GripperCommandFeedback
}
