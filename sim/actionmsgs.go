package sim

import (
	"github.com/bluenviron/goroslib/v2/pkg/msgs/actionlib_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_msgs"

	"github.com/actbridge/actbridge/msgs/ros1"
)

// The wrap functions build the named action wrappers rostopic knows.

func wrapTrajResult(h std_msgs.Header, s actionlib_msgs.GoalStatus, r trajResult) any {
	return &msgs.FollowJointTrajectoryActionResult{Header: h, Status: s, Result: r}
}

func wrapTrajFeedback(h std_msgs.Header, s actionlib_msgs.GoalStatus, f trajFeedback) any {
	return &msgs.FollowJointTrajectoryActionFeedback{Header: h, Status: s, Feedback: f}
}

func wrapGripResult(h std_msgs.Header, s actionlib_msgs.GoalStatus, r gripResult) any {
	return &msgs.GripperCommandActionResult{Header: h, Status: s, Result: r}
}

func wrapGripFeedback(h std_msgs.Header, s actionlib_msgs.GoalStatus, f gripFeedback) any {
	return &msgs.GripperCommandActionFeedback{Header: h, Status: s, Feedback: f}
}

func wrapNavResult(h std_msgs.Header, s actionlib_msgs.GoalStatus, _ navResult) any {
	return &msgs.MoveBaseActionResult{Header: h, Status: s}
}

func wrapNavFeedback(h std_msgs.Header, s actionlib_msgs.GoalStatus, f navFeedback) any {
	return &msgs.MoveBaseActionFeedback{Header: h, Status: s, Feedback: msgs.MoveBaseFeedback{BasePosition: f}}
}
