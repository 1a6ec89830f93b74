package ros2sim

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/config"
	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/ros2"
	"github.com/actbridge/actbridge/sim"
	"github.com/actbridge/actbridge/test/simcheck"
	"github.com/actbridge/actbridge/tf"
)

var armJoints = []string{"shoulder_pan_joint", "shoulder_lift_joint", "elbow_joint", "wrist_1_joint", "wrist_2_joint", "wrist_3_joint"}

// openRobot is the bridge's ROS 2 robot on the sim's domain, with the
// sim's arm as its one actuator.
func openRobot(t *testing.T, d msgs.Distro, domain int) *ros2.Robot {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	r, err := ros2.Open(ctx, &config.Config{Transport: config.TransportROS2,
		ROS2: config.ROS2{Distro: string(d), DomainID: &domain, DiscoveryRange: config.DiscoveryLocalhost},
		Actuators: []config.ActuatorConfig{{Name: "arm", Kind: actuators.KindArm,
			Action: "/joint_trajectory_controller/follow_joint_trajectory", Joints: armJoints}}}, ros2.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// TestWatchTFFindsTheTruePoseInMapWhileOdometryDrifts: over ROS 2, the
// bridge's frame tree (/tf volatile, /tf_static transient-local, read by
// WatchTF) puts base_footprint at the sim's true pose in map while
// odometry has drifted from it, and the gripper where the bridge's own
// kinematics puts it for the sim's joints.
func TestWatchTFFindsTheTruePoseInMapWhileOdometryDrifts(t *testing.T) {
	for i, d := range []msgs.Distro{msgs.Humble, msgs.Lyrical} {
		t.Run(string(d), func(t *testing.T) {
			domain := 110 + i
			p := startSim(t, domain, "--distro", string(d), "--odom-drift", "0.2,-0.1,0.05", "--initial-pose", "1,2,0.5",
				"--initial-positions", "shoulder_pan_joint=0.4,shoulder_lift_joint=-0.6,elbow_joint=1.1,wrist_1_joint=0.3,wrist_2_joint=-0.8,wrist_3_joint=1.5")
			r := openRobot(t, d, domain)
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			buf := tf.NewBuffer(tf.Options{CacheTime: time.Hour})
			done := make(chan error, 1)
			go func() { done <- r.WatchTF(ctx, buf, nil, func(err error) { t.Errorf("bad transform: %v", err) }) }()
			defer func() { cancel(); <-done }()
			simcheck.FrameTree(ctx, t, buf, sim.Pose2D{X: 1, Y: 2, Yaw: 0.5}, []float64{0.4, -0.6, 1.1, 0.3, -0.8, 1.5})
			if t.Failed() {
				t.Logf("sim:\n%s", p.Output())
			}
		})
	}
}

// TestNavigateToPoseInMapIsReachedInMapWhileOdometryDrifts: once
// odometry has drifted, a NavigateToPose goal in map ends with
// base_footprint on the target in map, not on the target in odom.
func TestNavigateToPoseInMapIsReachedInMapWhileOdometryDrifts(t *testing.T) {
	const domain = 115
	d := msgs.Jazzy
	rig := newArmRig(t, d, domain, "--odom-drift", "0.1,0.05,0.02")
	ctx, cancel := context.WithTimeout(t.Context(), 40*time.Second)
	defer cancel()
	buf := watchTF(ctx, t, openRobot(t, d, domain))
	waitDrift(ctx, t, buf, 0.3)
	c, g := navGoal(t, rig, sim.MapFrame, 0.4)
	id := newID(t)
	if err := sendGoal(ctx, c, id, g); err != nil {
		t.Fatalf("send: %v\nsim:\n%s", err, rig.sim.Output())
	}
	if res, err := c.Result(ctx, id); err != nil || res.Status.Name != "SUCCEEDED" {
		t.Fatalf("result: %+v %v\nsim:\n%s", res, err, rig.sim.Output())
	}
	got, _, err := buf.Lookup(sim.MapFrame, sim.BaseFrame, time.Time{})
	if err != nil || math.Hypot(got.Translation[0]-0.4, got.Translation[1]) > 0.05 {
		t.Fatalf("map→base_footprint %v %v, want the goal (0.4, 0) in map", got, err)
	}
}

// watchTF is a frame tree that r's WatchTF feeds until the test ends.
func watchTF(ctx context.Context, t *testing.T, r *ros2.Robot) *tf.Buffer {
	t.Helper()
	buf := tf.NewBuffer(tf.Options{CacheTime: time.Hour})
	wctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- r.WatchTF(wctx, buf, nil, func(err error) { t.Errorf("bad transform: %v", err) }) }()
	t.Cleanup(func() { stop(); <-done })
	return buf
}

// waitDrift waits until odom lies at least dist m from map's origin.
func waitDrift(ctx context.Context, t *testing.T, buf *tf.Buffer, dist float64) {
	t.Helper()
	for {
		odom, _, err := buf.Lookup(sim.MapFrame, sim.OdomFrame, time.Time{})
		if err == nil && math.Hypot(odom.Translation[0], odom.Translation[1]) >= dist {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("odometry never drifted %g m: %v %v", dist, odom, err)
		case <-time.After(20 * time.Millisecond):
		}
	}
}
