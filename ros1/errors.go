package ros1

import "errors"

// Errors callers compare with errors.Is; the wrapping error names the
// actuator, goal or topic.
var (
	// ErrNotConnected: the action server (or cmd_vel subscriber) did not
	// connect in time, or the ROS link is down. Nothing was published.
	ErrNotConnected = errors.New("not connected")
	// ErrDuplicateGoal: the goal id was already sent or tracked; it is never
	// sent twice.
	ErrDuplicateGoal = errors.New("goal id already used")
	// ErrCanceledBeforeSend: Cancel or StopAll arrived while the send was
	// still waiting for the connection, so the goal was never published.
	// The observer also gets a "recalled" update for it.
	ErrCanceledBeforeSend = errors.New("canceled before the goal was sent")
	ErrUnknownActuator    = errors.New("unknown actuator")
	ErrInvalidArgument    = errors.New("invalid argument")
	// ErrBusy: a drive is already running on the base.
	ErrBusy = errors.New("actuator busy")
	// ErrUnsupportedType: SampleTopic has no Go type for the topic's type.
	ErrUnsupportedType = errors.New("unsupported message type")
	ErrUnknownTopic    = errors.New("unknown topic")
	// ErrNoMessages: SampleTopic received nothing before its timeout.
	ErrNoMessages = errors.New("no message received")
	ErrClosed     = errors.New("robot closed")
)
