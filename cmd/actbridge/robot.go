package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/bridge"
	"github.com/actbridge/actbridge/roslink"
	"github.com/actbridge/actbridge/spline"
)

// rosRobot adapts actuators.Robot to bridge.Robot: the two packages may not
// import each other, so their mirror types are converted here.
type rosRobot struct {
	r    *actuators.Robot
	wait time.Duration
}

var _ bridge.Robot = (*rosRobot)(nil)

func connectRobot(ctx context.Context, cfg *actuators.Config, env roslink.Env, wait time.Duration, logw io.Writer) (*rosRobot, error) {
	octx := ctx
	if wait > 0 {
		var cancel context.CancelFunc
		octx, cancel = context.WithTimeout(ctx, wait)
		defer cancel()
	}
	r, err := actuators.Open(octx, cfg, actuators.Options{Env: env, WaitForMaster: wait > 0,
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

func (x *rosRobot) Joints() bridge.JointsSnapshot {
	s := x.r.Joints()
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
	return x.r.SendNavigate(ctx, id, actuators.Pose2D(g))
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
	x.r.SetObserver(func(u actuators.GoalUpdate) { f(bridge.GoalUpdate(u)) })
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
	case errors.Is(err, actuators.ErrUnknownTopic):
		e := bridge.RuleError(bridge.CodeNotFound, "topic_exists", "topic", err.Error())
		return nil, e.WithHint("list topics with topics_list")
	case errors.Is(err, actuators.ErrUnsupportedType):
		e := bridge.RuleError(bridge.CodeInvalidArgument, "topic_type_supported", "topic", err.Error())
		e.Expected = "a topic of a supported type: " + strings.Join(actuators.SampleTypes(), ", ")
		return nil, e
	case errors.Is(err, actuators.ErrNoMessages):
		return nil, bridge.StateError(bridge.CodeUnavailable, err.Error(), "when the topic publishes; try a longer timeout_s", "no messages in time")
	case errors.Is(err, actuators.ErrNotConnected), errors.Is(err, actuators.ErrClosed):
		return nil, bridge.StateError(bridge.CodeUnavailable, err.Error(), "when the ROS master answers again", "not connected to ROS")
	}
	return nil, err
}
