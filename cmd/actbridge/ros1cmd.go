package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/actbridge/actbridge/config"
	"github.com/actbridge/actbridge/ros1"
	"github.com/actbridge/actbridge/ros1/roslink"
)

// openROS1 joins the ROS 1 graph of the master the environment names
// (ROS_MASTER_URI, ROS_HOSTNAME, ROS_IP), waiting up to wait for a master
// that is still starting (0: fail at once).
func openROS1(ctx context.Context, cfg *config.Config, wait time.Duration, logw io.Writer) (*link, error) {
	env, err := roslink.EnvFromOS()
	if err != nil {
		return nil, usageError{err.Error()}
	}
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
	return &link{robot: r, where: env.MasterAddress, reachable: r.Connected, describer: r, reregistrations: r.Reregistrations, close: r.Close}, nil
}

// ros1Offline is the ROS 1 transport's catalogue without a robot.
func ros1Offline() offlineRobot {
	return offlineRobot{sampleTypes: ros1.SampleTypes(), serviceTypes: ros1.CallableServiceTypes()}
}
