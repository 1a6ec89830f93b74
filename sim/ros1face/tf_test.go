package ros1face

import (
	"context"
	"testing"
	"time"

	"github.com/actbridge/actbridge/config"
	"github.com/actbridge/actbridge/ros1"
	"github.com/actbridge/actbridge/ros1/roslink"
	"github.com/actbridge/actbridge/sim"
	"github.com/actbridge/actbridge/test/simcheck"
	"github.com/actbridge/actbridge/tf"
)

// TestWatchTFFindsTheTruePoseInMapWhileOdometryDrifts: over ROS 1, the
// bridge's frame tree puts base_footprint at the sim's true pose in map
// while odometry has drifted away from it, and the gripper where the
// bridge's own kinematics (not the sim's FK) puts it for the joints.
func TestWatchTFFindsTheTruePoseInMapWhileOdometryDrifts(t *testing.T) {
	q := []float64{0.4, -0.6, 1.1, 0.3, -0.8, 1.5}
	m, r := serveForTest(t, func(c *sim.Config) {
		c.OdomDrift = sim.Pose2D{X: 0.2, Y: -0.1, Yaw: 0.05}
		c.BaseInitial = sim.Pose2D{X: 1, Y: 2, Yaw: 0.5}
		c.ArmInitial = q
	})
	cfg, err := config.Load("../../launch/robots/sim.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	robot, err := ros1.Open(ctx, cfg, ros1.Options{Env: roslink.Env{MasterAddress: m.Address(), Host: "127.0.0.1"}, Logf: func(string, ...any) {}})
	if err != nil {
		t.Fatal(err)
	}
	defer robot.Close()
	buf := tf.NewBuffer(tf.Options{CacheTime: time.Hour})
	wctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- robot.WatchTF(wctx, buf, nil, func(err error) { t.Errorf("bad transform: %v", err) }) }()
	defer func() { stop(); <-done }()

	simcheck.FrameTree(ctx, t, buf, r.MapPose(), q)
}
