package ros2

import (
	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/ros2/action"
)

// liveState maps a status the action client holds for a goal that has
// not ended to the contract's state; ok is false for a terminal status,
// whose state only the result decides (endState).
func liveState(s action.Status) (actuators.GoalState, bool) {
	if s.Lost {
		return actuators.GoalLost, true
	}
	switch s.Name {
	case "PENDING", "ACCEPTED":
		return actuators.GoalPending, true
	case "EXECUTING":
		return actuators.GoalActive, true
	case "CANCELING":
		return actuators.GoalCanceling, true
	}
	return "", false
}

// endState maps a goal's final status (from get_result) to the contract's
// state. A preempted goal ends ABORTED on Jazzy and later (the result the
// action's codec calls a preemption: JTC's INVALID_GOAL, Nav2's empty
// abort), CANCELED on Humble's JTC; both are the contract's canceled when
// superseded says this bridge sent a newer goal to the same action. ROS 2
// cannot tell a goal canceled before it ran, so CANCELED is never
// recalled. UNKNOWN (the server never had the goal, or forgot it after
// its result timeout) is lost: the outcome is unknown, never a reason to
// send again.
func endState(status string, preemption, superseded bool) actuators.GoalState {
	switch status {
	case "SUCCEEDED":
		return actuators.GoalSucceeded
	case "CANCELED":
		return actuators.GoalCanceled
	case "ABORTED":
		if superseded && preemption {
			return actuators.GoalCanceled
		}
		return actuators.GoalAborted
	case "REJECTED":
		return actuators.GoalRejected
	}
	return actuators.GoalLost
}
