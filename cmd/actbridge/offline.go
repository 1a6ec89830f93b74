package main

import (
	"context"
	"fmt"
	"time"

	"github.com/actbridge/actbridge/actuators"
)

// offlineRobot stands in for the robot when only the catalogue is needed
// (tools export, check-config): it knows the transport's message and
// service types; every robot call fails as not connected.
type offlineRobot struct {
	sampleTypes  []string
	serviceTypes []actuators.ServiceType
}

var errOffline = fmt.Errorf("offline: %w to a robot", actuators.ErrNotConnected)

func (offlineRobot) Actuators() []actuators.ActuatorStatus { return nil }
func (offlineRobot) Joints() actuators.JointsSnapshot      { return actuators.JointsSnapshot{} }
func (offlineRobot) FreshJoints(context.Context) actuators.JointsSnapshot {
	return actuators.JointsSnapshot{}
}
func (offlineRobot) Odom(string) (actuators.Pose2D, bool) { return actuators.Pose2D{}, false }
func (offlineRobot) Connected() bool                      { return false }
func (offlineRobot) Send(context.Context, string, string, actuators.Goal) error {
	return errOffline
}
func (offlineRobot) Cancel(context.Context, string, string) error { return errOffline }
func (offlineRobot) StopAll(context.Context) error                { return errOffline }
func (offlineRobot) Track(string, string)                         {}
func (offlineRobot) SetObserver(func(actuators.GoalUpdate))       {}
func (offlineRobot) Topics(context.Context) ([]actuators.TopicInfo, error) {
	return nil, errOffline
}
func (o offlineRobot) SampleTypes() []string { return o.sampleTypes }
func (offlineRobot) SampleTopic(context.Context, string, int, time.Duration) ([]any, error) {
	return nil, errOffline
}
func (offlineRobot) WatchTopic(context.Context, string, func(any)) error { return errOffline }
func (offlineRobot) Snapshot(context.Context, string, time.Duration) (actuators.Frame, error) {
	return actuators.Frame{}, errOffline
}

// The catalogue needs the callable service types; every call fails.

func (offlineRobot) ParamNames(context.Context) ([]string, error)  { return nil, errOffline }
func (offlineRobot) GetParam(context.Context, string) (any, error) { return nil, errOffline }
func (offlineRobot) SetParam(context.Context, string, any) error   { return errOffline }
func (offlineRobot) Services(context.Context) ([]actuators.ServiceInfo, error) {
	return nil, errOffline
}
func (offlineRobot) ServiceType(context.Context, string) (string, error) { return "", errOffline }
func (o offlineRobot) ServiceTypes() []actuators.ServiceType             { return o.serviceTypes }
func (offlineRobot) CallService(context.Context, string, string, map[string]any, time.Duration) (map[string]any, error) {
	return nil, errOffline
}
