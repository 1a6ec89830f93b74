package ros2sim

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/ros1/rostest"
	"github.com/actbridge/actbridge/ros2/node"
	"github.com/actbridge/actbridge/sim"
	"github.com/actbridge/actbridge/test/bridgetest"
	"github.com/actbridge/actbridge/test/ddspeers"
	"github.com/actbridge/actbridge/test/netns"
)

// turtlebot4Config is launch/robots/turtlebot4-namespaced.yaml on domain,
// changed only where the sim differs from a TurtleBot 4: the base's
// topics are diff_drive_controller's, the planner confirms (no operator
// in a test), and discovery is discovery (localhost, or a server's
// client). map→odom is pinned to the namespaced robot_state_publisher,
// which publishes it in the sim.
func turtlebot4Config(t *testing.T, domain int, discovery string) string {
	t.Helper()
	return presetConfig(t, "turtlebot4-namespaced.yaml", domain,
		"discovery_range: subnet", discovery,
		"cmd_vel_topic: /robot1/cmd_vel", "cmd_vel_topic: /robot1"+ros2faceCmdVel,
		"odom_topic: /robot1/odom", "odom_topic: /robot1"+ros2faceOdom,
		"policy: operator", "policy: planner",
		"tf_static_topic: /robot1/tf_static", "tf_static_topic: /robot1/tf_static\ntf_sources: {odom: /robot1/robot_state_publisher}")
}

// The sim's base topics (sim/ros2face), relative to its namespace.
const (
	ros2faceCmdVel = "/diff_drive_controller/cmd_vel"
	ros2faceOdom   = "/diff_drive_controller/odom"
)

// TestNamespacedTurtleBotIsFencedInMapThroughItsOwnTF: the namespaced
// TurtleBot 4 preset against `simrobot --ros 2 --namespace /robot1` with
// its odometry drifting, beside an un-namespaced sim on the same domain
// whose /tf says odom is map: the fence (±3 m in map) is checked through
// /robot1/tf, so a goal inside it as odom sees it but past it in map is
// refused and reaches neither sim, and a goal in map runs on robot1 alone.
func TestNamespacedTurtleBotIsFencedInMapThroughItsOwnTF(t *testing.T) {
	const domain = 141
	rig := newArmRigIn(t, msgs.Jazzy, domain, "/robot1", "--odom-drift", "0.02,0,0", "--initial-pose", "2,0,0")
	other := newArmRig(t, msgs.Jazzy, domain)
	bridge := startBridge(t, turtlebot4Config(t, domain, "discovery_range: localhost"))
	fencedInMap(t, bridge, rig, other)
}

// TestNamespacedTurtleBotThroughTheDiscoveryServer: the same in
// TurtleBot 4's Discovery Server mode: multicast off in the test's
// namespace, eProsima's fast-discovery-server (id 0, as turtlebot4_setup
// runs it), both sims its clients through ROS_DISCOVERY_SERVER and the
// bridge through the preset's discovery_server.
func TestNamespacedTurtleBotThroughTheDiscoveryServer(t *testing.T) {
	const domain, port = 142, 11831
	ns := netns.Require(t)
	withoutMulticast(t)
	bin, err := exec.LookPath("fast-discovery-server")
	if err != nil {
		if os.Getenv(netns.EnvRequire) == "1" {
			t.Fatalf("fast-discovery-server (fastdds-tools) required: %v", err)
		}
		t.Skipf("no fast-discovery-server (fastdds-tools): %v", err)
	}
	server := ddspeers.StartPeer(t, ns, bin, nil, "-i", "0", "-l", "127.0.0.1", "-p", strconv.Itoa(port))
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	if err := server.WaitStdout(ctx, "Server is running"); err != nil {
		t.Fatalf("discovery server: %v: %s %s", err, server.Stdout(), server.Stderr())
	}
	env := []string{fmt.Sprintf("%s=127.0.0.1:%d", node.EnvDiscoveryServer, port)}
	disc := node.Discovery{Domain: domain, Servers: []node.DiscoveryServer{{Host: "127.0.0.1", Port: port}}}
	rig := newArmRigOn(t, msgs.Jazzy, disc, env, "/robot1", "--odom-drift", "0.02,0,0", "--initial-pose", "2,0,0")
	if !strings.Contains(rig.sim.Output(), "discovery through discovery servers") {
		t.Errorf("the sim does not say it is a discovery server client:\n%s", rig.sim.Output())
	}
	other := newArmRigOn(t, msgs.Jazzy, disc, env, "")
	bridge := startBridge(t, turtlebot4Config(t, domain, fmt.Sprintf("discovery_server: [\"127.0.0.1:%d\"]", port)))
	if !strings.Contains(bridge.Output(), fmt.Sprintf("discovery server 127.0.0.1:%d (client)", port)) {
		t.Errorf("the bridge does not say it is a discovery server client:\n%s", bridge.Output())
	}
	fencedInMap(t, bridge, rig, other)
}

// fencedInMap drives the namespaced preset's bridge: once robot1's
// odometry has drifted 12 cm, goals at odom x 2.95 (past map's 3 by the
// drift) are refused as geofence violations and reach no sim; a goal at
// map x 1 succeeds on robot1, once, and other gets nothing.
func fencedInMap(t *testing.T, bridge *bridgetest.Bridge, robot1, other *armRig) {
	t.Helper()
	cs := bridge.Client(t, "")
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	rostest.Eventually(t, 40*time.Second, "robot1's odom drifts 12 cm from map", func() error {
		out, isErr := bridgetest.Call(t, cs, "base_navigate", map[string]any{"x": 2.0, "y": 0.0, "frame": "map"})
		frames, _ := out["frames"].(map[string]any)
		link, _ := frames["transform"].(map[string]any)
		if x, _ := link["x"].(float64); isErr || x < 0.12 {
			return fmt.Errorf("preview %v", out)
		}
		return nil
	})
	for _, args := range []map[string]any{{"x": 2.95, "y": 0.0, "frame": "odom"}, {"x": 2.95, "y": 0.0}} {
		out, isErr := bridgetest.Call(t, cs, "base_navigate", args)
		if !isErr || out["code"] != "limit_violation" || !strings.Contains(fmt.Sprint(out["details"]), "geofence") {
			t.Fatalf("base_navigate %v: %v, want a geofence limit_violation (odom x 2.95 lies past map's 3)\nbridge:\n%s", args, out, bridge.Output())
		}
	}
	pv := bridgetest.MustCall(t, cs, "base_navigate", map[string]any{"x": 1.0, "y": 0.0, "frame": "map"})
	mo := bridgetest.MustCall(t, cs, "motion_confirm", map[string]any{"preview_id": pv["preview_id"]})
	id, _ := mo["motion_id"].(string)
	waitSucceeded(t, cs, id, bridge, robot1.sim)
	if g := robot1.goalLog(ctx, t)[sim.MoveBase]; len(g.Goals) != 1 || g.Count(id) != 1 {
		t.Fatalf("robot1's navigation goals: %+v, want motion %s once (the refused previews none)", g, id)
	}
	if g := other.goalLog(ctx, t)[sim.MoveBase]; len(g.Goals) != 0 {
		t.Fatalf("the un-namespaced sim got navigation goals: %+v", g)
	}
	at := bridgetest.MustCall(t, cs, "base_navigate", map[string]any{"x": 1.0, "y": 0.0, "frame": "map"})
	if d, _ := at["distance_m"].(float64); d > 0.05 {
		t.Fatalf("after the motion robot1 is %g m from the map goal: %v", d, at)
	}
}

// withoutMulticast takes multicast away from the test namespace's
// loopback until the test ends, so that participants find each other
// through a discovery server or not at all.
func withoutMulticast(t *testing.T) {
	t.Helper()
	run := func(args ...string) {
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			t.Fatalf("ip %v: %v: %s", args, err, out)
		}
	}
	run("route", "del", "224.0.0.0/4", "dev", "lo")
	run("link", "set", "lo", "multicast", "off")
	t.Cleanup(func() {
		run("link", "set", "lo", "multicast", "on")
		run("route", "add", "224.0.0.0/4", "dev", "lo")
	})
}

// TestDoctorNamesTheNamespacedTFTopicToSet: against the namespaced sim,
// `actbridge doctor` with the namespaced preset passes its TF check, and
// with the preset's tf_topic lines dropped (so /tf, which nothing
// publishes here) fails it, naming /robot1/tf and the tf_topic to set.
func TestDoctorNamesTheNamespacedTFTopicToSet(t *testing.T) {
	const domain = 143
	startSim(t, domain, "--namespace", "/robot1")
	cfg := turtlebot4Config(t, domain, "discovery_range: localhost")
	checks, out, _ := doctorRun(t, domain, cfg, "--timeout", "20s", "--max-clock-skew", "1m")
	expectCheck(t, checks, out, "/robot1/tf published (fence of base)", "pass", "", "")
	expectCheck(t, checks, out, "base: /robot1/navigate_to_pose served", "pass", "", "")
	plain := presetConfig(t, "turtlebot4-namespaced.yaml", domain, "discovery_range: subnet", "discovery_range: localhost",
		"tf_topic: /robot1/tf\ntf_static_topic: /robot1/tf_static\n", "")
	checks, out, code := doctorRun(t, domain, plain, "--timeout", "20s", "--max-clock-skew", "1m")
	expectCheck(t, checks, out, "/tf published (fence of base)", "fail", "/robot1/tf published", "tf_topic: /robot1/tf and tf_static_topic: /robot1/tf_static")
	if code != 1 {
		t.Fatalf("exit %d\n%s", code, out)
	}
}
