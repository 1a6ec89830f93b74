package bridge

import (
	"errors"
	"strings"

	"github.com/actbridge/actbridge/actuators"
)

// ROSAccess is the rest of the robot the guarded tools reach: parameters,
// services, topics and camera frames. It is separate from actuators.Robot
// so a transport without it still gets the motion tools. The tools check
// every allowlist before calling, and turn the contract's errors into
// refusals with accessError.
type ROSAccess interface {
	actuators.Parameters
	actuators.Services
	actuators.Graph
}

// accessError maps the contract's errors to the bridge's refusals; field
// names the argument the error is about. Errors it does not know pass
// through (the pipeline reports them as internal).
func accessError(err error, field string) error {
	var e *Error
	switch {
	case err == nil:
		return nil
	case errors.As(err, &e):
		return err
	case errors.Is(err, actuators.ErrParamNotSet):
		return RuleError(CodeNotFound, "param_exists", field, err.Error()).WithHint("list parameters with params_get and a prefix")
	case errors.Is(err, actuators.ErrUnknownTopic):
		return RuleError(CodeNotFound, "topic_exists", field, err.Error()).WithHint("list topics with topics_list")
	case errors.Is(err, actuators.ErrUnknownService):
		return RuleError(CodeNotFound, "service_exists", field, err.Error()).WithHint("list services with services_list")
	case errors.Is(err, actuators.ErrUnsupportedType):
		e := RuleError(CodeInvalidArgument, "type_supported", field, err.Error())
		e.Retryable = false
		return e
	case errors.Is(err, actuators.ErrNoMessages):
		return StateError(CodeUnavailable, err.Error(), "when the topic publishes; try a longer timeout_s", "no message in time")
	case errors.Is(err, actuators.ErrRefusedByRobot):
		// The robot refused the value (a ROS 2 node checks a parameter's
		// type and range itself): the same call fails again.
		e := RuleError(CodeInvalidArgument, "accepted_by_robot", field, err.Error())
		e.Retryable = false
		return e
	case errors.Is(err, actuators.ErrInvalidArgument):
		// The transport refused it before asking the robot (a malformed name).
		e := RuleError(CodeInvalidArgument, "well_formed", field, err.Error())
		e.Retryable = false
		return e
	case errors.Is(err, actuators.ErrAmbiguousServer):
		return ambiguousError(field, err.Error())
	case errors.Is(err, actuators.ErrNotConnected), errors.Is(err, actuators.ErrClosed):
		return StateError(CodeUnavailable, err.Error(), "when the ROS master answers again", "not connected to ROS")
	}
	return err
}

// sampleError is accessError for topic_sample, whose refusals name the
// sampleable types and say "messages".
func sampleError(g actuators.Graph, err error) error {
	switch {
	case errors.Is(err, actuators.ErrUnknownTopic):
		e := RuleError(CodeNotFound, "topic_exists", "topic", err.Error())
		return e.WithHint("list topics with topics_list")
	case errors.Is(err, actuators.ErrUnsupportedType):
		e := RuleError(CodeInvalidArgument, "topic_type_supported", "topic", err.Error())
		e.Expected = "a topic of a supported type: " + strings.Join(g.SampleTypes(), ", ")
		return e
	case errors.Is(err, actuators.ErrNoMessages):
		return StateError(CodeUnavailable, err.Error(), "when the topic publishes; try a longer timeout_s", "no messages in time")
	}
	return accessError(err, "topic")
}
