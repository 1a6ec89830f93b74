package ros2

import (
	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/cdr"
)

// goalCodec is one action type's side of a goal: it fills the action's
// goal from the contract's goal, and reads its feedback and result back.
// Send, Cancel, Track and StopAll are the same for every action; only a
// codec knows a type's fields.
type goalCodec interface {
	// actionType is the ROS 2 action type the actuator's client speaks.
	actionType() string
	// build checks g (the wrong goal variant or shape is
	// actuators.ErrInvalidArgument, and nothing is sent) and fills msg, a
	// zero goal of actionType. progress reads the goal's feedback.
	build(msg *cdr.Message, g actuators.Goal) (progressFunc, error)
	// outcome reads a result message; m is nil when get_result had none.
	outcome(m *cdr.Message) outcome
}

// progressFunc is how far one feedback message says a goal got, in
// [0, 1]; false when it says nothing usable.
type progressFunc func(fb *cdr.Message) (float64, bool)

// outcome is what a goal's result tells.
type outcome struct {
	// preemption: the result is the one the server ends a goal with when
	// a newer goal takes over (see endState).
	preemption bool
	text       string
	result     any // the planner's JSON shape, ROS field names
}
