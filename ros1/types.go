package ros1

import (
	"github.com/bluenviron/goroslib/v2/pkg/msgs/actionlib_msgs"

	"github.com/actbridge/actbridge/actuators"
)

// goalStates maps actionlib_msgs/GoalStatus numbers to the contract's goal
// states: preempting and recalling are both canceling, preempted is
// canceled.
var goalStates = [...]actuators.GoalState{
	actionlib_msgs.GoalStatus_PENDING:    actuators.GoalPending,
	actionlib_msgs.GoalStatus_ACTIVE:     actuators.GoalActive,
	actionlib_msgs.GoalStatus_PREEMPTED:  actuators.GoalCanceled,
	actionlib_msgs.GoalStatus_SUCCEEDED:  actuators.GoalSucceeded,
	actionlib_msgs.GoalStatus_ABORTED:    actuators.GoalAborted,
	actionlib_msgs.GoalStatus_REJECTED:   actuators.GoalRejected,
	actionlib_msgs.GoalStatus_PREEMPTING: actuators.GoalCanceling,
	actionlib_msgs.GoalStatus_RECALLING:  actuators.GoalCanceling,
	actionlib_msgs.GoalStatus_RECALLED:   actuators.GoalRecalled,
	actionlib_msgs.GoalStatus_LOST:       actuators.GoalLost,
}

// goalState is the contract's state of an actionlib_msgs/GoalStatus number;
// LOST (9) and unknown numbers map to GoalLost.
func goalState(status uint8) actuators.GoalState {
	if int(status) < len(goalStates) {
		return goalStates[status]
	}
	return actuators.GoalLost
}
