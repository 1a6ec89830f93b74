package ros1_test

import (
	"context"
	"time"

	"github.com/actbridge/actbridge/bridge"
	"github.com/actbridge/actbridge/ros1"
	"github.com/actbridge/actbridge/spline"
)

// robotAdapter is the whole adapter cmd/actbridge needs to hand an
// *ros1.Robot to the bridge (actuators may not import bridge). It
// lives in a test so that a change to bridge.Robot that actuators does not
// follow fails here.
type robotAdapter struct{ r *ros1.Robot }

var _ bridge.Robot = robotAdapter{}

func (a robotAdapter) Actuators() []bridge.ActuatorStatus {
	in := a.r.Actuators()
	out := make([]bridge.ActuatorStatus, len(in))
	for i, s := range in {
		out[i] = bridge.ActuatorStatus(s)
	}
	return out
}

func (a robotAdapter) Joints() bridge.JointsSnapshot { return bridgeJoints(a.r.Joints()) }

func (a robotAdapter) FreshJoints(ctx context.Context) bridge.JointsSnapshot {
	return bridgeJoints(a.r.FreshJoints(ctx))
}

func bridgeJoints(in ros1.JointsSnapshot) bridge.JointsSnapshot {
	out := bridge.JointsSnapshot{Received: in.Received, Joints: make([]bridge.JointReading, len(in.Joints))}
	for i, j := range in.Joints {
		out.Joints[i] = bridge.JointReading(j)
	}
	return out
}

func (a robotAdapter) Odom() (bridge.Pose2D, bool) {
	p, ok := a.r.Odom()
	return bridge.Pose2D(p), ok
}

func (a robotAdapter) MasterReachable() bool { return a.r.MasterReachable() }

func (a robotAdapter) SendTrajectory(ctx context.Context, id string, joints []string, points []spline.Point) error {
	return a.r.SendTrajectory(ctx, id, joints, points)
}

func (a robotAdapter) SendGripper(ctx context.Context, id string, position, maxEffort float64) error {
	return a.r.SendGripper(ctx, id, position, maxEffort)
}

func (a robotAdapter) SendNavigate(ctx context.Context, id string, goal bridge.Pose2D) error {
	return a.r.SendNavigate(ctx, id, ros1.Pose2D(goal))
}

func (a robotAdapter) Drive(ctx context.Context, id string, linear, angular float64, d time.Duration) error {
	return a.r.Drive(ctx, id, linear, angular, d)
}

func (a robotAdapter) Cancel(ctx context.Context, actuator, id string) error {
	return a.r.Cancel(ctx, actuator, id)
}

func (a robotAdapter) StopAll(ctx context.Context) error { return a.r.StopAll(ctx) }

func (a robotAdapter) Track(actuator, id string) { a.r.Track(actuator, id) }

func (a robotAdapter) SetObserver(f func(bridge.GoalUpdate)) {
	a.r.SetObserver(func(u ros1.GoalUpdate) { f(bridge.GoalUpdate(u)) })
}

func (a robotAdapter) Topics(ctx context.Context) ([]bridge.TopicInfo, error) {
	in, err := a.r.Topics(ctx)
	out := make([]bridge.TopicInfo, len(in))
	for i, t := range in {
		out[i] = bridge.TopicInfo(t)
	}
	return out, err
}

func (a robotAdapter) SampleTopic(ctx context.Context, topic string, n int, timeout time.Duration) ([]any, error) {
	return a.r.SampleTopic(ctx, topic, n, timeout)
}
