package msgs

import (
	"fmt"
	"strings"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/actionlib_msgs"
)

var statusNames = [...]string{
	actionlib_msgs.GoalStatus_PENDING:    "pending",
	actionlib_msgs.GoalStatus_ACTIVE:     "active",
	actionlib_msgs.GoalStatus_PREEMPTED:  "preempted",
	actionlib_msgs.GoalStatus_SUCCEEDED:  "succeeded",
	actionlib_msgs.GoalStatus_ABORTED:    "aborted",
	actionlib_msgs.GoalStatus_REJECTED:   "rejected",
	actionlib_msgs.GoalStatus_PREEMPTING: "preempting",
	actionlib_msgs.GoalStatus_RECALLING:  "recalling",
	actionlib_msgs.GoalStatus_RECALLED:   "recalled",
	actionlib_msgs.GoalStatus_LOST:       "lost",
}

// StatusName is the lower-case name of an actionlib_msgs/GoalStatus state
// ("succeeded"), or "status_<n>" for a value actionlib does not define.
func StatusName(status uint8) string {
	if int(status) < len(statusNames) {
		return statusNames[status]
	}
	return fmt.Sprintf("status_%d", status)
}

// StatusTerminal reports whether a server sends nothing more about a goal
// in this state: preempted, succeeded, aborted, rejected or recalled.
// LOST is a client-side verdict, never sent by a server, so it is not here.
func StatusTerminal(status uint8) bool {
	switch status {
	case actionlib_msgs.GoalStatus_PREEMPTED, actionlib_msgs.GoalStatus_SUCCEEDED,
		actionlib_msgs.GoalStatus_ABORTED, actionlib_msgs.GoalStatus_REJECTED,
		actionlib_msgs.GoalStatus_RECALLED:
		return true
	}
	return false
}

// ActionTopics are the five topics an actionlib action uses under its
// namespace; client and server speak the protocol over them directly.
type ActionTopics struct {
	Goal, Cancel, Status, Feedback, Result string
}

// ActionTopicsOf returns the topics of the action at ns ("/arm_controller/follow_joint_trajectory").
func ActionTopicsOf(ns string) ActionTopics {
	ns = strings.TrimSuffix(ns, "/")
	return ActionTopics{
		Goal:     ns + "/goal",
		Cancel:   ns + "/cancel",
		Status:   ns + "/status",
		Feedback: ns + "/feedback",
		Result:   ns + "/result",
	}
}
