package dserver

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/ros1/rostest"
	"github.com/actbridge/actbridge/test/bridgetest"
	"github.com/actbridge/actbridge/test/ddspeers"
)

// sampleLine is ddspeers.SampleOf in the rig's set.
func (r *rig) sampleLine(t *testing.T, typ string, fields map[string]any) string {
	t.Helper()
	line, err := ddspeers.SampleOf(r.set, typ, fields)
	if err != nil {
		t.Fatal(err)
	}
	return line
}

// TestServeDrivesTheRobotThroughTheDiscoveryServerOverMCP: `actbridge
// serve` with `discovery_server` in its config, a robot made of Fast DDS
// clients of the server (action server, URDF and joint state
// publishers), no multicast: the planner previews and confirms a motion
// over MCP, it succeeds, and the server saw its goal once.
func TestServeDrivesTheRobotThroughTheDiscoveryServerOverMCP(t *testing.T) {
	r := newRig(t, 11817)
	const domain = 46
	action := r.actionServer(t, "/arm/follow_joint_trajectory", domain)
	var types []*cdr.Struct
	for _, n := range []string{"std_msgs/msg/String", "sensor_msgs/msg/JointState"} {
		s, err := r.set.Struct(n)
		if err != nil {
			t.Fatal(err)
		}
		types = append(types, s)
	}
	pub := ddspeers.BuildTypes(t, types).Fast
	urdf, err := os.ReadFile(filepath.Join("..", "ros2mission", "testdata", "peer-arm.urdf"))
	if err != nil {
		t.Fatal(err)
	}
	dom := []string{"--domain", strconv.Itoa(domain)}
	desc := r.sampleLine(t, "std_msgs/msg/String", map[string]any{"data": string(urdf)})
	ddspeers.StartPeerEnv(t, r.ns, pub, r.env(), strings.NewReader(desc), append([]string{"pub", "--type", "std_msgs/msg/String",
		"--topic", "rt/robot_description", "--transient-local", "--depth", "1", "--wait-match", "0", "--linger", "3600"}, dom...)...)
	js := r.sampleLine(t, "sensor_msgs/msg/JointState", map[string]any{
		"name": []string{"j1", "j2"}, "position": []float64{0, 0}, "velocity": []float64{0, 0}, "effort": []float64{0, 0}})
	ddspeers.StartPeerEnv(t, r.ns, pub, r.env(), strings.NewReader(js), append([]string{"pub", "--type", "sensor_msgs/msg/JointState",
		"--topic", "rt/joint_states", "--best-effort", "--wait-match", "0", "--count", "72000", "--rate", "20"}, dom...)...)

	cfg := fmt.Sprintf(`transport: ros2
distro: jazzy
domain_id: %d
discovery_server: ["127.0.0.1:%d"]
node_name: actbridge
robot_description_param: /robot_description
actuators:
  - name: arm
    kind: arm
    action: /arm/follow_joint_trajectory
    joints: [j1, j2]
    joint_states_topic: /joint_states
    policy: planner
`, domain, r.port)
	path := filepath.Join(t.TempDir(), "robot.yaml")
	if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"ROS_DOMAIN_ID=", "ROS_AUTOMATIC_DISCOVERY_RANGE=", "ROS_LOCALHOST_ONLY=", "ROS_STATIC_PEERS=", "ROS_DISCOVERY_SERVER=",
		"ROS_SUPER_CLIENT=", "ACTBRIDGE_PLANNER_TOKEN=", "ACTBRIDGE_OPERATOR_TOKEN="}
	b := bridgetest.Start(t, builds.Build(t, "github.com/actbridge/actbridge/cmd/actbridge"), "", env, "--config", path, "--data-dir", t.TempDir())
	cs := b.Client(t, "")
	if !strings.Contains(b.Output(), "discovery server 127.0.0.1:"+strconv.Itoa(r.port)+" (client)") {
		t.Errorf("the bridge does not say it is a discovery server client:\n%s", b.Output())
	}
	// The joint states come through the server a little after ready; a
	// planner retries what is retryable.
	var pv map[string]any
	rostest.Eventually(t, 20*time.Second, "a preview", func() error {
		out, isErr := bridgetest.Call(t, cs, "arm_move_joints", map[string]any{"positions": map[string]any{"j1": 0.4}})
		if isErr {
			return fmt.Errorf("%v", out)
		}
		pv = out
		return nil
	})
	mo := bridgetest.MustCall(t, cs, "motion_confirm", map[string]any{"preview_id": pv["preview_id"]})
	id, _ := mo["motion_id"].(string)
	var st map[string]any
	rostest.Eventually(t, 40*time.Second, "motion "+id+" ends", func() error {
		st = bridgetest.MustCall(t, cs, "motion_status", map[string]any{"motion_id": id, "wait_s": 3})
		if st["terminal"] != true && st["state"] != "unknown" {
			return fmt.Errorf("state %v", st["state"])
		}
		return nil
	})
	if st["state"] != "succeeded" {
		t.Fatalf("motion %s ended %v", id, st)
	}
	evs, err := ddspeers.JSONLines[ddspeers.ActionEvent](action.Stdout())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range evs {
		if e.Event == "goal" {
			if e.GoalID != id {
				t.Errorf("the server saw goal %s, not the motion's %s", e.GoalID, id)
			}
			n++
		}
	}
	if n != 1 {
		t.Fatalf("the server saw %d goals, want the motion's once:\n%s", n, action.Stdout())
	}
}
