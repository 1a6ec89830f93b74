package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/actbridge/actbridge/config"
	"github.com/actbridge/actbridge/metrics"
	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/ros2"
	"github.com/actbridge/actbridge/rtps"
)

// openROS2 joins the ROS 2 domain the config names. Nothing waits for the
// robot here: its actuators connect as discovery finds their servers, and
// wait bounds the read of the robot description.
func openROS2(ctx context.Context, cfg *config.Config, _ time.Duration, logw io.Writer) (*link, error) {
	return openROS2Link(ctx, cfg, logw, false)
}

// openROS2Link is openROS2; observe opens the robot to look only
// (ros2.Options.Observe: its Close stops no base), as doctor does.
func openROS2Link(ctx context.Context, cfg *config.Config, logw io.Writer, observe bool) (*link, error) {
	log := slog.New(slog.NewTextHandler(logw, &slog.HandlerOptions{Level: slog.LevelWarn}))
	r, err := ros2.Open(ctx, cfg, ros2.Options{Logger: log, LookupEnv: os.LookupEnv, Observe: observe})
	if err != nil {
		return nil, fmt.Errorf("joining the ROS 2 graph: %w", err)
	}
	where := fmt.Sprintf("ROS 2 %s", r.Distro())
	// The discovery Open used: the config's keys, then the environment.
	if d, err := ros2.Discovery(cfg.ROS2, os.LookupEnv); err == nil {
		where = fmt.Sprintf("ROS 2 %s, domain %d, %s", r.Distro(), d.Domain, d.Describe())
	}
	reachable := func() bool { return r.Peers() > 0 }
	return &link{robot: r, where: where, reachable: reachable, describer: r, advice: r.DiscoveryAdvice,
		dds: func() metrics.DDSHealth { return ddsHealth(r.DDSStats()) }, close: r.Close}, nil
}

// ddsHealth is what /metrics exports of the participant's counters.
func ddsHealth(s rtps.Stats) metrics.DDSHealth {
	return metrics.DDSHealth{Refused: map[string]uint64{
		"disposes_ignored": s.DisposesIgnored, "participants_evicted": s.ParticipantsEvicted, "participants_refused": s.ParticipantsRefused,
		"endpoints_evicted": s.EndpointsEvicted, "endpoints_refused": s.EndpointsRefused, "leases_capped": s.LeasesCapped,
		"receive_dropped": s.ReceiveDropped,
		// What it knew of a discovery server given up when the server restarted.
		"discovery_server_restarts":       s.ServerRestarts,
		"discovery_server_impostors":      s.ServerImpostors,
		"discovery_server_relays_dropped": s.RelaysDropped,
	}, ReceiveBytes: s.ReceiveBytes, ReceiveBytesPeak: s.ReceiveBytesPeak}
}

// ros2Offline is the ROS 2 transport's catalogue without a robot: the
// message and service types of the config's distro, as serve offers them.
func ros2Offline(cfg *config.Config) (offlineRobot, error) {
	d, err := msgs.ParseDistro(cfg.Distro)
	if err != nil {
		return offlineRobot{}, fmt.Errorf("%w: distro: %w", config.ErrConfig, err)
	}
	sample, err := ros2.SampleTypesOf(d)
	if err != nil {
		return offlineRobot{}, err
	}
	services, err := ros2.ServiceTypesOf(d)
	if err != nil {
		return offlineRobot{}, err
	}
	return offlineRobot{sampleTypes: sample, serviceTypes: services}, nil
}
