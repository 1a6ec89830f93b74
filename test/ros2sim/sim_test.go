package ros2sim

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/ros2/node"
	"github.com/actbridge/actbridge/ros2/qos"
	"github.com/actbridge/actbridge/test/gobin"
	"github.com/actbridge/actbridge/test/netns"
)

// TestMain runs the tests inside a namespace it made; each test takes a
// domain of its own.
func TestMain(m *testing.M) { netns.Main(m) }

// builds is this test binary's built commands; each test process owns one.
var builds gobin.Builds

func binary(t *testing.T) string {
	return builds.Build(t, "github.com/actbridge/actbridge/cmd/simrobot")
}

// startSim runs `simrobot --ros 2` on domain with localhost-only
// discovery (the default when the range is unset) and waits until it
// says it serves.
func startSim(t *testing.T, domain int, args ...string) *netns.Peer {
	t.Helper()
	return startSimEnv(t, domain, nil, args...)
}

// startSimEnv is startSim with env added to the sim's ROS 2 variables
// (ROS_DISCOVERY_SERVER=…).
func startSimEnv(t *testing.T, domain int, env []string, args ...string) *netns.Peer {
	t.Helper()
	netns.Require(t)
	cmd := exec.Command(binary(t), append([]string{"--ros", "2"}, args...)...)
	cmd.Env = append(os.Environ(), fmt.Sprintf("ROS_DOMAIN_ID=%d", domain), "ROS_AUTOMATIC_DISCOVERY_RANGE=",
		"ROS_LOCALHOST_ONLY=", "ROS_STATIC_PEERS=", "ROS_DISCOVERY_SERVER=", "ROS_SUPER_CLIENT=")
	cmd.Env = append(cmd.Env, env...)
	p := netns.StartPeer(t, cmd)
	deadline := time.After(20 * time.Second)
	for !strings.Contains(p.Output(), "simrobot: serving") {
		select {
		case <-p.Done():
			t.Fatalf("simrobot exited:\n%s", p.Output())
		case <-deadline:
			t.Fatalf("simrobot never served:\n%s", p.Output())
		case <-time.After(20 * time.Millisecond):
		}
	}
	return p
}

// client is a node in a Context of ours on the sim's domain,
// localhost-only as the sim.
func client(t *testing.T, d msgs.Distro, domain int, name string) *node.Node {
	t.Helper()
	_, n := clientContext(t, d, domain, name)
	return n
}

func clientContext(t *testing.T, d msgs.Distro, domain int, name string) (*node.Context, *node.Node) {
	t.Helper()
	return clientContextOn(t, d, node.Discovery{Domain: domain, Range: node.Localhost}, name)
}

// clientContextOn is clientContext with discovery disc.
func clientContextOn(t *testing.T, d msgs.Distro, disc node.Discovery, name string) (*node.Context, *node.Node) {
	t.Helper()
	c, err := node.NewContext(t.Context(), node.Options{Distro: d, Discovery: disc})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	n, err := c.NewNode(name, "/")
	if err != nil {
		t.Fatal(err)
	}
	return c, n
}

func subscribe(t *testing.T, n *node.Node, topic, typ string, q qos.Profile) *node.Subscription {
	t.Helper()
	s, err := n.NewSubscription(topic, typ, q, node.SubscriptionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func take(ctx context.Context, t *testing.T, s *node.Subscription, sim *netns.Peer) *cdr.Message {
	t.Helper()
	m, _, err := s.Take(ctx)
	if err != nil {
		t.Fatalf("take %s: %v\nsim:\n%s", s.Topic(), err, sim.Output())
	}
	return m
}

// field reads a dotted path of m.
func field(m *cdr.Message, path string) any {
	for {
		head, rest, ok := strings.Cut(path, ".")
		if !ok {
			return m.Get(path)
		}
		m = m.Get(head).(*cdr.Message)
		path = rest
	}
}

func stampOf(m *cdr.Message) time.Time {
	return time.Unix(int64(field(m, "header.stamp.sec").(int32)), int64(field(m, "header.stamp.nanosec").(uint32)))
}

// TestJointStatesFlowAndLateJoinerGetsRobotDescription: /joint_states
// carries the arm and gripper joints with advancing stamps on every
// distro, and a Context that joins after the sim published the URDF
// still receives it on /robot_description (transient_local, keep-last 1).
func TestJointStatesFlowAndLateJoinerGetsRobotDescription(t *testing.T) {
	for i, d := range msgs.Distros() {
		t.Run(string(d), func(t *testing.T) {
			domain := 40 + i
			sim := startSim(t, domain, "--distro", string(d))
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			n := client(t, d, domain, "listener")
			js := subscribe(t, n, "/joint_states", "sensor_msgs/msg/JointState", qos.Default)
			first := take(ctx, t, js, sim)
			var last *cdr.Message
			for range 5 {
				last = take(ctx, t, js, sim)
			}
			names := field(last, "name").([]string)
			if len(names) != 7 || names[6] != "gripper_finger_joint" || len(field(last, "position").([]float64)) != 7 {
				t.Fatalf("joint_states: %s", last.AppendJSON(nil))
			}
			if !stampOf(last).After(stampOf(first)) {
				t.Fatalf("stamps do not advance: %v then %v", stampOf(first), stampOf(last))
			}
			late := client(t, d, domain, "late")
			desc := subscribe(t, late, "/robot_description", "std_msgs/msg/String", qos.Latched)
			urdf := take(ctx, t, desc, sim).Get("data").(string)
			if !strings.Contains(urdf, "<robot") || !strings.Contains(urdf, names[0]) {
				t.Fatalf("robot_description: %.200q", urdf)
			}
		})
	}
}

// TestCameraPublishesRawAndCompressed: the sim's test picture on
// /camera/image_raw (rgb8, 320×240, about 230 kB, so fragmented on the
// wire) and its JPEG on /camera/image_raw/compressed.
func TestCameraPublishesRawAndCompressed(t *testing.T) {
	const domain = 45
	sim := startSim(t, domain)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	n := client(t, msgs.Jazzy, domain, "viewer")
	raw := subscribe(t, n, "/camera/image_raw", "sensor_msgs/msg/Image", qos.Default)
	jpg := subscribe(t, n, "/camera/image_raw/compressed", "sensor_msgs/msg/CompressedImage", qos.Default)
	img := take(ctx, t, raw, sim)
	if img.Get("encoding") != "rgb8" || img.Get("width") != uint32(320) || img.Get("height") != uint32(240) || len(img.Get("data").([]uint8)) != 320*240*3 {
		t.Fatalf("image: %v %v %v, %d bytes", img.Get("encoding"), img.Get("width"), img.Get("height"), len(img.Get("data").([]uint8)))
	}
	c := take(ctx, t, jpg, sim)
	if data := c.Get("data").([]uint8); c.Get("format") != "jpeg" || len(data) < 4 || data[0] != 0xff || data[1] != 0xd8 {
		t.Fatalf("compressed: %v, %d bytes", c.Get("format"), len(c.Get("data").([]uint8)))
	}
}

// TestSIGTERMStopsTheSimCleanly: on SIGTERM `simrobot --ros 2` withdraws
// and exits 0, saying it stopped.
func TestSIGTERMStopsTheSimCleanly(t *testing.T) {
	sim := startSim(t, 46)
	if err := syscall.Kill(sim.Pid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-sim.Done():
	case <-time.After(10 * time.Second):
		t.Fatalf("still running 10 s after SIGTERM:\n%s", sim.Output())
	}
	if !strings.Contains(sim.Output(), "simrobot: stopped") {
		t.Fatalf("no clean stop:\n%s", sim.Output())
	}
}
