package ros2sim

import (
	"context"
	"testing"
	"time"

	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/ros2/node"
	"github.com/actbridge/actbridge/ros2/qos"
	"github.com/actbridge/actbridge/test/netns"
)

// twist publishes a TwistStamped of linear speed v stamped at.
func twist(t *testing.T, p *node.Publisher, at time.Time, v float64) {
	t.Helper()
	m := p.New()
	if !at.IsZero() {
		h := field(m, "header.stamp").(*cdr.Message)
		n := at.UnixNano()
		h.Fields = []any{int32(n / 1e9), uint32(n % 1e9)}
	}
	field(m, "twist.linear").(*cdr.Message).Set("x", v)
	if err := p.Publish(m); err != nil {
		t.Fatal(err)
	}
}

// odomUntil takes odometry until one is stamped after end, and returns them.
func odomUntil(ctx context.Context, t *testing.T, s *node.Subscription, sim *netns.Peer, end time.Time) []*cdr.Message {
	t.Helper()
	var out []*cdr.Message
	for {
		m := take(ctx, t, s, sim)
		out = append(out, m)
		if stampOf(m).After(end) {
			return out
		}
	}
}

func linear(m *cdr.Message) float64 { return field(m, "twist.twist.linear.x").(float64) }

// TestCmdVelMovesBaseAndStopsHalfASecondAfterItsStamp: a TwistStamped
// on /diff_drive_controller/cmd_vel drives the base (odom shows the speed
// and the pose advancing); the base stops 0.5 s of robot time after the
// command's stamp, not after its arrival; a command already older than
// 0.5 s is dropped; a zero stamp counts as the robot's now.
func TestCmdVelMovesBaseAndStopsHalfASecondAfterItsStamp(t *testing.T) {
	const domain = 50
	sim := startSim(t, domain)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	n := client(t, msgs.Jazzy, domain, "teleop")
	odom := subscribe(t, n, "/diff_drive_controller/odom", "nav_msgs/msg/Odometry", qos.Default)
	cmd, err := n.NewPublisher("/diff_drive_controller/cmd_vel", "geometry_msgs/msg/TwistStamped", qos.Default)
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.WaitMatched(ctx, 1); err != nil {
		t.Fatal(err)
	}
	now := stampOf(take(ctx, t, odom, sim)) // the robot's clock

	// Stale: stamped 0.6 s before the robot's now; nothing moves.
	twist(t, cmd, now.Add(-600*time.Millisecond), 0.3)
	for _, m := range odomUntil(ctx, t, odom, sim, now.Add(400*time.Millisecond)) {
		if linear(m) != 0 {
			t.Fatalf("a stale command moved the base: %s", m.AppendJSON(nil))
		}
	}

	// Stamped now: moves until stamp + 0.5 s, then stops.
	m := take(ctx, t, odom, sim)
	s := stampOf(m)
	x0 := field(m, "pose.pose.position.x").(float64)
	twist(t, cmd, s, 0.3)
	ms := odomUntil(ctx, t, odom, sim, s.Add(900*time.Millisecond))
	moved := false
	for _, m := range ms {
		at := stampOf(m).Sub(s)
		switch {
		case at > 100*time.Millisecond && at < 450*time.Millisecond:
			moved = moved || linear(m) > 0.29
		case at > 520*time.Millisecond && linear(m) != 0:
			t.Fatalf("still moving %v after the stamp: %s", at, m.AppendJSON(nil))
		}
	}
	x1 := field(ms[len(ms)-1], "pose.pose.position.x").(float64)
	if !moved || x1-x0 < 0.1 || x1-x0 > 0.16 {
		t.Fatalf("moved %v, x %g → %g (want about 0.15 m: 0.3 m/s for 0.5 s)", moved, x0, x1)
	}

	// Zero stamp: the robot's now at arrival.
	twist(t, cmd, time.Time{}, -0.2)
	deadline := time.After(5 * time.Second)
	for linear(take(ctx, t, odom, sim)) >= 0 {
		select {
		case <-deadline:
			t.Fatal("a zero-stamped command never moved the base")
		default:
		}
	}
}
