package test

import (
	"bytes"
	"context"
	"encoding/json"
	"image/jpeg"
	"image/png"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/actbridge/actbridge/allowlist"

	"github.com/actbridge/actbridge/test/bridgetest"
)

// accessConfig is sim.yaml with a service_call budget small enough to run
// out of within the test.
func accessConfig(t *testing.T) string {
	t.Helper()
	return simConfig(t, ros1, map[string]string{"    service_call: 120": "    service_call: 12"})
}

// accessCalls is the sim's count of calls per access service, and its LED.
func (w *world) accessCalls() (map[string]int, bool) {
	w.t.Helper()
	var out struct {
		Calls map[string]int `json:"calls"`
		LED   bool           `json:"led"`
	}
	if err := json.Unmarshal([]byte(w.trigger("/simrobot/access_calls")), &out); err != nil {
		w.t.Fatal(err)
	}
	return out.Calls, out.LED
}

func totalCalls(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

func refused(t *testing.T, cs *mcp.ClientSession, tool string, args any, code, rule string) map[string]any {
	t.Helper()
	out, isErr := bridgetest.Call(t, cs, tool, args)
	if !isErr || out["code"] != code || (rule != "" && out["rule"] != rule) {
		t.Fatalf("%s %v: got %v, want %s %s", tool, args, out, code, rule)
	}
	return out
}

func TestGuardedROSAccessAgainstTheSim(t *testing.T) {
	w := newWorld(t, worldOpts{config: accessConfig(t)})
	cs := w.mcpClient("")
	node := w.rosNode()

	t.Run("allowlist refusals reach nothing", func(t *testing.T) {
		goals, calls := w.goalsReceived(), totalCalls(first(w.accessCalls()))
		e := refused(t, cs, "service_call", map[string]any{"service": "/simrobot/power_off"}, "permission_denied", "service_allowed")
		if e["retryable"] != false || !strings.Contains(e["expected"].(string), "/simrobot/status") {
			t.Fatalf("refusal does not say what is allowed: %v", e)
		}
		refused(t, cs, "service_call", map[string]any{"service": "/simrobot/clear_faults"}, "permission_denied", "service_allowed")
		refused(t, cs, "service_call", map[string]any{"service": "/simrobot/led/set", "request": map[string]any{}}, "invalid_argument", "")
		refused(t, cs, "params_set", map[string]any{"name": "/simrobot/config/serial", "text": "EVIL"}, "permission_denied", "param_set_allowed")
		refused(t, cs, "params_set", map[string]any{"name": "/simrobot/led/brightness", "number": 2.0}, "invalid_argument", "param_in_range")
		refused(t, cs, "params_set", map[string]any{"name": "/simrobot/led/brightness", "boolean": true}, "invalid_argument", "param_type")
		refused(t, cs, "params_get", map[string]any{"name": "/robot_description"}, "permission_denied", "param_read_allowed")
		refused(t, cs, "camera_snapshot", map[string]any{"topic": "/cmd_vel"}, "permission_denied", "topic_allowed")
		refused(t, cs, "topic_sample", map[string]any{"topic": "/cmd_vel"}, "permission_denied", "topic_allowed")
		if got := totalCalls(first(w.accessCalls())); got != calls {
			t.Fatalf("refused calls reached the sim's services: %d → %d", calls, got)
		}
		if s, err := node.ParamGetString("/simrobot/config/serial"); err != nil || s != "SIM-0001" {
			t.Fatalf("serial now %q %v", s, err)
		}
		if v, err := node.ParamGetFloat64("/simrobot/led/brightness"); err != nil || v != 0.5 {
			t.Fatalf("brightness now %v %v", v, err)
		}
		if w.goalsReceived() != goals {
			t.Fatal("a refusal sent a goal")
		}
		desc := bridgetest.MustCall(t, cs, "robot_describe", map[string]any{})
		access := desc["access"].(map[string]any)
		if len(access["services"].([]any)) != 3 || len(access["topics"].([]any)) == 0 {
			t.Fatalf("robot_describe does not show the allowlists: %v", access)
		}
	})

	t.Run("service calls round trip, irreversible only through motion_confirm", func(t *testing.T) {
		list := bridgetest.MustCall(t, cs, "services_list", map[string]any{})
		var names []string
		for _, it := range list["items"].([]any) {
			m := it.(map[string]any)
			names = append(names, m["name"].(string))
			if m["callable"] != true {
				t.Fatalf("listed as not callable: %v", m)
			}
		}
		if strings.Join(names, " ") != "/simrobot/led/set /simrobot/reset_odometry /simrobot/status" {
			t.Fatalf("services_list: %v", names)
		}
		st := bridgetest.MustCall(t, cs, "service_call", map[string]any{"service": "/simrobot/status"})
		resp := st["response"].(map[string]any)
		if st["type"] != "std_srvs/Trigger" || resp["success"] != true || !strings.HasPrefix(resp["message"].(string), "ok: base at") {
			t.Fatalf("status: %v", st)
		}
		led := bridgetest.MustCall(t, cs, "service_call", map[string]any{"service": "/simrobot/led/set", "request": map[string]any{"data": true}})
		if led["response"].(map[string]any)["message"] != "led on" {
			t.Fatalf("led: %v", led)
		}
		calls, on := w.accessCalls()
		if calls["/simrobot/status"] != 1 || calls["/simrobot/led/set"] != 1 || !on {
			t.Fatalf("sim saw %v led %v", calls, on)
		}
		pv := bridgetest.MustCall(t, cs, "service_call", map[string]any{"service": "/simrobot/reset_odometry"})
		if pv["preview_id"] == nil || pv["confirm_with"] != "motion_confirm" {
			t.Fatalf("no preview: %v", pv)
		}
		if calls, _ := w.accessCalls(); calls["/simrobot/reset_odometry"] != 0 {
			t.Fatal("the preview called the service")
		}
		c := bridgetest.MustCall(t, cs, "motion_confirm", map[string]any{"preview_id": pv["preview_id"]})
		again := bridgetest.MustCall(t, cs, "motion_confirm", map[string]any{"preview_id": pv["preview_id"]})
		if c["state"] != "succeeded" || again["replay"] != true || again["motion_id"] != c["motion_id"] {
			t.Fatalf("confirm %v, retry %v", c, again)
		}
		if calls, _ := w.accessCalls(); calls["/simrobot/reset_odometry"] != 1 {
			t.Fatalf("reset_odometry called %d times, want 1", calls["/simrobot/reset_odometry"])
		}
	})

	t.Run("a parameter set and undone", func(t *testing.T) {
		set := bridgetest.MustCall(t, cs, "params_set", map[string]any{"name": "/simrobot/led/brightness", "number": 0.8, "idempotency_key": "dim-1"})
		if set["previous"] != 0.5 || set["value"] != 0.8 {
			t.Fatalf("%v", set)
		}
		if v, _ := node.ParamGetFloat64("/simrobot/led/brightness"); v != 0.8 {
			t.Fatalf("master has %v", v)
		}
		replay := bridgetest.MustCall(t, cs, "params_set", map[string]any{"name": "/simrobot/led/brightness", "number": 0.8, "idempotency_key": "dim-1"})
		if replay["previous"] != 0.5 {
			t.Fatalf("a retry with the same key did not return the first result: %v", replay)
		}
		bridgetest.MustCall(t, cs, "params_set", set["undo"])
		if v, _ := node.ParamGetFloat64("/simrobot/led/brightness"); v != 0.5 {
			t.Fatalf("after undo the master has %v", v)
		}
		got := bridgetest.MustCall(t, cs, "params_get", map[string]any{"prefix": "/simrobot/led"})
		if got["total"] != 2.0 {
			t.Fatalf("params_get: %v", got)
		}
	})

	t.Run("camera snapshot decodes within the byte budget", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		for _, topic := range []string{"/camera/image_raw", "/camera/image_raw/compressed"} {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "camera_snapshot", Arguments: map[string]any{"topic": topic, "max_bytes": 6000}})
			if err != nil || res.IsError {
				t.Fatalf("%s: %v %+v", topic, err, res)
			}
			var img []byte
			for _, c := range res.Content {
				if ic, ok := c.(*mcp.ImageContent); ok && ic.MIMEType == "image/jpeg" {
					img = ic.Data
				}
			}
			if img == nil || len(img) > 6000 {
				t.Fatalf("%s: image content of %d bytes", topic, len(img))
			}
			pic, err := jpeg.Decode(bytes.NewReader(img))
			if err != nil || pic.Bounds().Dx() > 320 {
				t.Fatalf("%s: %v %v", topic, err, pic.Bounds())
			}
			var out map[string]any
			b, _ := json.Marshal(res.StructuredContent)
			_ = json.Unmarshal(b, &out)
			fh, err := os.Open(out["path"].(string))
			if err != nil {
				t.Fatal(err)
			}
			var w, h int
			if strings.HasSuffix(out["path"].(string), ".png") {
				cfg, err := png.DecodeConfig(fh)
				w, h = cfg.Width, cfg.Height
				if err != nil {
					t.Fatal(err)
				}
			} else {
				cfg, err := jpeg.DecodeConfig(fh)
				w, h = cfg.Width, cfg.Height
				if err != nil {
					t.Fatal(err)
				}
			}
			fh.Close()
			if w != 320 || h != 240 {
				t.Fatalf("%s: full frame %dx%d", topic, w, h)
			}
		}
	})

	t.Run("a subscribed client hears the motion finish", func(t *testing.T) {
		var mu sync.Mutex
		events := map[string]string{} // motion id → last state notified
		heard := make(chan struct{}, 64)
		client := mcp.NewClient(&mcp.Implementation{Name: "e2e-events", Version: "1"}, &mcp.ClientOptions{
			ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
				e, _ := req.Params.Meta["event"].(map[string]any)
				if req.Params.URI == "actbridge://events" && e["kind"] == "motion" {
					mu.Lock()
					events[e["subject"].(string)] = e["state"].(string)
					mu.Unlock()
					select {
					case heard <- struct{}{}:
					default:
					}
				}
			}})
		ctx := context.Background()
		// The 2025-11-25 protocol subscribes with a request the bridge
		// answers, so the subscription is in place when Subscribe returns.
		sub, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: "http://" + w.addr + "/mcp"}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			t.Fatal(err)
		}
		defer sub.Close()
		if err := sub.Subscribe(ctx, &mcp.SubscribeParams{URI: "actbridge://events"}); err != nil {
			t.Fatal(err)
		}
		pv := bridgetest.MustCall(t, cs, "gripper_move", map[string]any{"position": 0.03})
		c := bridgetest.MustCall(t, cs, "motion_confirm", map[string]any{"preview_id": pv["preview_id"]})
		id := c["motion_id"].(string)
		deadline := time.After(30 * time.Second)
		for {
			mu.Lock()
			state := events[id]
			mu.Unlock()
			if state == "succeeded" {
				break
			}
			select {
			case <-heard:
			case <-deadline:
				t.Fatalf("no motion-finished notification for %s (last: %q)", id, state)
			}
		}
		page := bridgetest.MustCall(t, cs, "events_read", map[string]any{"kinds": []string{"motion"}})
		found := false
		for _, it := range page["items"].([]any) {
			e := it.(map[string]any)
			found = found || (e["subject"] == id && e["state"] == "succeeded")
		}
		if !found || page["next_cursor"] == "" {
			t.Fatalf("events_read: %v", page)
		}
	})

	t.Run("a watched topic crossing its bound is an event", func(t *testing.T) {
		cursor := bridgetest.MustCall(t, cs, "events_read", map[string]any{"kinds": []string{"condition"}})["next_cursor"]
		pv := bridgetest.MustCall(t, cs, "base_drive", map[string]any{"linear": 0.5, "duration_s": 5.0})
		bridgetest.MustCall(t, cs, "motion_confirm", map[string]any{"preview_id": pv["preview_id"]})
		deadline := time.Now().Add(20 * time.Second)
		for {
			page := bridgetest.MustCall(t, cs, "events_read", map[string]any{"cursor": cursor, "kinds": []string{"condition"}})
			for _, it := range page["items"].([]any) {
				e := it.(map[string]any)
				if e["subject"] == "base_far_from_origin" && e["state"] == "entered" {
					if x := e["detail"].(map[string]any)["value"].(float64); x <= 2 {
						t.Fatalf("entered at x=%v", x)
					}
					return
				}
			}
			cursor = page["next_cursor"]
			if time.Now().After(deadline) {
				t.Fatal("no condition event while the base drove past x=2")
			}
			time.Sleep(200 * time.Millisecond)
		}
	})

	t.Run("rate limit refuses with the wait and sends nothing", func(t *testing.T) {
		var e map[string]any
		for i := 0; i < 20 && e == nil; i++ { // 12 per minute: the bucket runs dry well within 20 calls
			before := first(w.accessCalls())["/simrobot/status"]
			out, isErr := bridgetest.Call(t, cs, "service_call", map[string]any{"service": "/simrobot/status"})
			after := first(w.accessCalls())["/simrobot/status"]
			switch {
			case isErr && after != before:
				t.Fatalf("a refused call reached the service: %d → %d (%v)", before, after, out)
			case isErr:
				e = out
			case after != before+1:
				t.Fatalf("an allowed call reached the service %d times", after-before)
			}
		}
		if e == nil || e["code"] != "busy" || e["retryable"] != true || e["rule"] != "rate_limit" {
			t.Fatalf("no rate-limit refusal: %v", e)
		}
		wait := e["details"].(map[string]any)["retry_after_s"].(float64)
		if wait <= 0 || wait > 5.1 || !strings.Contains(e["release"].(string), "allowed in") {
			t.Fatalf("refusal does not say when: %v", e)
		}
		// robot_stop is never limited
		bridgetest.MustCall(t, cs, "robot_stop", map[string]any{"reason": "end of test"})
	})
}

func first[A, B any](a A, _ B) A { return a }

// discovered walks one discovery listing to its end: every name, and the
// names the operator's listing marks as out of the planner's reach.
func discovered(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) (names []string, hidden map[string]bool) {
	t.Helper()
	hidden = map[string]bool{}
	cursor := ""
	for range 50 {
		a := map[string]any{"limit": 100}
		for k, v := range args {
			a[k] = v
		}
		if cursor != "" {
			a["cursor"] = cursor
		}
		p := bridgetest.MustCall(t, cs, tool, a)
		for _, it := range p["items"].([]any) {
			m := it.(map[string]any)
			names = append(names, m["name"].(string))
			if m["planner_allowed"] == false {
				hidden[m["name"].(string)] = true
			}
		}
		if cursor, _ = p["next_cursor"].(string); cursor == "" {
			return names, hidden
		}
	}
	t.Fatalf("%s: no last page", tool)
	return nil, nil
}

func TestDiscoveryShowsThePlannerOnlyAllowlistedNamesAndTheOperatorAllMarked(t *testing.T) {
	w := newWorld(t, worldOpts{bridgeEnv: []string{"ACTBRIDGE_PLANNER_TOKEN=" + plannerToken, "ACTBRIDGE_OPERATOR_TOKEN=" + operatorToken}})
	planner, operator := w.mcpClient(plannerToken), w.mcpClient(operatorToken)
	for _, c := range []struct {
		tool    string
		args    map[string]any
		reach   func(string) bool // the sim config's allowlist for the tool
		outside string            // a name of the demo graph the planner may not reach
		inReach string            // one it may
	}{
		{"topics_list", nil, func(n string) bool {
			_, ok := allowlist.Globs{"/joint_states", "/odom", "/tf", "/arm_controller/state", "/*/**/status", "/camera/**"}.Match(n)
			return ok
		}, "/cmd_vel", "/joint_states"},
		{"services_list", nil, func(n string) bool {
			return n == "/simrobot/status" || n == "/simrobot/led/set" || n == "/simrobot/reset_odometry"
		}, "/simrobot/power_off", "/simrobot/status"},
		{"params_get", map[string]any{"prefix": "/r"}, func(n string) bool {
			return allowlist.Matches("/robot_description_planning/**", n)
		}, "/robot_description", "/robot_description_planning/joint_limits/elbow_joint/max_velocity"},
	} {
		t.Run(c.tool, func(t *testing.T) {
			seen, hidden := discovered(t, planner, c.tool, c.args)
			all, opHidden := discovered(t, operator, c.tool, c.args)
			if len(hidden) != 0 {
				t.Fatalf("the planner's listing carries marks: %v", hidden)
			}
			for _, n := range seen {
				if !c.reach(n) {
					t.Fatalf("the planner was shown %s, outside its allowlist (all: %v)", n, seen)
				}
			}
			var allowed []string
			for _, n := range all {
				if c.reach(n) == opHidden[n] {
					t.Fatalf("operator: %s marked planner_allowed=%v", n, !opHidden[n])
				}
				if !opHidden[n] {
					allowed = append(allowed, n)
				}
			}
			if strings.Join(allowed, " ") != strings.Join(seen, " ") {
				t.Fatalf("the operator's allowed names %v differ from the planner's %v", allowed, seen)
			}
			if !opHidden[c.outside] || !slices.Contains(seen, c.inReach) {
				t.Fatalf("want %s shown to the operator as out of reach and %s to the planner: planner %v, operator hidden %v", c.outside, c.inReach, seen, opHidden)
			}
		})
	}
}
