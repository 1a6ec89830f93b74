package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/actbridge/actbridge/bridge"
	"github.com/actbridge/actbridge/ros1"
	"github.com/actbridge/actbridge/ros1/roslink"
	"github.com/actbridge/actbridge/spline"
)

// rosRobot adapts ros1.Robot to bridge.Robot: the two packages may not
// import each other, so their mirror types are converted here.
type rosRobot struct {
	r    *ros1.Robot
	wait time.Duration
}

var _ bridge.Robot = (*rosRobot)(nil)

func connectRobot(ctx context.Context, cfg *ros1.Config, env roslink.Env, wait time.Duration, logw io.Writer) (*rosRobot, error) {
	octx := ctx
	if wait > 0 {
		var cancel context.CancelFunc
		octx, cancel = context.WithTimeout(ctx, wait)
		defer cancel()
	}
	r, err := ros1.Open(octx, cfg, ros1.Options{Env: env, WaitForMaster: wait > 0,
		Logf: func(f string, a ...any) { fmt.Fprintf(logw, "actbridge: "+f+"\n", a...) }})
	if err != nil {
		return nil, fmt.Errorf("connecting to the ROS master at %s: %w", env.MasterAddress, err)
	}
	return &rosRobot{r: r, wait: wait}, nil
}

// Description reads the URDF, waiting up to the start-up bound for a robot
// that is still coming up to set it.
func (x *rosRobot) Description() (string, error) {
	deadline := time.Now().Add(x.wait)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		s, err := x.r.RobotDescription(ctx)
		cancel()
		if err == nil || time.Now().After(deadline) {
			return s, err
		}
		time.Sleep(250 * time.Millisecond)
	}
}

func (x *rosRobot) Close() error { return x.r.Close() }

func (x *rosRobot) Actuators() []bridge.ActuatorStatus {
	in := x.r.Actuators()
	out := make([]bridge.ActuatorStatus, len(in))
	for i, a := range in {
		out[i] = bridge.ActuatorStatus(a)
	}
	return out
}

func (x *rosRobot) Joints() bridge.JointsSnapshot { return bridgeJoints(x.r.Joints()) }

func (x *rosRobot) FreshJoints(ctx context.Context) bridge.JointsSnapshot {
	return bridgeJoints(x.r.FreshJoints(ctx))
}

func bridgeJoints(s ros1.JointsSnapshot) bridge.JointsSnapshot {
	out := bridge.JointsSnapshot{Received: s.Received, Joints: make([]bridge.JointReading, len(s.Joints))}
	for i, j := range s.Joints {
		out.Joints[i] = bridge.JointReading(j)
	}
	return out
}

func (x *rosRobot) Odom() (bridge.Pose2D, bool) {
	p, ok := x.r.Odom()
	return bridge.Pose2D(p), ok
}

func (x *rosRobot) MasterReachable() bool { return x.r.MasterReachable() }

func (x *rosRobot) SendTrajectory(ctx context.Context, id string, joints []string, pts []spline.Point) error {
	return x.r.SendTrajectory(ctx, id, joints, pts)
}

func (x *rosRobot) SendGripper(ctx context.Context, id string, pos, eff float64) error {
	return x.r.SendGripper(ctx, id, pos, eff)
}

func (x *rosRobot) SendNavigate(ctx context.Context, id string, g bridge.Pose2D) error {
	return x.r.SendNavigate(ctx, id, ros1.Pose2D(g))
}

func (x *rosRobot) Drive(ctx context.Context, id string, lin, ang float64, d time.Duration) error {
	return x.r.Drive(ctx, id, lin, ang, d)
}

func (x *rosRobot) Cancel(ctx context.Context, actuator, id string) error {
	return x.r.Cancel(ctx, actuator, id)
}

func (x *rosRobot) StopAll(ctx context.Context) error { return x.r.StopAll(ctx) }
func (x *rosRobot) Track(actuator, id string)         { x.r.Track(actuator, id) }

func (x *rosRobot) SetObserver(f func(bridge.GoalUpdate)) {
	x.r.SetObserver(func(u ros1.GoalUpdate) { f(bridge.GoalUpdate(u)) })
}

func (x *rosRobot) Topics(ctx context.Context) ([]bridge.TopicInfo, error) {
	in, err := x.r.Topics(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]bridge.TopicInfo, len(in))
	for i, t := range in {
		out[i] = bridge.TopicInfo(t)
	}
	return out, nil
}

func (x *rosRobot) SampleTopic(ctx context.Context, topic string, n int, timeout time.Duration) ([]any, error) {
	out, err := x.r.SampleTopic(ctx, topic, n, timeout)
	switch {
	case err == nil:
		return out, nil
	case errors.Is(err, ros1.ErrUnknownTopic):
		e := bridge.RuleError(bridge.CodeNotFound, "topic_exists", "topic", err.Error())
		return nil, e.WithHint("list topics with topics_list")
	case errors.Is(err, ros1.ErrUnsupportedType):
		e := bridge.RuleError(bridge.CodeInvalidArgument, "topic_type_supported", "topic", err.Error())
		e.Expected = "a topic of a supported type: " + strings.Join(ros1.SampleTypes(), ", ")
		return nil, e
	case errors.Is(err, ros1.ErrNoMessages):
		return nil, bridge.StateError(bridge.CodeUnavailable, err.Error(), "when the topic publishes; try a longer timeout_s", "no messages in time")
	case errors.Is(err, ros1.ErrNotConnected), errors.Is(err, ros1.ErrClosed):
		return nil, bridge.StateError(bridge.CodeUnavailable, err.Error(), "when the ROS master answers again", "not connected to ROS")
	}
	return nil, err
}

var _ bridge.ROSAccess = (*rosRobot)(nil)

// rosError maps the ROS access layer's errors to the bridge's refusals;
// field names the argument the error is about.
func rosError(err error, field string) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ros1.ErrParamNotSet):
		return bridge.RuleError(bridge.CodeNotFound, "param_exists", field, err.Error()).WithHint("list parameters with params_get and a prefix")
	case errors.Is(err, ros1.ErrUnknownTopic):
		return bridge.RuleError(bridge.CodeNotFound, "topic_exists", field, err.Error()).WithHint("list topics with topics_list")
	case errors.Is(err, ros1.ErrUnknownService):
		return bridge.RuleError(bridge.CodeNotFound, "service_exists", field, err.Error()).WithHint("list services with services_list")
	case errors.Is(err, ros1.ErrUnsupportedType):
		e := bridge.RuleError(bridge.CodeInvalidArgument, "type_supported", field, err.Error())
		e.Retryable = false
		return e
	case errors.Is(err, ros1.ErrNoMessages):
		return bridge.StateError(bridge.CodeUnavailable, err.Error(), "when the topic publishes; try a longer timeout_s", "no message in time")
	case errors.Is(err, ros1.ErrNotConnected), errors.Is(err, ros1.ErrClosed):
		return bridge.StateError(bridge.CodeUnavailable, err.Error(), "when the ROS master answers again", "not connected to ROS")
	}
	return err
}

func (x *rosRobot) ParamNames(ctx context.Context) ([]string, error) {
	out, err := x.r.ParamNames(ctx)
	return out, rosError(err, "prefix")
}

func (x *rosRobot) GetParam(ctx context.Context, name string) (any, error) {
	v, err := x.r.GetParam(ctx, name)
	return v, rosError(err, "name")
}

func (x *rosRobot) SetParam(ctx context.Context, name string, value any) error {
	return rosError(x.r.SetParam(ctx, name, value), "name")
}

func (x *rosRobot) Services(ctx context.Context) ([]bridge.ServiceInfo, error) {
	in, err := x.r.Services(ctx)
	if err != nil {
		return nil, rosError(err, "")
	}
	out := make([]bridge.ServiceInfo, len(in))
	for i, s := range in {
		out[i] = bridge.ServiceInfo(s)
	}
	return out, nil
}

func (x *rosRobot) ServiceType(ctx context.Context, name string) (string, error) {
	t, err := x.r.ServiceType(ctx, name)
	return t, rosError(err, "service")
}

func (x *rosRobot) ServiceTypes() []bridge.ServiceType { return serviceTypes() }

// serviceTypes converts the registry of callable service types.
func serviceTypes() []bridge.ServiceType {
	in := ros1.CallableServiceTypes()
	out := make([]bridge.ServiceType, len(in))
	for i, t := range in {
		out[i] = bridge.ServiceType{Name: t.Name, Request: fields(t.Request), Response: fields(t.Response)}
	}
	return out
}

func fields(in []ros1.FieldInfo) []bridge.ServiceField {
	out := make([]bridge.ServiceField, len(in))
	for i, f := range in {
		out[i] = bridge.ServiceField(f)
	}
	return out
}

func (x *rosRobot) CallService(ctx context.Context, name, typ string, req map[string]any, timeout time.Duration) (map[string]any, error) {
	out, err := x.r.CallService(ctx, name, typ, req, timeout)
	if err != nil && errors.Is(err, ros1.ErrServiceNotSent) {
		return nil, fmt.Errorf("%w: %v", bridge.ErrServiceNotSent, err)
	}
	return out, err
}

func (x *rosRobot) Snapshot(ctx context.Context, topic string, timeout time.Duration) (bridge.Frame, error) {
	f, err := x.r.Snapshot(ctx, topic, timeout)
	if err != nil {
		return bridge.Frame{}, rosError(err, "topic")
	}
	return bridge.Frame(f), nil
}

func (x *rosRobot) WatchTopic(ctx context.Context, topic string, fn func(any)) error {
	return x.r.WatchTopic(ctx, topic, fn)
}
