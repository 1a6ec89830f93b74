package ros2sim

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/actbridge/actbridge/ros2/msgs"
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
	addr := freeAddr(t)
	cmd := exec.Command(builds.Build(t, "github.com/actbridge/actbridge/cmd/actbridge"),
		"serve", "--config", cfg, "--listen", addr, "--data-dir", t.TempDir())
	cmd.Env = append(os.Environ(), "ROS_DOMAIN_ID=", "ROS_AUTOMATIC_DISCOVERY_RANGE=", "ROS_LOCALHOST_ONLY=", "ROS_STATIC_PEERS=",
		"ACTBRIDGE_PLANNER_TOKEN=", "ACTBRIDGE_OPERATOR_TOKEN=")
	bridge := netns.StartPeer(t, cmd)
	waitReady(t, addr, bridge)

	c := mcp.NewClient(&mcp.Implementation{Name: "ros2-e2e", Version: "1"}, nil)
	cs, err := c.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: "http://" + addr + "/mcp"}, nil)
	if err != nil {
		t.Fatalf("mcp connect: %v\nbridge:\n%s", err, bridge.Output())
	}
	defer cs.Close()
	pv := tool(t, cs, "arm_move_joints", map[string]any{"positions": map[string]any{"shoulder_pan_joint": 0.3}})
	confirm := map[string]any{"preview_id": pv["preview_id"]}
	mo := tool(t, cs, "motion_confirm", confirm)
	id, _ := mo["motion_id"].(string)
	deadline := time.Now().Add(40 * time.Second)
	for {
		st := tool(t, cs, "motion_status", map[string]any{"motion_id": id, "wait_s": 5})
		if st["state"] == "succeeded" {
			break
		}
		if st["terminal"] == true || time.Now().After(deadline) {
			t.Fatalf("motion %s: %v\nbridge:\n%s\nsim:\n%s", id, st, bridge.Output(), r.sim.Output())
		}
	}
	if again := tool(t, cs, "motion_confirm", confirm); again["motion_id"] != id {
		t.Fatalf("the retried confirm answered motion %v, want %s", again["motion_id"], id)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	a := r.goalLog(ctx, t)["arm"]
	if a.Count(id) != 1 || a.Duplicates != 0 || len(a.Goals) != 1 {
		t.Fatalf("the sim's goal log for motion %s: %+v", id, a)
	}
}

// ros2Config is launch/robots/sim-ros2.yaml on domain, its limits file
// named by an absolute path.
func ros2Config(t *testing.T, domain int) string {
	t.Helper()
	robots, err := filepath.Abs(filepath.Join("..", "..", "launch", "robots"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(robots, "sim-ros2.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(b), "limits_file: ../joint_limits.yaml", "limits_file: "+filepath.Join(robots, "..", "joint_limits.yaml"), 1)
	s = strings.Replace(s, "distro: jazzy", fmt.Sprintf("distro: jazzy\ndomain_id: %d", domain), 1)
	path := filepath.Join(t.TempDir(), "robot.yaml")
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// waitReady waits until the bridge's /healthz says ready: every actuator
// connected (for ROS 2: the graph lists the arm's action server).
func waitReady(t *testing.T, addr string, bridge *netns.Peer) {
	t.Helper()
	deadline := time.Now().Add(40 * time.Second)
	for {
		resp, err := http.Get("http://" + addr + "/healthz")
		if err == nil {
			var h struct {
				Ready bool `json:"ready"`
			}
			err = json.NewDecoder(resp.Body).Decode(&h)
			resp.Body.Close()
			if err == nil && h.Ready {
				return
			}
		}
		select {
		case <-bridge.Done():
			t.Fatalf("the bridge exited:\n%s", bridge.Output())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the bridge never became ready (%v):\n%s", err, bridge.Output())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// tool calls an MCP tool and returns its structured result; a tool error fails the test.
func tool(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	b, _ := json.Marshal(res.StructuredContent)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	if res.IsError {
		t.Fatalf("%s(%v): %s", name, args, b)
	}
	return m
}
