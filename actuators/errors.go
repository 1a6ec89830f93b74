package actuators

import (
	"errors"
	"fmt"
)

// Errors every transport returns, compared with errors.Is; the wrapping
// error names the actuator, goal, topic, parameter or service.
var (
	// ErrNotConnected: the transport cannot reach the robot, or the
	// actuator's server did not connect in time. Nothing was sent.
	ErrNotConnected = errors.New("not connected")
	// ErrAmbiguousServer: more than one server of the actuator's action
	// (or of a service), or more than one publisher of its state, where
	// one is expected, and the config names none: nothing was sent. The
	// wrapping error names their nodes and participants.
	ErrAmbiguousServer = errors.New("more than one server")
	// ErrClosed: the robot was closed.
	ErrClosed = errors.New("robot closed")
	// ErrUnknownActuator: no actuator of that name (or of that kind).
	ErrUnknownActuator = errors.New("unknown actuator")
	// ErrInvalidArgument: the request is malformed for the robot (a goal
	// of the wrong shape, a value of the wrong type); the same request
	// fails again.
	ErrInvalidArgument = errors.New("invalid argument")
	// ErrRefusedByRobot: the robot itself refused a well-formed request
	// (a ROS 2 node checks a parameter's type and range); the same
	// request fails again.
	ErrRefusedByRobot = fmt.Errorf("%w: refused by the robot", ErrInvalidArgument)
	// ErrDuplicateGoal: the goal id was already sent or tracked; it is
	// never sent twice.
	ErrDuplicateGoal = errors.New("goal id already used")
	// ErrCanceledBeforeSend: Cancel or StopAll arrived while the send was
	// still waiting for the connection, so the goal was never sent. The
	// observer also gets GoalRecalled for it.
	ErrCanceledBeforeSend = errors.New("canceled before the goal was sent")
	// ErrMaybeSent: the send failed at a point where the goal may already
	// be on the wire (the transport closed, or an error it cannot place,
	// after the request was written). The id is spent and never resent;
	// the goal may run.
	ErrMaybeSent = errors.New("goal may have been sent")
	// ErrBusy: the actuator runs something that excludes the goal (a
	// drive on the base).
	ErrBusy = errors.New("actuator busy")
	// ErrUnknownTopic: no publisher of the topic, so its type is unknown.
	ErrUnknownTopic = errors.New("unknown topic")
	// ErrUnsupportedType: the transport has no codec for the topic's or
	// service's type.
	ErrUnsupportedType = errors.New("unsupported message type")
	// ErrNoMessages: nothing arrived on the topic before the timeout.
	ErrNoMessages = errors.New("no message received")
	// ErrParamNotSet: the robot holds no parameter of that name.
	ErrParamNotSet = errors.New("parameter not set")
	// ErrUnknownService: no provider of the service, so its type is
	// unknown; nothing was sent.
	ErrUnknownService = errors.New("unknown service")
	// ErrServiceNotSent wraps failures before the request left the bridge
	// (no provider, type mismatch at the handshake): retrying is safe.
	ErrServiceNotSent = errors.New("service request not sent")
	// ErrServiceFailed: the provider answered the call with a failure.
	ErrServiceFailed = errors.New("service call failed")
)
