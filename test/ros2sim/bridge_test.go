package ros2sim

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/test/bridgetest"
	"github.com/actbridge/actbridge/test/netns"
)

// TestBridgeMovesTheSimArmOverROS2Once: `actbridge serve` with transport
// ros2 (the shipped sim-ros2.yaml, on the sim's domain) against `simrobot
// --ros 2`, driven over MCP: a previewed and confirmed arm_move_joints
// succeeds, the sim's goal log holds it once under the motion id as goal
// UUID, and the same confirm retried returns the same motion and sends
// nothing more.
func TestBridgeMovesTheSimArmOverROS2Once(t *testing.T) {
	const domain = 96
	r := newArmRig(t, msgs.Jazzy, domain)
	cfg := ros2Config(t, domain)
	bridge := startBridge(t, cfg)
	cs := bridge.Client(t, "")
	pv := bridgetest.MustCall(t, cs, "arm_move_joints", map[string]any{"positions": map[string]any{"shoulder_pan_joint": 0.3}})
	confirm := map[string]any{"preview_id": pv["preview_id"]}
	mo := bridgetest.MustCall(t, cs, "motion_confirm", confirm)
	id, _ := mo["motion_id"].(string)
	waitSucceeded(t, cs, id, bridge, r.sim)
	if again := bridgetest.MustCall(t, cs, "motion_confirm", confirm); again["motion_id"] != id {
		t.Fatalf("the retried confirm answered motion %v, want %s", again["motion_id"], id)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	a := r.goalLog(ctx, t)["arm"]
	if a.Count(id) != 1 || a.Duplicates != 0 || len(a.Goals) != 1 {
		t.Fatalf("the sim's goal log for motion %s: %+v", id, a)
	}
}

// startBridge is `actbridge serve --config cfg` with none of the
// environment's ROS 2 or token settings.
func startBridge(t *testing.T, cfg string) *bridgetest.Bridge {
	t.Helper()
	return bridgetest.Start(t, builds.Build(t, "github.com/actbridge/actbridge/cmd/actbridge"), "",
		[]string{"ROS_DOMAIN_ID=", "ROS_AUTOMATIC_DISCOVERY_RANGE=", "ROS_LOCALHOST_ONLY=", "ROS_STATIC_PEERS=",
			"ROS_DISCOVERY_SERVER=", "ROS_SUPER_CLIENT=", "ACTBRIDGE_PLANNER_TOKEN=", "ACTBRIDGE_OPERATOR_TOKEN="},
		"--config", cfg, "--data-dir", t.TempDir())
}

// waitSucceeded follows motion id until it succeeds, failing t when it
// ends otherwise or takes over 40 s.
func waitSucceeded(t *testing.T, cs *mcp.ClientSession, id string, bridge *bridgetest.Bridge, sim *netns.Peer) {
	t.Helper()
	deadline := time.Now().Add(40 * time.Second)
	for {
		st := bridgetest.MustCall(t, cs, "motion_status", map[string]any{"motion_id": id, "wait_s": 5})
		if st["state"] == "succeeded" {
			return
		}
		if st["terminal"] == true || time.Now().After(deadline) {
			t.Fatalf("motion %s: %v\nbridge:\n%s\nsim:\n%s", id, st, bridge.Output(), sim.Output())
		}
	}
}

// ros2Config is launch/robots/sim-ros2.yaml on domain, its limits file
// named by an absolute path.
func ros2Config(t *testing.T, domain int) string {
	t.Helper()
	return presetConfig(t, "sim-ros2.yaml", domain)
}

// presetConfig is the shipped launch/robots/<file> (a jazzy one) on
// domain, its limits file named by an absolute path, with each old string
// of oldNew replaced by the new one after it (a missing one fails t).
func presetConfig(t *testing.T, file string, domain int, oldNew ...string) string {
	t.Helper()
	robots, err := filepath.Abs(filepath.Join("..", "..", "launch", "robots"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(robots, file))
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(b), "limits_file: ../joint_limits.yaml", "limits_file: "+filepath.Join(robots, "..", "joint_limits.yaml"), 1)
	s = strings.Replace(s, "distro: jazzy", fmt.Sprintf("distro: jazzy\ndomain_id: %d", domain), 1)
	for i := 0; i+1 < len(oldNew); i += 2 {
		if !strings.Contains(s, oldNew[i]) {
			t.Fatalf("%s has no %q", file, oldNew[i])
		}
		s = strings.Replace(s, oldNew[i], oldNew[i+1], 1)
	}
	path := filepath.Join(t.TempDir(), "robot.yaml")
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
