package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/config"
	"github.com/actbridge/actbridge/metrics"
	"github.com/actbridge/actbridge/version"
)

// link is an open transport: the robot contract, and what serve needs
// around it.
type link struct {
	robot actuators.Robot
	// where says where the transport reaches the robot, for the start-up line.
	where string
	// transport is the config's transport ("ros1", "ros2"); reachable is
	// what health reports as master_reachable (see health).
	transport string
	reachable func() bool
	describer describer
	// advice says which of the robot's processes discovery cannot reach
	// and what to set ("" when none is known); nil when the transport
	// has no such thing.
	advice func() string
	// reregistrations counts reconnections to the graph; nil when the
	// transport has no such thing.
	reregistrations func() uint64
	// dds reads the ROS 2 participant's bounds; nil for other transports.
	dds   func() metrics.DDSHealth
	close func() error
}

// openTransport opens the transport the config names. A transport is one
// case here and one file beside this one.
func openTransport(ctx context.Context, cfg *config.Config, wait time.Duration, logw io.Writer) (*link, error) {
	var l *link
	var err error
	switch cfg.Transport {
	case config.TransportROS1:
		l, err = openROS1(ctx, cfg, wait, logw)
	case config.TransportROS2:
		l, err = openROS2(ctx, cfg, wait, logw)
	default:
		return nil, fmt.Errorf("%w: transport: %q is not built into this binary", config.ErrConfig, cfg.Transport)
	}
	if err != nil {
		return nil, err
	}
	l.transport = cfg.Transport
	return l, nil
}

// health is what /healthz answers: ready when the robot is connected and
// every actuator is, with one server and one state publisher each;
// actuators_offline, actuators_ambiguous (who serves or publishes, by
// actuator) and the store's state say why not.
// master_reachable keeps its name, which dashboards read: over ROS 1 the
// master answered its last poll; ROS 2 has no master, and it says that
// discovery has met another participant on the domain (none: a wrong
// domain, discovery range or network). transport says which it is.
func health(l *link, store interface{ Healthy() error }) map[string]any {
	storeErr := "ok"
	if err := store.Healthy(); err != nil {
		storeErr = err.Error()
	}
	ready := l.robot.Connected()
	var offline []string
	ambiguous := map[string]string{}
	for _, a := range l.robot.Actuators() {
		if !a.Connected {
			offline = append(offline, a.Name)
			ready = false
		}
		if a.Ambiguous != "" {
			ambiguous[a.Name] = a.Ambiguous
			ready = false
		}
	}
	out := map[string]any{"ready": ready, "master_reachable": l.reachable(), "transport": l.transport,
		"actuators_offline": offline, "store": storeErr, "version": version.Get()}
	if len(ambiguous) > 0 {
		out["actuators_ambiguous"] = ambiguous
	}
	return out
}

// offlineFor stands in for the transport the config names when only the
// catalogue is needed.
func offlineFor(cfg *config.Config) (offlineRobot, error) {
	switch cfg.Transport {
	case config.TransportROS1:
		return ros1Offline(), nil
	case config.TransportROS2:
		return ros2Offline(cfg)
	}
	return offlineRobot{}, fmt.Errorf("%w: transport: %q is not built into this binary", config.ErrConfig, cfg.Transport)
}

// describer reads the robot's URDF where the transport keeps it.
type describer interface {
	RobotDescription(ctx context.Context) (string, error)
}

// descriptionWatcher reports every robot description the robot publishes
// while the bridge runs, and whether more than one participant publishes
// it (a transport implements it where it can).
type descriptionWatcher interface {
	WatchRobotDescription(ctx context.Context, each func(urdf, source string), ambiguous func(why string)) error
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
