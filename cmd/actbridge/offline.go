package main

import (
	"context"
	"errors"
	"time"

	"github.com/actbridge/actbridge/bridge"
	"github.com/actbridge/actbridge/spline"
)

// offlineRobot stands in for the robot when only the catalogue is needed
// (tools export, check-config); every robot call fails as unavailable.
type offlineRobot struct{}

var errOffline = errors.New("offline: not connected to a robot")

func (offlineRobot) Actuators() []bridge.ActuatorStatus { return nil }
func (offlineRobot) Joints() bridge.JointsSnapshot      { return bridge.JointsSnapshot{} }
func (offlineRobot) FreshJoints(context.Context) bridge.JointsSnapshot {
	return bridge.JointsSnapshot{}
}
func (offlineRobot) Odom() (bridge.Pose2D, bool) { return bridge.Pose2D{}, false }
func (offlineRobot) MasterReachable() bool       { return false }
func (offlineRobot) SendTrajectory(context.Context, string, []string, []spline.Point) error {
	return errOffline
}
func (offlineRobot) SendGripper(context.Context, string, float64, float64) error { return errOffline }
func (offlineRobot) SendNavigate(context.Context, string, bridge.Pose2D) error   { return errOffline }
func (offlineRobot) Drive(context.Context, string, float64, float64, time.Duration) error {
	return errOffline
}
func (offlineRobot) Cancel(context.Context, string, string) error       { return errOffline }
func (offlineRobot) StopAll(context.Context) error                      { return errOffline }
func (offlineRobot) Track(string, string)                               {}
func (offlineRobot) SetObserver(func(bridge.GoalUpdate))                {}
func (offlineRobot) Topics(context.Context) ([]bridge.TopicInfo, error) { return nil, errOffline }
func (offlineRobot) SampleTopic(context.Context, string, int, time.Duration) ([]any, error) {
	return nil, errOffline
}
