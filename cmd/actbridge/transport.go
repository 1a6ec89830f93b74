package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/actbridge/actbridge/ros1"
	"github.com/actbridge/actbridge/ros1/roslink"

	"github.com/actbridge/actbridge/config"
)

// openROS1 joins the ROS 1 graph of env's master, waiting up to wait for a
// master that is still starting (0: fail at once).
func openROS1(ctx context.Context, cfg *config.Config, env roslink.Env, wait time.Duration, logw io.Writer) (*ros1.Robot, error) {
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
	return r, nil
}

// describer reads the robot's URDF where the transport keeps it.
type describer interface {
	RobotDescription(ctx context.Context) (string, error)
}

// description reads the URDF, waiting up to wait for a robot that is
// still coming up to set it.
func description(ctx context.Context, d describer, wait time.Duration) (string, error) {
	deadline := time.Now().Add(wait)
	for {
		rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		s, err := d.RobotDescription(rctx)
		cancel()
		if err == nil || time.Now().After(deadline) || ctx.Err() != nil {
			return s, err
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}
