package test

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/actbridge/actbridge/ros1/rostest"

	"github.com/actbridge/actbridge/test/bridgetest"
)

// operatorPolicyConfig writes the shipped config of tr with the arm
// confirmed by an operator (at the console or by MCP elicitation) to a
// temporary file; under ROS 2 it also
// allows the sim's clear_faults Trigger as an irreversible service (the
// ROS 2 sim has no reset_odometry), for the console's service card.
func operatorPolicyConfig(t *testing.T, tr transport) string {
	t.Helper()
	// The arm is the first actuator; its operator may approve by MCP
	// elicitation too (newViews), which the shipped sim configs leave off.
	edits := map[string]string{"policy: planner": "policy: operator",
		"recovery_speed_fraction: 0.1": "recovery_speed_fraction: 0.1\noperator_via_elicitation: true"}
	if tr == ros2 {
		edits["    - {name: /simrobot/goals, tier: read}"] = "    - {name: /simrobot/goals, tier: read}\n    - {name: " + irreversibleService[ros2].name + ", tier: irreversible, policy: planner}"
	}
	path := simConfig(t, tr, edits)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cfg := string(b)
	if !strings.Contains(cfg, "name: arm") || strings.Index(cfg, "policy: operator") > strings.Index(cfg, "name: gripper") {
		t.Fatalf("%s: the arm is no longer the first actuator", defaultConfig(tr))
	}
	return path
}

// irreversibleService is a service of each transport's sim that a
// previewed service_call may reach, and its type as the console shows it.
var irreversibleService = map[transport]struct{ name, typ string }{
	ros1: {"/simrobot/reset_odometry", "std_srvs/Empty"},
	ros2: {"/simrobot/clear_faults", "std_srvs/srv/Trigger"},
}

func jointAt(t *testing.T, cs *mcp.ClientSession, joint string) float64 {
	t.Helper()
	js := bridgetest.MustCall(t, cs, "joints_read", map[string]any{"joints": []string{joint}})
	return js["joints"].([]any)[0].(map[string]any)["position"].(float64)
}

// waitMotion waits for the one arm motion in state and returns its id.
func waitMotion(t *testing.T, cs *mcp.ClientSession, state string, d time.Duration) string {
	t.Helper()
	var id string
	rostest.Eventually(t, d, "an arm motion is "+state, func() error {
		l := bridgetest.MustCall(t, cs, "motions_list", map[string]any{"state": state, "actuator": "arm"})
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
	eachTransport(t, func(t *testing.T, tr transport) {
		const planner, operator = "planner-browser-token", "operator-browser-token"
		w := newWorld(t, worldOpts{tr: tr, config: operatorPolicyConfig(t, tr),
			bridgeEnv: []string{"ACTBRIDGE_PLANNER_TOKEN=" + planner, "ACTBRIDGE_OPERATOR_TOKEN=" + operator}})
		cs := w.mcpClient(planner)
		art, err := artifactsDir(w.tr)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(art, 0o755); err != nil {
			t.Fatal(err)
		}

		// The planner previews; policy says an operator confirms.
		pv := bridgetest.MustCall(t, cs, "arm_move_joints", map[string]any{"positions": map[string]any{"shoulder_pan_joint": 0.6, "elbow_joint": -0.4}, "duration_s": 3})
		id := pv["preview_id"].(string)
		refusal, isErr := bridgetest.Call(t, cs, "motion_confirm", map[string]any{"preview_id": id})
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
		b.waitText(card+` tr[data-joint="shoulder_pan_joint"] td.limit-use`, "% of limit", 5*time.Second)
		b.waitText("#auth", "Signed in as the operator", 5*time.Second)
		b.screenshot(filepath.Join(art, "console-pending-preview.png"))
		b.elementShot(card, filepath.Join(art, "console-arm-preview.png"))

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
		b.waitText(`#recent-list .motion[data-motion-id="`+done+`"]`, "confirmed by the operator at the console", 5*time.Second)

		newViews(t, w, b, cs, planner, art)

		// A slow motion, stopped from the page while it runs.
		pv2 := bridgetest.MustCall(t, cs, "arm_move_joints", map[string]any{"positions": map[string]any{"shoulder_pan_joint": -0.6}, "duration_s": 12})
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
			st := bridgetest.MustCall(t, cs, "motion_status", map[string]any{"motion_id": running, "wait_s": 2})
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
		desc := bridgetest.MustCall(t, cs, "robot_describe", map[string]any{})
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
			e := bridgetest.MustCall(t, cs, "robot_describe", map[string]any{})["estop"].(map[string]any)
			if e["latched"] != false {
				return fmt.Errorf("estop %v", e)
			}
			return nil
		})
		b.waitText("#estop", "E-stop clear", 10*time.Second)
		b.screenshot(filepath.Join(art, "console-reset.png"))

		// ROS 1: a description re-published with the same limits; the
		// console says motions are held, and the operator's Accept releases
		// them. ROS 2: a second publisher; the console says motions are held
		// until it leaves.
		urdf, err := os.ReadFile("../launch/simrobot.urdf")
		if err != nil {
			t.Fatal(err)
		}
		leave := publishDescription(t, w, strings.Replace(string(urdf), "<robot", "<!-- re-published -->\n<robot", 1))
		if tr == ros2 {
			b.waitText("#urdf", "MORE THAN ONE PUBLISHER OF THE ROBOT DESCRIPTION", 20*time.Second)
			b.screenshot(filepath.Join(art, "console-urdf-ambiguous.png"))
			leave()
			rostest.Eventually(t, 30*time.Second, "the console shows nothing held", func() error {
				if u := bridgetest.MustCall(t, cs, "robot_describe", map[string]any{})["urdf"].(map[string]any); u["ambiguous"] != nil {
					return fmt.Errorf("urdf %v", u)
				}
				return nil
			})
			b.waitFor("#urdf[hidden]", 10*time.Second)
			return
		}
		b.waitText("#urdf", "ROBOT DESCRIPTION CHANGED", 20*time.Second)
		b.waitText("#urdf", "Its limits are those in force", 5*time.Second)
		b.screenshot(filepath.Join(art, "console-urdf-changed.png"))
		b.click("#accept-urdf")
		rostest.Eventually(t, 10*time.Second, "the description is accepted", func() error {
			u := bridgetest.MustCall(t, cs, "robot_describe", map[string]any{})["urdf"].(map[string]any)
			if u["changed"] != nil {
				return fmt.Errorf("urdf %v", u)
			}
			return nil
		})
	})
}

// elicitingClient is a planner whose MCP client asks its user, who approves
// every request.
func elicitingClient(t *testing.T, w *world, token string) *mcp.ClientSession {
	t.Helper()
	return bridgetest.Connect(t, w.addr, token, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
		}})
}

// waitEnded waits for motion id to end in state want.
func waitEnded(t *testing.T, cs *mcp.ClientSession, id, want string) {
	t.Helper()
	rostest.Eventually(t, 60*time.Second, "motion "+id+" is "+want, func() error {
		st := bridgetest.MustCall(t, cs, "motion_status", map[string]any{"motion_id": id, "wait_s": 2})
		if st["state"] != want {
			return errState(st)
		}
		return nil
	})
}

// newViews checks the console's pictures of what would move (base map,
// service request) and its motion history's confirmers, and saves them.
func newViews(t *testing.T, w *world, b *browser, cs *mcp.ClientSession, planner, art string) {
	// An approval by MCP elicitation is the operator's, and the page says so.
	ecs := elicitingClient(t, w, planner)
	epv := bridgetest.MustCall(t, ecs, "arm_move_joints", map[string]any{"positions": map[string]any{"elbow_joint": -0.2}, "duration_s": 3})
	em := bridgetest.MustCall(t, ecs, "motion_confirm", map[string]any{"preview_id": epv["preview_id"]})
	if em["confirmed_by"] != "operator" || em["confirmed_via"] != "elicitation" {
		t.Fatalf("elicited confirm recorded as %v via %v", em["confirmed_by"], em["confirmed_via"])
	}
	elicited := em["motion_id"].(string)
	waitEnded(t, cs, elicited, "succeeded")
	b.waitText(`#recent-list .motion[data-motion-id="`+elicited+`"]`, "confirmed by the operator by MCP elicitation", 20*time.Second)

	// Base and service previews, pending: a map and a request, not a zero move.
	nav := bridgetest.MustCall(t, cs, "base_navigate", map[string]any{"x": 2.5, "y": 1.5, "yaw": 0.8})["preview_id"].(string)
	drive := bridgetest.MustCall(t, cs, "base_drive", map[string]any{"linear": 0.4, "angular": 0.3, "duration_s": 4})["preview_id"].(string)
	irr := irreversibleService[w.tr]
	svc := bridgetest.MustCall(t, cs, "service_call", map[string]any{"service": irr.name})["preview_id"].(string)
	card := func(id string) string { return `.preview[data-preview-id="` + id + `"]` }
	for _, id := range []string{nav, drive} {
		b.waitFor(card(id)+` svg.map rect.fence`, 20*time.Second)
		b.waitFor(card(id)+` svg.map polyline.path`, 5*time.Second)
		b.waitFor(card(id)+` svg.map polygon.robot`, 5*time.Second)
		b.waitFor(card(id)+` svg.map polygon.goal`, 5*time.Second)
	}
	// From (0, 0) in the ±5 m fence: the goal (2.5, 1.5) is 2.5 m from x = 5.
	b.waitText(card(nav)+" figcaption.fence-note", "closest to the geofence: 2.50 m", 5*time.Second)
	b.waitText(card(drive)+" figcaption.fence-note", "closest to the geofence: ", 5*time.Second)
	b.waitText(card(svc)+" td.service-name", irr.name, 20*time.Second)
	b.waitText(card(svc)+" td.service-type", irr.typ, 5*time.Second)
	b.waitText(card(svc)+" pre.service-request", "{}", 5*time.Second)
	if b.find(card(svc)+" svg") != "" || strings.Contains(b.text(card(svc)), "x 0.00 m") {
		t.Fatalf("the service call is drawn as a move: %q", b.text(card(svc)))
	}
	b.elementShot(card(nav), filepath.Join(art, "console-base-navigate-preview.png"))
	b.elementShot(card(drive), filepath.Join(art, "console-base-drive-preview.png"))
	b.elementShot(card(svc), filepath.Join(art, "console-service-preview.png"))
	b.screenshot(filepath.Join(art, "console-base-and-service-previews.png"))

	// The operator denies two; the planner confirms the drive (its policy).
	before := w.goalsReceived()
	b.click(card(nav) + " button.deny")
	b.click(card(svc) + " button.deny")
	rostest.Eventually(t, 20*time.Second, "the denied cards leave the page", func() error {
		if b.find(card(nav)) != "" || b.find(card(svc)) != "" {
			return fmt.Errorf("still shown")
		}
		return nil
	})
	if w.goalsReceived() != before {
		t.Fatal("a denial sent a goal")
	}
	dm := bridgetest.MustCall(t, cs, "motion_confirm", map[string]any{"preview_id": drive})
	driven := dm["motion_id"].(string)
	waitEnded(t, cs, driven, "succeeded")
	b.waitText(`#recent-list .motion[data-motion-id="`+driven+`"]`, "confirmed by the planner", 20*time.Second)
	b.elementShot("#motions", filepath.Join(art, "console-motion-history.png"))
}
