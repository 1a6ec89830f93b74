package ros2

import (
	"math"
	"testing"
	"time"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/msgs/ros2"
)

// odometry is a nav_msgs/msg/Odometry at (x, y) facing yaw in frame.
func odometry(t *testing.T, frame string, x, y, yaw float64) *cdr.Message {
	t.Helper()
	set, err := msgs.Load(msgs.Jazzy)
	if err != nil {
		t.Fatal(err)
	}
	m, err := set.Message(odometryType)
	if err != nil {
		t.Fatal(err)
	}
	path(m, "header").(*cdr.Message).Set("frame_id", frame)
	pos := path(m, "pose", "pose", "position").(*cdr.Message)
	pos.Set("x", x)
	pos.Set("y", y)
	rot := path(m, "pose", "pose", "orientation").(*cdr.Message)
	rot.Set("z", math.Sin(yaw/2))
	rot.Set("w", math.Cos(yaw/2))
	return m
}

// TestOdomIsReportedOnlyWhileFresh: Odom's pose is the newest message's,
// in its frame (the configured odom_frame when it names none), and none
// is reported before the first message or once the newest is older than
// two seconds, as on ROS 1.
func TestOdomIsReportedOnlyWhileFresh(t *testing.T) {
	t0 := time.Unix(1000, 0)
	for _, tc := range []struct {
		name  string
		msg   *cdr.Message // nil: nothing arrived
		age   time.Duration
		want  actuators.Pose2D
		fresh bool
	}{
		{"nothing yet", nil, 0, actuators.Pose2D{}, false},
		{"just arrived", odometry(t, "odom", 1.5, -2, 0.75), 0, actuators.Pose2D{Frame: "odom", X: 1.5, Y: -2, Yaw: 0.75}, true},
		{"two seconds old", odometry(t, "map", 1, 2, -3), 2 * time.Second, actuators.Pose2D{Frame: "map", X: 1, Y: 2, Yaw: -3}, true},
		{"stale", odometry(t, "odom", 1, 2, 0), 2*time.Second + time.Millisecond, actuators.Pose2D{}, false},
		{"no frame_id: the configured frame", odometry(t, "", 0.5, 0, math.Pi/2), time.Second, actuators.Pose2D{Frame: "base_odom", X: 0.5, Yaw: math.Pi / 2}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &odomCache{frame: "base_odom"}
			if tc.msg != nil {
				c.store(tc.msg, t0)
			}
			got, fresh := c.latest(t0.Add(tc.age))
			if fresh != tc.fresh || got.Frame != tc.want.Frame || math.Abs(got.X-tc.want.X) > 1e-12 ||
				math.Abs(got.Y-tc.want.Y) > 1e-12 || math.Abs(got.Yaw-tc.want.Yaw) > 1e-9 {
				t.Errorf("latest = %+v, %v; want %+v, %v", got, fresh, tc.want, tc.fresh)
			}
		})
	}
}

// A newer message replaces the pose and restarts the staleness clock.
func TestNewerOdomRestartsStaleness(t *testing.T) {
	t0 := time.Unix(1000, 0)
	c := &odomCache{frame: "odom"}
	c.store(odometry(t, "odom", 1, 0, 0), t0)
	c.store(odometry(t, "odom", 2, 0, 0), t0.Add(3*time.Second))
	if p, ok := c.latest(t0.Add(4 * time.Second)); !ok || p.X != 2 {
		t.Errorf("latest = %+v, %v; want x 2, fresh", p, ok)
	}
}
