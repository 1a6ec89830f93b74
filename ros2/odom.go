package ros2

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/config"
	"github.com/actbridge/actbridge/ros2/node"
	"github.com/actbridge/actbridge/ros2/qos"
	"github.com/actbridge/actbridge/rtps/wire"
)

// odometryType is what diff_drive_controller publishes on ~/odom.
const odometryType = "nav_msgs/msg/Odometry"

// odomStale: Odom reports no pose when the newest odometry arrived longer
// ago than this (as on ROS 1).
const odomStale = 2 * time.Second

// odomCache keeps the newest pose of one odometry topic.
type odomCache struct {
	frame string // when the message has no frame_id: the config's odom_frame

	mu   sync.Mutex
	last actuators.Pose2D
	at   time.Time // arrival; zero before the first message
}

// store keeps m's pose, received at at; a pose that is not finite (a
// robot's NaN, which no JSON result can carry) is no pose and is dropped.
func (c *odomCache) store(m *cdr.Message, at time.Time) {
	p := actuators.Pose2D{Frame: c.frame}
	if f, _ := path(m, "header", "frame_id").(string); f != "" {
		p.Frame = f
	}
	pos := func(k string) float64 { x, _ := path(m, "pose", "pose", "position", k).(float64); return x }
	rot := func(k string) float64 { x, _ := path(m, "pose", "pose", "orientation", k).(float64); return x }
	p.X, p.Y = pos("x"), pos("y")
	qx, qy, qz, qw := rot("x"), rot("y"), rot("z"), rot("w")
	p.Yaw = math.Atan2(2*(qw*qz+qx*qy), 1-2*(qy*qy+qz*qz))
	if !finiteAll(p.X, p.Y, p.Yaw) {
		return
	}
	c.mu.Lock()
	c.last, c.at = p, at
	c.mu.Unlock()
}

// latest returns the newest pose; false when none arrived, or the newest
// is older than odomStale at now.
func (c *odomCache) latest(now time.Time) (actuators.Pose2D, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.at.IsZero() || now.Sub(c.at) > odomStale {
		return actuators.Pose2D{}, false
	}
	return c.last, true
}

// path reads a nested field; nil when a step is missing.
func path(m *cdr.Message, names ...string) any {
	var v any = m
	for _, n := range names {
		mm, ok := v.(*cdr.Message)
		if !ok || mm == nil {
			return nil
		}
		v = mm.Get(n)
	}
	return v
}

// takeNewest subscribes to topic newest-only (best effort by default,
// which matches reliable and best-effort publishers alike; the config's
// QoS override of the topic applies) and hands every message to fn from
// a goroutine in wg until ctx ends; from, when not nil, says which
// publishers' participants to read (the one a config's state_node names).
func takeNewest(ctx context.Context, n *node.Node, topic, typ string, wg *sync.WaitGroup, from func(wire.GUIDPrefix) bool, fn func(*cdr.Message, time.Time)) error {
	sub, err := n.NewSubscription(topic, typ, qos.SensorData, node.SubscriptionOptions{LatestOnly: true})
	if err != nil {
		return err
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			m, info, err := sub.Take(ctx)
			if ctx.Err() != nil || errors.Is(err, node.ErrClosed) {
				return // a closed subscription answers at once: no spinning
			}
			if err == nil && (from == nil || from(info.Writer.Prefix)) {
				fn(m, time.Now())
			}
		}
	}()
	return nil
}

// newOdometer follows a's odometry topic newest-only (best effort unless
// the config's qos.odom overrides it).
func (r *Robot) newOdometer(a config.ActuatorConfig) (odometer, error) {
	c := &odomCache{frame: a.OdomFrame}
	if err := takeNewest(r.life, r.node, a.OdomTopic, odometryType, &r.wg, r.stateSource(a.OdomTopic), c.store); err != nil {
		return nil, fmt.Errorf("ros2: %s: %s: %w", a.Name, a.OdomTopic, err)
	}
	return c, nil
}

// pose is the newest pose, when it is fresh.
func (c *odomCache) pose() (actuators.Pose2D, bool) { return c.latest(time.Now()) }
