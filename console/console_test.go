package console

import (
	"context"
	"encoding/json"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/bridge"
)

const armMove = `{"positions":{"j1":0.5}}`

func TestConsoleNeedsATokenWhenTokensAreConfigured(t *testing.T) {
	r := newRig(t, withTokens())
	id := r.plan(t, "arm_move_joints", armMove)
	for _, token := range []string{"", "not-a-token"} {
		for _, c := range []struct{ method, path string }{{"GET", "/console/api/state"}, {"POST", "/console/api/approve"},
			{"POST", "/console/api/deny"}, {"POST", "/console/api/estop_reset"}} {
			var body any
			if c.method == "POST" {
				body = map[string]any{"preview_id": id}
			}
			if c.path == "/console/api/estop_reset" {
				body = map[string]any{"event": 1}
			}
			if code, m := r.do(t, c.method, c.path, token, body); code != http.StatusUnauthorized || m["code"] != "permission_denied" {
				t.Errorf("%s %s with token %q: %d %v", c.method, c.path, token, code, m)
			}
		}
	}
	if len(r.robot.Wire()) != 0 {
		t.Fatal("an unauthenticated request moved the robot")
	}
}

func TestPlannerTokenIsRefusedForApproveDenyAndReset(t *testing.T) {
	r := newRig(t, withTokens())
	id := r.plan(t, "arm_move_joints", armMove)
	code, st := r.do(t, "GET", "/console/api/state", plannerToken, nil)
	if code != http.StatusOK || st["auth"].(map[string]any)["role"] != "planner" {
		t.Fatalf("planner reads the state: %d %v", code, st["auth"])
	}
	r.estop.Latch("test")
	for path, body := range map[string]any{"approve": map[string]any{"preview_id": id}, "deny": map[string]any{"preview_id": id},
		"estop_reset": map[string]any{"event": 1}} {
		code, m := r.do(t, "POST", "/console/api/"+path, plannerToken, body)
		if code != http.StatusForbidden || m["code"] != "permission_denied" {
			t.Errorf("planner %s: %d %v", path, code, m)
		}
	}
	if latched, _, _ := r.estop.State(); !latched || len(r.robot.Wire()) != 0 || len(r.pending(t)) != 1 {
		t.Fatal("a planner token approved, denied or reset something")
	}
}

func (r *rig) pending(t *testing.T) []string {
	t.Helper()
	pvs, err := r.store.PendingPreviews(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, p := range pvs {
		ids = append(ids, p.ID)
	}
	return ids
}

func uuidOf(previewID string) string { return strings.Split(previewID, ".")[1] }

func TestOperatorApprovalRunsThatPreviewAndNoOther(t *testing.T) {
	r := newRig(t, withTokens())
	a := r.plan(t, "arm_move_joints", armMove)
	b := r.plan(t, "arm_move_joints", `{"positions":{"j2":-0.5}}`)
	code, m := r.do(t, "POST", "/console/api/approve", operatorToken, map[string]any{"preview_id": a})
	if code != http.StatusOK || m["state"] != "sent" {
		t.Fatalf("approve A: %d %v", code, m)
	}
	mo, err := r.store.Get(m["motion_id"].(string))
	if err != nil || mo.PreviewID != uuidOf(a) || mo.Role != "operator" {
		t.Fatalf("motion of A: %+v %v", mo, err)
	}
	// A's approval does not carry over to B: the planner still cannot run it.
	_, e := r.pipe.Call(context.Background(), "motion_confirm", json.RawMessage(`{"preview_id":"`+b+`"}`), bridge.Invocation{Role: bridge.RolePlanner})
	if e == nil || e.Code != bridge.CodePermissionDenied {
		t.Fatalf("planner confirming B after A was approved: %v", e)
	}
	// Approving A again replays its motion; nothing is sent twice.
	code, again := r.do(t, "POST", "/console/api/approve", operatorToken, map[string]any{"preview_id": a})
	if code != http.StatusOK || again["motion_id"] != m["motion_id"] || again["replay"] != true {
		t.Fatalf("approve A again: %d %v", code, again)
	}
	if got := r.robot.Wire(); len(got) != 1 || got[0] != m["motion_id"] {
		t.Fatalf("goals sent %v, want only A's motion", got)
	}
	if p := r.pending(t); len(p) != 1 || p[0] != uuidOf(b) {
		t.Fatalf("pending %v, want only B", p)
	}
}

func TestApprovalNamingAnAlteredPreviewIDRunsNothing(t *testing.T) {
	r := newRig(t, withTokens())
	a := r.plan(t, "arm_move_joints", armMove)
	b := r.plan(t, "arm_move_joints", `{"positions":{"j2":-0.5}}`)
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	spliced := strings.Join([]string{pa[0], pa[1], pa[2], pb[3]}, ".") // A's preview, B's signature
	for _, id := range []string{spliced, a[:len(a)-2] + "xx", "please move the arm"} {
		code, m := r.do(t, "POST", "/console/api/approve", operatorToken, map[string]any{"preview_id": id})
		if code != http.StatusBadRequest || m["code"] != "invalid_argument" {
			t.Errorf("approve %q: %d %v", id, code, m)
		}
	}
	if len(r.robot.Wire()) != 0 {
		t.Fatal("an altered id ran a motion")
	}
}

func TestDeniedPreviewCanNeverBeConfirmed(t *testing.T) {
	r := newRig(t, withTokens())
	a := r.plan(t, "arm_move_joints", armMove)
	g := r.plan(t, "gripper_move", `{"position":0.05}`) // planner policy
	for _, id := range []string{a, g} {
		if code, m := r.do(t, "POST", "/console/api/deny", operatorToken, map[string]any{"preview_id": id}); code != http.StatusOK || m["denied"] != true {
			t.Fatalf("deny: %d %v", code, m)
		}
	}
	code, m := r.do(t, "POST", "/console/api/approve", operatorToken, map[string]any{"preview_id": a})
	if code != http.StatusForbidden || !strings.Contains(m["message"].(string), "denied by the operator (console)") {
		t.Fatalf("approve after deny: %d %v", code, m)
	}
	_, e := r.pipe.Call(context.Background(), "motion_confirm", json.RawMessage(`{"preview_id":"`+g+`"}`), bridge.Invocation{Role: bridge.RolePlanner})
	if e == nil || e.Code != bridge.CodePermissionDenied {
		t.Fatalf("the planner confirming its own denied preview: %v", e)
	}
	if len(r.robot.Wire()) != 0 || len(r.pending(t)) != 0 {
		t.Fatalf("sent %v, pending %v after denials", r.robot.Wire(), r.pending(t))
	}
	if !slices.Contains(r.obs.tools(), "preview_deny:operator:ok") {
		t.Fatalf("the denial is not in the audit feed: %v", r.obs.tools())
	}
	// each denial names the tool that issued the preview (metrics count by it)
	var denied []string
	r.obs.mu.Lock()
	for _, rec := range r.obs.recs {
		if rec.Tool == DenyTool {
			denied = append(denied, rec.PreviewOf+":"+rec.Denial)
		}
	}
	r.obs.mu.Unlock()
	if strings.Join(denied, " ") != "arm_move_joints:console gripper_move:console" {
		t.Fatalf("denial records name %v", denied)
	}
}

func TestDenyAfterTheMotionStartedIsRefused(t *testing.T) {
	r := newRig(t, withTokens())
	a := r.plan(t, "arm_move_joints", armMove)
	if code, m := r.do(t, "POST", "/console/api/approve", operatorToken, map[string]any{"preview_id": a}); code != http.StatusOK {
		t.Fatalf("approve: %d %v", code, m)
	}
	code, m := r.do(t, "POST", "/console/api/deny", operatorToken, map[string]any{"preview_id": a})
	if code != http.StatusBadRequest || !strings.Contains(m["hint"].(string), "STOP") {
		t.Fatalf("deny a running preview: %d %v", code, m)
	}
	if code, m := r.do(t, "POST", "/console/api/deny", operatorToken, map[string]any{"preview_id": "pv1.x.1.y"}); code != http.StatusNotFound {
		t.Fatalf("deny an unknown preview: %d %v", code, m)
	}
}

func TestStopWorksWithAnyTokenOrNone(t *testing.T) {
	r := newRig(t, withTokens())
	for i, token := range []string{"", "wrong", plannerToken, operatorToken} {
		code, m := r.do(t, "POST", "/console/api/stop", token, map[string]any{})
		if code != http.StatusOK || m["stopped"] != true || m["estop_event"] == nil {
			t.Fatalf("stop with token %q: %d %v", token, code, m)
		}
		if r.robot.Stops() != i+1 {
			t.Fatalf("stop %d reached the robot %d times", i+1, r.robot.Stops())
		}
		if i == 1 {
			if _, _, reason := r.estop.State(); !strings.Contains(reason, "console STOP button (no valid token)") {
				t.Fatalf("latch reason %q", reason)
			}
		}
	}
	// Even a body-less stop (curl -X POST -H 'Content-Type: application/json') works.
	req := httptest.NewRequest("POST", "http://127.0.0.1:8765/console/api/stop", nil)
	req.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	r.console.ServeHTTP(w, req)
	if w.Code != http.StatusOK {
		t.Fatalf("body-less stop: %d %s", w.Code, w.Body)
	}
	if n := strings.Count(strings.Join(r.obs.tools(), " "), "robot_stop"); n != 5 {
		t.Fatalf("robot_stop went through the pipeline %d times, want 5: %v", n, r.obs.tools())
	}
}

// POST /stop, for a hardware button, a pendant or a watchdog, is the
// console's STOP: any token or none, through the pipeline, the caller
// named in the latch's reason; a form a page of another site could post
// (not JSON) stops nothing.
func TestStopEndpointStopsLikeTheConsoleButton(t *testing.T) {
	r := newRig(t, withTokens())
	mux := http.NewServeMux()
	mux.HandleFunc("POST /stop", r.console.ServeStop) // as actbridge serve mounts it
	post := func(token, contentType, body string) int {
		req := httptest.NewRequest("POST", "http://127.0.0.1:8765/stop", strings.NewReader(body))
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		w := httptest.NewRecorder()
		mux.ServeHTTP(w, req)
		return w.Code
	}
	if code := post(operatorToken, "application/x-www-form-urlencoded", "reason=x"); code == http.StatusOK || r.robot.Stops() != 0 {
		t.Fatalf("a form post stopped the robot: %d, %d stops", code, r.robot.Stops())
	}
	for i, tc := range []struct{ token, reason string }{
		{operatorToken, "robot_stop by operator: POST /stop: pendant"},
		{"", "POST /stop (no valid token): watchdog"},
	} {
		why := tc.reason[strings.LastIndex(tc.reason, ": ")+2:]
		if code := post(tc.token, "application/json", `{"reason":"`+why+`"}`); code != http.StatusOK {
			t.Fatalf("stop %d: HTTP %d", i, code)
		}
		if r.robot.Stops() != i+1 {
			t.Fatalf("stop %d reached the robot %d times", i+1, r.robot.Stops())
		}
		if _, _, reason := r.estop.State(); !strings.HasSuffix(reason, tc.reason) {
			t.Fatalf("latch reason %q, want %q", reason, tc.reason)
		}
	}
	if n := strings.Count(strings.Join(r.obs.tools(), " "), "robot_stop"); n != 2 {
		t.Fatalf("robot_stop went through the pipeline %d times, want 2: %v", n, r.obs.tools())
	}
}

func TestStopCompletesWhenThePageGoesAway(t *testing.T) {
	r := newRig(t, withTokens())
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the browser tab closed while the request was on its way
	req := httptest.NewRequest("POST", "http://127.0.0.1:8765/console/api/stop", strings.NewReader(`{}`)).WithContext(ctx)
	req.Header.Set("Content-Type", "application/json")
	r.console.ServeHTTP(httptest.NewRecorder(), req)
	if r.robot.Stops() != 1 {
		t.Fatal("a stop was dropped with its request")
	}
}

func TestEStopResetNeedsTheOperatorAndNamesTheEvent(t *testing.T) {
	r := newRig(t, withTokens())
	if code, _ := r.do(t, "POST", "/console/api/stop", "", map[string]any{}); code != http.StatusOK {
		t.Fatal("stop failed")
	}
	if code, m := r.do(t, "POST", "/console/api/estop_reset", operatorToken, map[string]any{"event": 7}); code != http.StatusBadRequest {
		t.Fatalf("reset of another event: %d %v", code, m)
	}
	if latched, _, _ := r.estop.State(); !latched {
		t.Fatal("a wrong event released the e-stop")
	}
	code, m := r.do(t, "POST", "/console/api/estop_reset", operatorToken, map[string]any{"event": 1})
	if code != http.StatusOK || m["latched"] != false {
		t.Fatalf("reset: %d %v", code, m)
	}
}

// demoTokens are serve's without a configured token on loopback: the
// planner needs none, the operator the token serve wrote to its data dir.
func demoTokens() bridge.Tokens { return bridge.Tokens{Operator: operatorToken, OpenPlanner: true} }

// In the loopback demo a local process without a token sees the robot as
// the planner and can STOP it, but approves, denies and resets nothing:
// only the operator token does. Non-loopback peers and rebound names are
// refused.
func TestInTheLoopbackDemoNoProcessIsTheOperatorWithoutItsToken(t *testing.T) {
	r := newRig(t, demoTokens())
	code, st := r.do(t, "GET", "/console/api/state", "", nil)
	if code != http.StatusOK || st["auth"].(map[string]any)["mode"] != "demo" || st["auth"].(map[string]any)["role"] != "planner" {
		t.Fatalf("loopback without a token: %d %v", code, st["auth"])
	}
	for _, c := range []struct{ remote, host string }{{"10.1.2.3:4000", "127.0.0.1:8765"}, {"127.0.0.1:4000", "rebound.example:8765"}} {
		req := httptest.NewRequest("GET", "http://"+c.host+"/console/api/state", nil)
		req.RemoteAddr = c.remote
		w := httptest.NewRecorder()
		r.console.ServeHTTP(w, req)
		if w.Code != http.StatusForbidden {
			t.Errorf("remote %s host %s: %d", c.remote, c.host, w.Code)
		}
	}
	id := r.plan(t, "arm_move_joints", armMove)
	if code, m := r.do(t, "POST", "/console/api/approve", "", map[string]any{"preview_id": id}); code != http.StatusForbidden || m["rule"] != "operator_only" {
		t.Fatalf("tokenless approve: %d %v", code, m)
	}
	if code, m := r.do(t, "POST", "/console/api/stop", "", map[string]any{}); code != http.StatusOK || m["stopped"] != true {
		t.Fatalf("tokenless stop: %d %v", code, m)
	}
	if code, m := r.do(t, "POST", "/console/api/estop_reset", "", map[string]any{"event": 1}); code != http.StatusForbidden {
		t.Fatalf("tokenless reset: %d %v", code, m)
	}
	if len(r.robot.Wire()) != 0 {
		t.Fatal("a tokenless approve reached the robot")
	}
	if code, m := r.do(t, "POST", "/console/api/estop_reset", operatorToken, map[string]any{"event": 1}); code != http.StatusOK {
		t.Fatalf("reset with the operator token: %d %v", code, m)
	}
	if code, m := r.do(t, "POST", "/console/api/approve", operatorToken, map[string]any{"preview_id": id}); code != http.StatusOK {
		t.Fatalf("approve with the operator token: %d %v", code, m)
	}
}

func TestCrossSiteRequestsChangeNothing(t *testing.T) {
	r := newRig(t, demoTokens())
	id := r.plan(t, "arm_move_joints", armMove)
	for _, c := range []struct{ ctype, origin string }{{"text/plain", ""}, {"application/x-www-form-urlencoded", ""}, {"application/json", "http://evil.example"}} {
		for _, path := range []string{"approve", "stop"} {
			req := httptest.NewRequest("POST", "http://127.0.0.1:8765/console/api/"+path, strings.NewReader(`{"preview_id":"`+id+`"}`))
			req.RemoteAddr = "127.0.0.1:5000"
			req.Header.Set("Authorization", "Bearer "+operatorToken) // even with the operator's token
			req.Header.Set("Content-Type", c.ctype)
			if c.origin != "" {
				req.Header.Set("Origin", c.origin)
			}
			w := httptest.NewRecorder()
			r.console.ServeHTTP(w, req)
			if w.Code < 400 {
				t.Errorf("%s as %s from %q: %d", path, c.ctype, c.origin, w.Code)
			}
		}
	}
	if len(r.robot.Wire()) != 0 || r.robot.Stops() != 0 {
		t.Fatal("a cross-site request acted on the robot")
	}
}

// clock is a settable time for the console's snapshot cache.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) tick()          { c.mu.Lock(); c.t = c.t.Add(time.Second); c.mu.Unlock() }

func TestStateShowsRobotPreviewsAndMotions(t *testing.T) {
	r := newRig(t, withTokens())
	clk := &clock{t: time.Now()}
	r.console.now = clk.now
	a := r.plan(t, "arm_move_joints", armMove)
	g := r.plan(t, "gripper_move", `{"position":0.05}`)
	_, st := r.do(t, "GET", "/console/api/state", operatorToken, nil)

	var s struct {
		Robot struct {
			Actuators []actuators.ActuatorStatus `json:"actuators"`
		} `json:"robot"`
		Joints struct {
			Joints []actuators.JointReading `json:"joints"`
		} `json:"joints"`
		Previews []previewView    `json:"previews"`
		Motions  []map[string]any `json:"motions"`
		Recent   []map[string]any `json:"recent"`
		Errors   []string         `json:"errors"`
	}
	decode := func(m map[string]any) {
		b, _ := json.Marshal(m)
		s.Motions, s.Recent = nil, nil
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
	}
	decode(st)
	if len(s.Robot.Actuators) != 3 || s.Robot.Actuators[2].Connected || len(s.Joints.Joints) != 3 || len(s.Errors) != 0 {
		t.Fatalf("robot at a glance: %+v %+v %v", s.Robot, s.Joints, s.Errors)
	}
	if len(s.Previews) != 2 || s.Previews[0].PreviewID != a || s.Previews[1].PreviewID != g {
		t.Fatalf("previews: %+v", s.Previews)
	}
	arm := s.Previews[0]
	if arm.ConfirmedBy != "operator" || len(arm.Moves) != 1 || arm.Moves[0].Name != "j1" || arm.Moves[0].From != "0.000 rad" ||
		arm.Moves[0].To != "0.500 rad" || !slices.Equal(arm.Holds, []string{"j2"}) || len(arm.Warnings) != 1 ||
		arm.ExpiresInS <= 50 || arm.ExpiresInS > 61 {
		t.Fatalf("arm preview: %+v", arm)
	}
	if svg := arm.Moves[0].PlotSVG; strings.Count(svg, `class="limit `) != 2 || !strings.Contains(svg, "<polyline") {
		t.Fatalf("arm plot: %s", svg)
	}
	if use := arm.Moves[0].LimitUse; use != "position 25% · velocity 50% of limit" { // 0.5 from the centre of a half-range of 2
		t.Fatalf("arm limit use: %q", use)
	}
	if grip := s.Previews[1]; grip.Moves[0].Name != "finger" || grip.Moves[0].To != "0.050 m" || !strings.Contains(grip.Moves[0].PlotSVG, "max 0.08") ||
		grip.Moves[0].LimitUse != "position 50% of limit" {
		t.Fatalf("gripper preview: %+v", grip)
	}

	_, m := r.do(t, "POST", "/console/api/approve", operatorToken, map[string]any{"preview_id": a})
	id := m["motion_id"].(string)
	r.robot.Emit(actuators.GoalUpdate{Actuator: "arm", GoalID: id, State: actuators.GoalActive, Progress: 0.4})
	clk.tick()
	_, st = r.do(t, "GET", "/console/api/state", operatorToken, nil)
	decode(st)
	if len(s.Motions) != 1 || s.Motions[0]["motion_id"] != id || s.Motions[0]["progress"] != 0.4 || len(s.Previews) != 1 {
		t.Fatalf("in flight: %v, previews %d", s.Motions, len(s.Previews))
	}
	r.robot.Emit(actuators.GoalUpdate{Actuator: "arm", GoalID: id, State: actuators.GoalCanceled, Text: "stopped"})
	clk.tick()
	_, st = r.do(t, "GET", "/console/api/state", operatorToken, nil)
	decode(st)
	if len(s.Motions) != 0 || len(s.Recent) != 1 || s.Recent[0]["state"] != "preempted" ||
		s.Recent[0]["confirmed_by"] != "operator" || s.Recent[0]["confirmed_via"] != bridge.ViaConsole {
		t.Fatalf("after the end: in flight %v, recent %v", s.Motions, s.Recent)
	}
}

func TestPageIsEmbeddedAndNeedsNoNetwork(t *testing.T) {
	r := newRig(t, withTokens())
	code, _ := r.do(t, "GET", "/console", "", nil)
	if code != http.StatusMovedPermanently {
		t.Fatalf("/console: %d", code)
	}
	for path, want := range map[string]string{"/console/": `id="stop"`, "/console/app.js": "api('/stop'", "/console/style.css": ".stop"} {
		req := httptest.NewRequest("GET", "http://127.0.0.1:8765"+path, nil)
		w := httptest.NewRecorder()
		r.console.ServeHTTP(w, req)
		if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), want) {
			t.Fatalf("%s: %d, missing %q", path, w.Code, want)
		}
		if csp := w.Header().Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") {
			t.Fatalf("%s: CSP %q", path, csp)
		}
	}
	err := fs.WalkDir(assets, "assets", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, _ := fs.ReadFile(assets, p)
		if strings.Contains(string(b), "http://") || strings.Contains(string(b), "https://") || strings.Contains(string(b), "//cdn") {
			t.Errorf("%s refers to another site", p)
		}
		if strings.Contains(string(b), "confirm(") || strings.Contains(string(b), "alert(") {
			t.Errorf("%s uses a blocking browser dialog", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
