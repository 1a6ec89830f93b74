package test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/actbridge/actbridge/roslink/rostest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// operatorPolicyConfig writes launch/robots/sim.yaml with the arm confirmed
// by an operator to a temporary file.
func operatorPolicyConfig(t *testing.T) string {
	t.Helper()
	path := simConfig(t, map[string]string{"policy: planner": "policy: operator"}) // the first actuator, the arm
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cfg := string(b)
	if !strings.Contains(cfg, "name: arm") || strings.Index(cfg, "policy: operator") > strings.Index(cfg, "name: gripper") {
		t.Fatal("sim.yaml: the arm is no longer the first actuator")
	}
	return path
}

func jointAt(t *testing.T, cs *mcp.ClientSession, joint string) float64 {
	t.Helper()
	js := mustCall(t, cs, "joints_read", map[string]any{"joints": []string{joint}})
	return js["joints"].([]any)[0].(map[string]any)["position"].(float64)
}

// waitMotion waits for the one arm motion in state and returns its id.
func waitMotion(t *testing.T, cs *mcp.ClientSession, state string, d time.Duration) string {
	t.Helper()
	var id string
	rostest.Eventually(t, d, "an arm motion is "+state, func() error {
		l := mustCall(t, cs, "motions_list", map[string]any{"state": state, "actuator": "arm"})
		items := l["items"].([]any)
		if len(items) == 0 {
			return fmt.Errorf("none yet")
		}
		id = items[len(items)-1].(map[string]any)["motion_id"].(string)
		return nil
	})
	return id
}

func TestOperatorApprovesInTheBrowserAndStopsTheSimMidMotion(t *testing.T) {
	const planner, operator = "planner-browser-token", "operator-browser-token"
	w := newWorld(t, worldOpts{config: operatorPolicyConfig(t),
		bridgeEnv: []string{"ACTBRIDGE_PLANNER_TOKEN=" + planner, "ACTBRIDGE_OPERATOR_TOKEN=" + operator}})
	cs := w.mcpClient(planner)
	art, err := filepath.Abs("artifacts")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(art, 0o755); err != nil {
		t.Fatal(err)
	}

	// The planner previews; policy says an operator confirms.
	pv := mustCall(t, cs, "arm_move_joints", map[string]any{"positions": map[string]any{"shoulder_pan_joint": 0.6, "elbow_joint": -0.4}, "duration_s": 3})
	id := pv["preview_id"].(string)
	refusal, isErr := call(t, cs, "motion_confirm", map[string]any{"preview_id": id})
	if !isErr || refusal["code"] != "permission_denied" || !strings.Contains(refusal["hint"].(string), "/console") {
		t.Fatalf("planner confirm under operator policy: %v", refusal)
	}
	before := w.goalsReceived()

	b := newBrowser(t)
	b.open("http://" + w.addr + "/console")
	b.waitText("#auth", "operator token", 20*time.Second)
	b.typeInto("#token", operator)
	b.click("#token-form button")
	card := `.preview[data-preview-id="` + id + `"]`
	b.waitFor(card+` svg.plot polyline`, 20*time.Second)
	b.waitText(card, "shoulder_pan_joint", 5*time.Second)
	b.waitText("#auth", "Signed in as the operator", 5*time.Second)
	b.screenshot(filepath.Join(art, "console-pending-preview.png"))

	// Approve: exactly that preview runs on the sim.
	b.click(card + " button.approve")
	done := waitMotion(t, cs, "succeeded", 60*time.Second)
	if got := jointAt(t, cs, "shoulder_pan_joint"); math.Abs(got-0.6) > 0.01 {
		t.Fatalf("shoulder_pan_joint at %.4f after the approved motion, want 0.6", got)
	}
	if n := w.goalsReceived() - before; n != 1 {
		t.Fatalf("the sim received %d goals, want 1", n)
	}
	b.waitText(`#recent-list .motion[data-motion-id="`+done+`"] .state`, "succeeded", 20*time.Second)

	// A slow motion, stopped from the page while it runs.
	pv2 := mustCall(t, cs, "arm_move_joints", map[string]any{"positions": map[string]any{"shoulder_pan_joint": -0.6}, "duration_s": 12})
	card2 := `.preview[data-preview-id="` + pv2["preview_id"].(string) + `"]`
	b.click(card2 + " button.approve")
	running := waitMotion(t, cs, "active", 30*time.Second)
	rostest.Eventually(t, 20*time.Second, "the arm is on its way", func() error {
		if p := jointAt(t, cs, "shoulder_pan_joint"); p > 0.5 {
			return fmt.Errorf("still at %.3f", p)
		}
		return nil
	})
	b.waitFor(`#motion-list .motion[data-motion-id="`+running+`"] progress`, 10*time.Second)
	b.screenshot(filepath.Join(art, "console-motion-in-flight.png"))
	b.click("#stop")
	b.noDialog() // STOP never asks
	rostest.Eventually(t, 20*time.Second, "the motion is preempted", func() error {
		st := mustCall(t, cs, "motion_status", map[string]any{"motion_id": running, "wait_s": 2})
		if st["state"] != "preempted" {
			return errState(st)
		}
		return nil
	})
	stoppedAt := jointAt(t, cs, "shoulder_pan_joint")
	rostest.Eventually(t, 10*time.Second, "the arm holds still", func() error {
		time.Sleep(time.Second)
		now := jointAt(t, cs, "shoulder_pan_joint")
		if math.Abs(now-stoppedAt) > 1e-3 {
			stoppedAt = now
			return fmt.Errorf("still moving: %.4f", now)
		}
		return nil
	})
	if stoppedAt < -0.55 || stoppedAt > 0.55 {
		t.Fatalf("the arm stopped at %.3f: not mid-motion between 0.6 and -0.6", stoppedAt)
	}
	desc := mustCall(t, cs, "robot_describe", map[string]any{})
	estop := desc["estop"].(map[string]any)
	if estop["latched"] != true {
		t.Fatalf("STOP did not latch the e-stop: %v", estop)
	}
	b.waitText("#estop", fmt.Sprintf("E-STOP LATCHED, event %v", estop["event"]), 10*time.Second)
	b.waitText(`#recent-list .motion[data-motion-id="`+running+`"] .state`, "preempted", 10*time.Second)
	b.screenshot(filepath.Join(art, "console-stopped.png"))

	// The e-stop reset asks first, then releases exactly the event shown.
	b.click("#reset")
	b.waitFor("#reset-dialog[open]", 5*time.Second)
	b.click("#reset-confirm")
	rostest.Eventually(t, 10*time.Second, "the e-stop is reset", func() error {
		e := mustCall(t, cs, "robot_describe", map[string]any{})["estop"].(map[string]any)
		if e["latched"] != false {
			return fmt.Errorf("estop %v", e)
		}
		return nil
	})
	b.waitText("#estop", "E-stop clear", 10*time.Second)
	b.screenshot(filepath.Join(art, "console-reset.png"))
}
