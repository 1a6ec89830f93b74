package test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/actbridge/actbridge/bridge"
	"github.com/actbridge/actbridge/ros1/rostest"
	"github.com/actbridge/actbridge/ros2/qos"
	"github.com/actbridge/actbridge/test/bridgetest"
)

// A robot description that changes while the bridge runs (the parameter
// rewritten with ROS's own rosparam) holds every motion until the
// operator accepts it; nothing reaches the robot meanwhile, and the
// operator's acceptance (its limits are unchanged) lets motions run
// again. ROS 1 only: on ROS 2 another URDF comes from another publisher,
// which is the ambiguity of the next test.
func TestChangedRobotDescriptionHoldsMotionsUntilTheOperatorAccepts(t *testing.T) {
	eachTransport(t, func(t *testing.T, tr transport) {
		w := newWorld(t, worldOpts{tr: tr, bridgeEnv: []string{"ACTBRIDGE_PLANNER_TOKEN=" + plannerToken, "ACTBRIDGE_OPERATOR_TOKEN=" + operatorToken}})
		planner, operator := w.mcpClient(plannerToken), w.mcpClient(operatorToken)
		urdf, err := os.ReadFile("../launch/simrobot.urdf")
		if err != nil {
			t.Fatal(err)
		}
		desc := bridgetest.MustCall(t, planner, "robot_describe", map[string]any{})
		loaded := desc["urdf"].(map[string]any)["sha256"]
		if loaded != bridge.URDFDigest(string(urdf)) {
			t.Fatalf("robot_describe's urdf sha256 %v is not the sim's URDF's", loaded)
		}
		pv := bridgetest.MustCall(t, planner, "arm_move_joints", map[string]any{"positions": map[string]any{"wrist_1_joint": 0.2}})

		edited := strings.Replace(string(urdf), "<robot", "<!-- re-published by someone else -->\n<robot", 1)
		publishDescription(t, w, edited)
		rostest.Eventually(t, 20*time.Second, "the bridge sees the new description", func() error {
			d := bridgetest.MustCall(t, planner, "robot_describe", map[string]any{})
			if d["urdf"].(map[string]any)["changed"] == nil {
				return errState(d["urdf"].(map[string]any))
			}
			return nil
		})
		before := w.goalsReceived()
		out, isErr := bridgetest.Call(t, planner, "motion_confirm", map[string]any{"preview_id": pv["preview_id"]})
		if !isErr || out["rule"] != "robot_description_unchanged" {
			t.Fatalf("confirm after the description changed: %v", out)
		}
		if out, isErr := bridgetest.Call(t, planner, "gripper_move", map[string]any{"position": 0.03}); !isErr || out["code"] != "unavailable" {
			t.Fatalf("preview after the description changed: %v", out)
		}
		if got := w.goalsReceived(); got != before {
			t.Fatalf("%d goals reached the sim while the description differed", got-before)
		}
		if out, isErr := bridgetest.Call(t, planner, "robot_description_accept", map[string]any{"urdf_sha256": bridge.URDFDigest(edited)}); !isErr || out["code"] != "permission_denied" {
			t.Fatalf("the planner accepted: %v", out)
		}
		bridgetest.MustCall(t, operator, "robot_description_accept", map[string]any{"urdf_sha256": bridge.URDFDigest(edited)})
		pv = bridgetest.MustCall(t, planner, "arm_move_joints", map[string]any{"positions": map[string]any{"wrist_1_joint": 0.2}})
		bridgetest.MustCall(t, planner, "motion_confirm", map[string]any{"preview_id": pv["preview_id"]})
		rostest.Eventually(t, 10*time.Second, "the accepted motion reaches the sim", func() error {
			if w.goalsReceived() == before {
				return errState(map[string]any{"goals": before})
			}
			return nil
		})
	}, ros1)
}

// A second participant publishing another robot description (a stray
// robot_state_publisher, a second robot without a namespace) holds every
// motion with ambiguous_server naming both publishers, and nothing
// reaches the robot; once it leaves, motions run again.
func TestASecondDescriptionPublisherHoldsMotionsUntilItLeaves(t *testing.T) {
	eachTransport(t, func(t *testing.T, tr transport) {
		w := newWorld(t, worldOpts{tr: tr})
		cs := w.mcpClient("")
		urdf, err := os.ReadFile("../launch/simrobot.urdf")
		if err != nil {
			t.Fatal(err)
		}
		leave := publishDescription(t, w, strings.Replace(string(urdf), "<robot", "<!-- a stray publisher's -->\n<robot", 1))
		rostest.Eventually(t, 20*time.Second, "the bridge sees two publishers, each with its node", func() error {
			u := bridgetest.MustCall(t, cs, "robot_describe", map[string]any{})["urdf"].(map[string]any)
			if a, _ := u["ambiguous"].(string); !strings.Contains(a, "/e2e") { // the graph names a node a moment after its participant
				return errState(u)
			}
			return nil
		})
		before := w.goalsReceived()
		out, isErr := bridgetest.Call(t, cs, "arm_move_joints", map[string]any{"positions": map[string]any{"wrist_1_joint": 0.2}})
		if !isErr || out["code"] != "ambiguous_server" || !strings.Contains(out["state"].(string), "/e2e") || !strings.Contains(out["state"].(string), "/robot_state_publisher") {
			t.Fatalf("preview with two description publishers: %v; want ambiguous_server naming the sim's /robot_state_publisher and /e2e", out)
		}
		leave()
		rostest.Eventually(t, 30*time.Second, "motions run once the stray left", func() error {
			pv, isErr := bridgetest.Call(t, cs, "arm_move_joints", map[string]any{"positions": map[string]any{"wrist_1_joint": 0.2}})
			if isErr {
				return errState(pv)
			}
			return nil
		})
		if got := w.goalsReceived(); got != before {
			t.Fatalf("%d goals reached the sim while the description was ambiguous", got-before)
		}
	}, ros2)
}

// publishDescription makes text the robot's description: the parameter
// on ROS 1, a second latched publisher on ROS 2 (the sim's stays; leave
// withdraws it).
func publishDescription(t *testing.T, w *world, text string) (leave func()) {
	t.Helper()
	if w.tr == ros1 { // ROS's own rosparam, so the change is the one a user would make
		f := filepath.Join(t.TempDir(), "robot.urdf")
		if err := os.WriteFile(f, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, "rosparam", "set", "--textfile="+f, "/robot_description")
		cmd.Env = append(os.Environ(), w.master.Env()...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("rosparam set: %v\n%s", err, out)
		}
		return func() {}
	}
	p := w.simPeer()
	p.mu.Lock()
	pub, err := p.ownNode(t).NewPublisher("/robot_description", "std_msgs/msg/String", qos.Latched)
	p.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	m := pub.New()
	if err := m.Set("data", text); err != nil {
		t.Fatal(err)
	}
	if err := pub.Publish(m); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = pub.WaitAcknowledged(ctx) // the bridge's reader may match later: transient-local covers that
	return func() { _ = pub.Close() }
}
