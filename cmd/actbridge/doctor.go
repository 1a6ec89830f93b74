package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/config"
	"github.com/actbridge/actbridge/doctor"
	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/ros2"
	"github.com/actbridge/actbridge/ros2/inspect"
	"github.com/actbridge/actbridge/ros2/node"
)

// doctorCmd runs "actbridge doctor": the checks of package doctor against
// the robot the config names, a pass/fail list with the fix for each
// failure; exit status 1 when any check fails.
func doctorCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("doctor", stderr)
	path := fs.String("config", "launch/robots/sim.yaml", "the robot config serve would run with")
	wait := fs.Duration("timeout", 5*time.Second, "how long to wait for the robot's servers and publishers, and for each read")
	asJSON := fs.Bool("json", false, "print the report as JSON (for scripts)")
	skew := fs.Duration("max-clock-skew", doctor.MaxClockSkew, "how far the robot's header stamps may be from this machine's clock")
	if err := parse(fs, args); err != nil {
		return err
	}
	cfg, err := config.Load(*path)
	if err != nil {
		return err
	}
	var l *link
	if cfg.Transport == config.TransportROS2 {
		// Observing: closing it must not send the zero twists serve's Close sends to the bases.
		if l, err = openROS2Link(ctx, cfg, stderr, true); err == nil {
			l.transport = cfg.Transport
		}
	} else {
		l, err = openTransport(ctx, cfg, *wait, stderr) // ROS 1's Close stops only drives of its own
	}
	if err != nil {
		return err
	}
	defer l.close()
	where := l.where
	if cfg.Transport == config.TransportROS1 {
		where = "ROS 1 master " + where
	}
	src := doctor.Sources{Where: fmt.Sprintf("%s (%s)", where, *path), Robot: doctorRobot{l.robot, l.describer}, Reachable: l.reachable,
		Advice: l.advice, Wait: *wait, MaxClockSkew: *skew}
	if g, ok := l.robot.(actuators.Graph); ok {
		src.Topics = g.Topics
	}
	if p, ok := l.robot.(interface {
		Publishers(context.Context) (map[string][]string, error)
	}); ok {
		src.Publishers = p.Publishers // ROS 1's master
	}
	if cfg.Transport == config.TransportROS2 {
		in, distro, err := doctorInspector(ctx, cfg, *wait)
		if err != nil {
			return err
		}
		defer in.Close()
		src.Inspector, src.Distro, src.ActionType = in, distro, ros2.ActionType
	}
	r := doctor.Run(ctx, cfg, src)
	if *asJSON {
		err = r.WriteJSON(stdout)
	} else {
		err = r.WriteText(stdout)
	}
	if err != nil {
		return err
	}
	if n := r.Failed(); n > 0 {
		return fmt.Errorf("%d of %d checks failed", n, len(r.Checks))
	}
	return nil
}

// doctorRobot is the transport's robot with its description reader.
type doctorRobot struct {
	actuators.Robot
	describer
}

// doctorInspector joins the config's ROS 2 graph as serve does (the
// config's discovery, then the environment), as a second participant
// that reads the graph's types, hashes and QoS.
func doctorInspector(ctx context.Context, cfg *config.Config, wait time.Duration) (*inspect.Inspector, msgs.Distro, error) {
	distro, err := msgs.ParseDistro(cfg.Distro)
	if err != nil {
		return nil, "", fmt.Errorf("%w: distro: %w", config.ErrConfig, err)
	}
	d, err := ros2.Discovery(cfg.ROS2, os.LookupEnv)
	if err != nil {
		return nil, "", err
	}
	in, err := inspect.Open(ctx, inspect.Options{Node: node.Options{Distro: distro, Discovery: d}, Timeout: wait,
		NodeName: fmt.Sprintf("_actbridge_doctor_%d", os.Getpid())})
	return in, distro, err
}
