package main

import (
	"context"
	"time"

	"github.com/actbridge/actbridge/bridge"
)

// offlineRobot's ROS access: the catalogue needs the callable service
// types; every call fails as offline.

func (offlineRobot) ParamNames(context.Context) ([]string, error)           { return nil, errOffline }
func (offlineRobot) GetParam(context.Context, string) (any, error)          { return nil, errOffline }
func (offlineRobot) SetParam(context.Context, string, any) error            { return errOffline }
func (offlineRobot) Services(context.Context) ([]bridge.ServiceInfo, error) { return nil, errOffline }
func (offlineRobot) ServiceType(context.Context, string) (string, error)    { return "", errOffline }
func (offlineRobot) ServiceTypes() []bridge.ServiceType                     { return serviceTypes() }
func (offlineRobot) WatchTopic(context.Context, string, func(any)) error    { return errOffline }
func (offlineRobot) Snapshot(context.Context, string, time.Duration) (bridge.Frame, error) {
	return bridge.Frame{}, errOffline
}
func (offlineRobot) CallService(context.Context, string, string, map[string]any, time.Duration) (map[string]any, error) {
	return nil, errOffline
}
