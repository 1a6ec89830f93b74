package test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/actbridge/actbridge/ros1/rostest"

	"github.com/actbridge/actbridge/test/bridgetest"
)

// The shipped configs beside sim.yaml, each with the URDF it is checked
// against and the actuator tools it must (and only may) register.
var shippedConfigs = []struct {
	config, urdf string
	tools        []string
}{
	{"sim.yaml", "simrobot.urdf", []string{"arm_follow_trajectory", "arm_move_joints", "arm_move_pose", "arm_move_relative", "base_drive", "base_navigate", "gripper_move"}},
	{"sim-arm-only.yaml", "simrobot.urdf", []string{"arm_follow_trajectory", "arm_move_joints", "arm_move_pose", "arm_move_relative"}},
	{"sim-base-only.yaml", "simrobot.urdf", []string{"base_drive", "base_navigate"}},
	{"sim-dual-arm.yaml", "simrobot-dual-arm.urdf", []string{"arm_follow_trajectory", "arm_move_joints", "arm_move_pose", "arm_move_relative"}},
	{"sim-ros2.yaml", "simrobot.urdf", []string{"arm_follow_trajectory", "arm_move_joints", "arm_move_pose", "arm_move_relative", "base_drive", "base_navigate", "gripper_move"}},
}

// robotWideTools are registered whatever actuators a robot has.
var robotWideTools = []string{"robot_describe", "robot_stop", "motion_confirm", "motion_status", "motion_cancel", "motions_list"}

// actuatorTools keeps the tools of an actuator kind, sorted.
func actuatorTools(names []string) []string {
	var out []string
	for _, n := range names {
		if strings.HasPrefix(n, "arm_") || strings.HasPrefix(n, "gripper_") || strings.HasPrefix(n, "base_") {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

func TestShippedConfigsPassCheckConfigAndRegisterOnlyTheirKindsTools(t *testing.T) {
	for _, c := range shippedConfigs {
		t.Run(c.config, func(t *testing.T) {
			cfg, urdf := filepath.Join("..", "launch", "robots", c.config), filepath.Join("..", "launch", c.urdf)
			out, err := exec.Command(filepath.Join(binDir, "actbridge"), "check-config", "--config", cfg, "--urdf", urdf).CombinedOutput()
			if err != nil || !strings.Contains(string(out), ": ok") {
				t.Fatalf("check-config %s: %v\n%s", c.config, err, out)
			}
			b, err := exec.Command(filepath.Join(binDir, "actbridge"), "tools", "export", "--format", "anthropic", "--config", cfg, "--urdf", urdf).Output()
			if err != nil {
				t.Fatalf("tools export %s: %v", c.config, err)
			}
			var tools []struct {
				Name string `json:"name"`
			}
			if err := json.Unmarshal(b, &tools); err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tl := range tools {
				names = append(names, tl.Name)
			}
			if got := actuatorTools(names); !slices.Equal(got, c.tools) {
				t.Errorf("actuator tools %v, want %v", got, c.tools)
			}
			for _, n := range robotWideTools {
				if !slices.Contains(names, n) {
					t.Errorf("no %s", n)
				}
			}
			// joints_read reads joint states, which a base alone does not publish.
			if want := !slices.Equal(c.tools, actuatorTools([]string{"base_navigate", "base_drive"})); slices.Contains(names, "joints_read") != want {
				t.Errorf("joints_read registered = %v, want %v", !want, want)
			}
		})
	}
}

// listToolNames is tools/list over MCP, names only.
func listToolNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	return names
}

// runToEnd confirms a preview and waits for the motion to succeed.
func runToEnd(t *testing.T, cs *mcp.ClientSession, preview map[string]any) {
	t.Helper()
	c := bridgetest.MustCall(t, cs, "motion_confirm", map[string]any{"preview_id": preview["preview_id"]})
	waitSucceeded(t, cs, c["motion_id"].(string))
}

func waitSucceeded(t *testing.T, cs *mcp.ClientSession, id string) {
	t.Helper()
	rostest.Eventually(t, 60*time.Second, "motion "+id+" succeeds", func() error {
		st := bridgetest.MustCall(t, cs, "motion_status", map[string]any{"motion_id": id, "wait_s": 5, "until": "end"})
		if st["state"] != "succeeded" {
			return errState(st)
		}
		return nil
	})
}

// jointStandsAt reads one joint and fails unless it stands at want.
func jointStandsAt(t *testing.T, cs *mcp.ClientSession, joint string, want float64) {
	t.Helper()
	js := bridgetest.MustCall(t, cs, "joints_read", map[string]any{"joints": []string{joint}})
	got := js["joints"].([]any)[0].(map[string]any)["position"].(float64)
	if math.Abs(got-want) > 0.01 {
		t.Fatalf("%s at %.4f, want %.4f", joint, got, want)
	}
}

// received is how many goals each of the sim's actions received.
func (w *world) received() map[string]int {
	out := map[string]int{}
	for action, a := range w.simGoals() {
		out[action] = a.Received
	}
	return out
}

func TestArmOnlyRobotListsOnlyArmToolsAndAConfirmedMoveReachesTheSimOnce(t *testing.T) {
	eachTransport(t, func(t *testing.T, tr transport) {
		w := newWorld(t, worldOpts{tr: tr, config: actuatorSet(t, tr, "../launch/robots/sim-arm-only.yaml", "arm")})
		cs := w.mcpClient("")
		names := listToolNames(t, cs)
		if got := actuatorTools(names); !slices.Equal(got, []string{"arm_follow_trajectory", "arm_move_joints", "arm_move_pose", "arm_move_relative"}) {
			t.Fatalf("tools/list actuator tools %v, want the arm's only", got)
		}
		desc := bridgetest.MustCall(t, cs, "robot_describe", map[string]any{})
		if arms, _ := desc["arms"].([]any); len(arms) != 1 || desc["gripper"] != nil || desc["base"] != nil || len(desc["grippers"].([]any)) != 0 {
			t.Fatalf("robot_describe: arms %v, gripper %v, base %v", desc["arms"], desc["gripper"], desc["base"])
		}

		before := w.received()
		pv := bridgetest.MustCall(t, cs, "arm_move_joints", map[string]any{"positions": map[string]any{"elbow_joint": 0.4}})
		if w.received()["arm"] != before["arm"] {
			t.Fatal("a preview reached the sim")
		}
		runToEnd(t, cs, pv)
		jointStandsAt(t, cs, "elbow_joint", 0.4)
		after := w.received()
		for action, n := range after {
			want := before[action]
			if action == "arm" {
				want++
			}
			if n != want {
				t.Errorf("sim %s received %d goals, want %d", action, n-before[action], want-before[action])
			}
		}
		// robot_stop stops what the robot has: no base to send a zero twist to.
		if stop := bridgetest.MustCall(t, cs, "robot_stop", map[string]any{"reason": "e2e"}); stop["stopped"] != true {
			t.Fatalf("robot_stop: %v", stop)
		}
	})
}

func TestDualArmCellMovesEachArmOnlyWhenNamed(t *testing.T) {
	eachTransport(t, func(t *testing.T, tr transport) {
		w := newWorld(t, worldOpts{tr: tr, simArgs: []string{"--second-arm"}, config: actuatorSet(t, tr, "../launch/robots/sim-dual-arm.yaml", "arm", "arm2")})
		cs := w.mcpClient("")
		desc := bridgetest.MustCall(t, cs, "robot_describe", map[string]any{})
		if arms, _ := desc["arms"].([]any); len(arms) != 2 {
			t.Fatalf("robot_describe arms: %v", desc["arms"])
		}

		// Unknown or missing: invalid_argument naming the arms, nothing sent.
		for _, args := range []map[string]any{
			{"actuator": "arm3", "positions": map[string]any{"elbow_joint": 0.2}},
			{"positions": map[string]any{"elbow_joint": 0.2}},
		} {
			out, isErr := bridgetest.Call(t, cs, "arm_move_joints", args)
			exp, _ := out["expected"].(string)
			if !isErr || out["code"] != "invalid_argument" || out["field"] != "actuator" || !strings.Contains(exp, "arm, arm2") {
				t.Fatalf("arm_move_joints %v: %v", args, out)
			}
		}

		for _, step := range []struct {
			arm, joint, other string
			to                float64
		}{
			{"arm2", "arm2_elbow_joint", "elbow_joint", 0.5},
			{"arm", "elbow_joint", "arm2_shoulder_pan_joint", -0.3},
		} {
			before := w.received()
			pv := bridgetest.MustCall(t, cs, "arm_move_joints", map[string]any{"actuator": step.arm, "positions": map[string]any{step.joint: step.to}})
			if pv["actuator"] != step.arm {
				t.Fatalf("preview for %s names %v", step.arm, pv["actuator"])
			}
			runToEnd(t, cs, pv)
			jointStandsAt(t, cs, step.joint, step.to)
			after := w.received()
			for _, a := range []string{"arm", "arm2"} {
				want := 0
				if a == step.arm {
					want = 1
				}
				if n := after[a] - before[a]; n != want {
					t.Fatalf("naming %s: the sim's %s received %d goals, want %d", step.arm, a, n, want)
				}
			}
		}
		jointStandsAt(t, cs, "arm2_elbow_joint", 0.5) // the first arm's move left the second where it was

		// Each arm holds only its own lock: both run at once.
		var ids []string
		for _, m := range []struct {
			arm, joint string
		}{{"arm", "shoulder_pan_joint"}, {"arm2", "arm2_shoulder_pan_joint"}} {
			pv := bridgetest.MustCall(t, cs, "arm_move_joints", map[string]any{"actuator": m.arm, "positions": map[string]any{m.joint: 0.6}, "duration_s": 4})
			ids = append(ids, fmt.Sprint(pv["preview_id"]))
		}
		var motions []string
		for _, id := range ids {
			c := bridgetest.MustCall(t, cs, "motion_confirm", map[string]any{"preview_id": id})
			motions = append(motions, c["motion_id"].(string))
		}
		for _, id := range motions {
			waitSucceeded(t, cs, id)
		}
		jointStandsAt(t, cs, "shoulder_pan_joint", 0.6)
		jointStandsAt(t, cs, "arm2_shoulder_pan_joint", 0.6)
	})
}

func TestBaseOnlyRobotListsOnlyBaseToolsAndNavigatesThroughMoveBaseOnce(t *testing.T) {
	eachTransport(t, func(t *testing.T, tr transport) {
		w := newWorld(t, worldOpts{tr: tr, config: actuatorSet(t, tr, "../launch/robots/sim-base-only.yaml", "base")})
		cs := w.mcpClient("")
		if got := actuatorTools(listToolNames(t, cs)); !slices.Equal(got, []string{"base_drive", "base_navigate"}) {
			t.Fatalf("tools/list actuator tools %v, want the base's only", got)
		}
		before := w.received()
		runToEnd(t, cs, bridgetest.MustCall(t, cs, "base_navigate", map[string]any{"x": 0.3, "y": 0}))
		after := w.received()
		if after["move_base"]-before["move_base"] != 1 || after["arm"] != before["arm"] || after["gripper"] != before["gripper"] {
			t.Fatalf("goals received before %v, after %v: want one move_base goal and nothing else", before, after)
		}
	})
}
