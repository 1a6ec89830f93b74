package inflight

import "slices"

// State is where a motion is in its life. The strings are stored and shown
// to planners; never rename one.
type State string

// Motion states, in the order a motion normally passes through them.
const (
	StateConfirmed   State = "confirmed"   // the planner (or operator) confirmed a preview
	StateDispatching State = "dispatching" // durable; the goal may or may not be published yet
	StateSent        State = "sent"        // the goal was published
	StateActive      State = "active"      // the action server accepted it
	StateSucceeded   State = "succeeded"
	StateAborted     State = "aborted"
	StatePreempted   State = "preempted"
	StateRejected    State = "rejected"
	StateRecalled    State = "recalled"
	StateUnknown     State = "unknown" // no word from the robot: read state before sending anything new
)

// successors lists where from may go; terminal states go nowhere. A
// switch, not a map, so the table cannot be changed at run time.
func successors(from State) []State {
	switch from {
	case StateConfirmed:
		return []State{StateDispatching}
	case StateDispatching:
		return []State{StateSent, StateRejected, StateUnknown}
	case StateSent:
		return []State{StateActive, StateSucceeded, StateAborted, StatePreempted, StateRejected, StateRecalled, StateUnknown}
	case StateActive:
		return []State{StateSucceeded, StateAborted, StatePreempted, StateUnknown}
	case StateUnknown:
		return []State{StateSucceeded, StateAborted, StatePreempted, StateRejected, StateRecalled}
	}
	return nil
}

// IsTerminal reports whether s is final: the robot is done with the motion
// and no transition leaves it.
func IsTerminal(s State) bool {
	switch s {
	case StateSucceeded, StateAborted, StatePreempted, StateRejected, StateRecalled:
		return true
	}
	return false
}

// CanTransition reports whether the state machine allows from → to. It says
// nothing about from == to, which Store.Transition treats as an update.
func CanTransition(from, to State) bool {
	return slices.Contains(successors(from), to)
}

func validState(s State) bool {
	return successors(s) != nil || IsTerminal(s)
}
