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

// laneCodec is a codec whose goals go to one of several actions under
// the actuator's action, by goal (Franka's gripper: opening to ~/move,
// closing to ~/grasp). build gets a zero goal of the lane laneOf picked.
type laneCodec interface {
	goalCodec
	// lanes are the actions: each a name after the actuator's action,
	// and its type.
	lanes() []laneSpec
	// laneOf is the index in lanes of g's action; an error refuses g
	// (nothing is sent).
	laneOf(g actuators.Goal) (int, error)
}

// laneSpec is one action of a laneCodec.
type laneSpec struct {
	suffix string // after the actuator's action, e.g. "/move"
	typ    string
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
