package bridge

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/actbridge/actbridge/actuators"
)

// connect serves the rig over an in-memory MCP transport and returns a
// client session.
func connect(t *testing.T, r *rig, lazy bool) *mcp.ClientSession {
	t.Helper()
	front := &Front{Pipeline: r.p, Lazy: lazy, Name: "actbridge", Version: "test"}
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := front.Server().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// validateOutput checks structuredContent against the tool's advertised
// outputSchema with an independent validator, as TypeScript-SDK clients do
// even when isError is true.
func validateOutput(t *testing.T, tool *mcp.Tool, res *mcp.CallToolResult) {
	t.Helper()
	b, _ := json.Marshal(tool.OutputSchema)
	var s jsonschema.Schema
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("%s: outputSchema is not a JSON schema: %v", tool.Name, err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		t.Fatalf("%s: outputSchema does not resolve: %v", tool.Name, err)
	}
	var v any
	sb, _ := json.Marshal(res.StructuredContent)
	_ = json.Unmarshal(sb, &v)
	if err := rs.Validate(v); err != nil {
		t.Fatalf("%s: structuredContent %s does not match outputSchema: %v", tool.Name, sb, err)
	}
}

func TestEveryResultAndErrorFitsTheAdvertisedOutputSchema(t *testing.T) {
	r := newRig(t)
	cs := connect(t, r, false)
	ctx := context.Background()
	lt, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	tools := map[string]*mcp.Tool{}
	for _, tl := range lt.Tools {
		tools[tl.Name] = tl
	}
	if len(tools) != len(r.p.Registry.Tools()) {
		t.Fatalf("listed %d of %d tools", len(tools), len(r.p.Registry.Tools()))
	}
	pid := preview(t, r, "arm_move_joints", `{"positions":{"j1":0.3}}`)
	calls := []struct {
		tool    string
		args    string
		isError bool
	}{
		{"robot_describe", `{}`, false},
		{"joints_read", `{}`, false},
		{"joints_read", `{"joints":["nope"]}`, true},
		{"topics_list", `{"limit":1}`, false},
		{"topics_list", `{"cursor":"bad"}`, true},
		{"topic_sample", `{"topic":"/odom","n":2}`, false},
		{"arm_move_joints", `{"positions":{"j1":1}}`, false},
		{"arm_move_joints", `{"positions":{"j1":1.5},"duration_s":0.2}`, true},
		{"arm_move_joints", `{"positions":{"bogus":1}}`, true},
		{"arm_move_joints", `{"extra":1}`, true},
		{"arm_follow_trajectory", `{"joints":["j1"],"points":[{"positions":[0.2],"velocities":[0],"time_from_start":2}]}`, false},
		{"gripper_move", `{"position":0.04}`, false},
		{"base_navigate", `{"x":1,"y":0}`, false},
		{"base_navigate", `{"x":50,"y":0}`, true},
		{"base_drive", `{"linear":0.1,"duration_s":1}`, false},
		{"motion_confirm", `{"preview_id":"` + pid + `"}`, false},
		{"motion_confirm", `{"preview_id":"nonsense"}`, true},
		{"motion_status", `{"motion_id":"00000000-0000-0000-0000-000000000000"}`, true},
		{"motion_cancel", `{"motion_id":"00000000-0000-0000-0000-000000000000"}`, true},
		{"motions_list", `{}`, false},
		{"speed_scale_set", `{"scale":0.5,"idempotency_key":"k"}`, false},
		{"speed_scale_set", `{"scale":2}`, true},
		{"estop_reset", `{"event":1}`, true},
		{"tools_search", `{"query":"open the hand"}`, false},
		{"tools_invoke", `{"name":"joints_read","arguments":{}}`, false},
		{"tools_invoke", `{"name":"joints_reed","arguments":{}}`, true},
		{"tools_batch", `{"calls":[{"tool":"joints_read","arguments":{}},{"tool":"nope","arguments":{}}]}`, false},
		{"output_read", `{"path":"/etc/passwd"}`, true},
		{"robot_stop", `{"reason":"test"}`, false},
		{"arm_move_joints", `{"positions":{"j1":1}}`, true}, // e-stop latched
	}
	for _, c := range calls {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: json.RawMessage(c.args)})
		if err != nil {
			t.Fatalf("%s %s: protocol error %v", c.tool, c.args, err)
		}
		if res.IsError != c.isError {
			t.Fatalf("%s %s: isError=%v, want %v: %v", c.tool, c.args, res.IsError, c.isError, res.StructuredContent)
		}
		validateOutput(t, tools[c.tool], res)
		if res.IsError {
			m := res.StructuredContent.(map[string]any)
			if _, ok := m["code"].(string); !ok {
				t.Fatalf("%s: error without code: %v", c.tool, m)
			}
			if _, ok := m["retryable"].(bool); !ok {
				t.Fatalf("%s: error without retryable: %v", c.tool, m)
			}
		}
	}
	if r.robot.GoalsSent() != 1 {
		t.Fatalf("goals sent %d, want 1 (the one confirm)", r.robot.GoalsSent())
	}
}

func TestLazyModeListsCoreToolsAndInvokeReachesTheRest(t *testing.T) {
	r := newRig(t)
	r.p.Registry.SetCore("tools_search", "tools_invoke", "tools_batch", "robot_stop")
	cs := connect(t, r, true)
	ctx := context.Background()
	lt, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(lt.Tools) != 4 {
		t.Fatalf("lazy list has %d tools", len(lt.Tools))
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "tools_search", Arguments: map[string]any{"query": "open the hand"}})
	if err != nil || res.IsError {
		t.Fatalf("%v %v", err, res)
	}
	groups := res.StructuredContent.(map[string]any)["groups"].([]any)
	if groups[0].(map[string]any)["group"] != "gripper" {
		t.Fatalf("first group %v", groups[0])
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "tools_invoke", Arguments: map[string]any{"name": "gripper_move", "arguments": map[string]any{"position": 0.03}}})
	if err != nil || res.IsError {
		t.Fatalf("%v %+v", err, res.StructuredContent)
	}
	if _, ok := res.StructuredContent.(map[string]any)["preview_id"]; !ok {
		t.Fatalf("%v", res.StructuredContent)
	}
}

func TestToolListIsIdenticalOnEveryConnection(t *testing.T) {
	r := newRig(t)
	front := &Front{Pipeline: r.p, Name: "actbridge", Version: "test"}
	var lists []string
	for i := 0; i < 2; i++ {
		ct, st := mcp.NewInMemoryTransports()
		ss, err := front.Server().Connect(context.Background(), st, nil)
		if err != nil {
			t.Fatal(err)
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(context.Background(), ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		lt, _ := cs.ListTools(context.Background(), nil)
		b, _ := json.Marshal(lt.Tools)
		lists = append(lists, string(b))
		cs.Close()
		ss.Close()
	}
	if lists[0] != lists[1] {
		t.Fatal("tools/list differs between connections")
	}
}

func TestMotionStatusWaitSendsProgressNotificationsFromFeedback(t *testing.T) {
	r := newRig(t)
	got := make(chan float64, 16)
	front := &Front{Pipeline: r.p, Name: "actbridge", Version: "test"}
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := front.Server().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			got <- req.Params.Progress
		}})
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	id := preview(t, r, "arm_move_joints", `{"positions":{"j1":0.4}}`)
	c, e := r.call(t, RolePlanner, "motion_confirm", `{"preview_id":"`+id+`"}`)
	if e != nil {
		t.Fatal(e)
	}
	mid := c["motion_id"].(string)
	go func() {
		time.Sleep(50 * time.Millisecond)
		r.robot.Emit(actuators.GoalUpdate{Actuator: "arm", GoalID: mid, State: actuators.GoalActive, Progress: 0.25})
		time.Sleep(50 * time.Millisecond)
		r.robot.Emit(actuators.GoalUpdate{Actuator: "arm", GoalID: mid, State: actuators.GoalActive, Progress: 0.5})
	}()
	params := &mcp.CallToolParams{Name: "motion_status", Arguments: map[string]any{"motion_id": mid, "wait_s": 0.5}}
	params.SetProgressToken("p1")
	// The first call returns at the sent → active change; the second waits
	// in active and sees 0.5.
	for i := 0; i < 2; i++ {
		if _, err := cs.CallTool(ctx, params); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.After(5 * time.Second)
	for {
		select {
		case p := <-got:
			if p == 0.5 {
				return
			}
		case <-deadline:
			t.Fatal("no progress notification with the feedback's progress")
		}
	}
}

// With a token configured, a request without one is nobody: only the
// loopback demo (OpenPlanner, no token configured) lets it in, and then as
// the planner, never the operator.
func TestARequestWithoutATokenIsRefusedWhereATokenIsSet(t *testing.T) {
	none, planner, operator := http.Header{}, http.Header{"Authorization": {"Bearer p"}}, http.Header{"Authorization": {"Bearer o"}}
	wrong := http.Header{"Authorization": {"Bearer x"}}
	for _, c := range []struct {
		name   string
		tokens Tokens
		h      http.Header
		role   Role
		ok     bool
	}{
		{"operator only, no token", Tokens{Operator: "o"}, none, "", false},
		{"planner only, no token", Tokens{Planner: "p"}, none, "", false},
		{"both, no token", Tokens{Planner: "p", Operator: "o"}, none, "", false},
		{"both, wrong token", Tokens{Planner: "p", Operator: "o"}, wrong, "", false},
		{"both, planner", Tokens{Planner: "p", Operator: "o"}, planner, RolePlanner, true},
		{"both, operator", Tokens{Planner: "p", Operator: "o"}, operator, RoleOperator, true},
		{"zero value", Tokens{}, none, "", false},
		{"demo, no token", Tokens{Operator: "o", OpenPlanner: true}, none, RolePlanner, true},
		{"demo, wrong token", Tokens{Operator: "o", OpenPlanner: true}, wrong, "", false},
		{"demo, operator", Tokens{Operator: "o", OpenPlanner: true}, operator, RoleOperator, true},
	} {
		if role, ok := c.tokens.RoleFor(c.h); role != c.role || ok != c.ok {
			t.Errorf("%s: %q %v, want %q %v", c.name, role, ok, c.role, c.ok)
		}
	}
}

// Over HTTP, a configured token turns a tokenless request away with 401
// before MCP sees it; the demo's tokenless planner must be on loopback.
func TestHTTPRefusesATokenlessRequestWhereATokenIsSet(t *testing.T) {
	r := newRig(t)
	for _, c := range []struct {
		tokens Tokens
		remote string
		want   int
	}{
		{Tokens{Operator: "o"}, "127.0.0.1:5000", http.StatusUnauthorized},
		{Tokens{Planner: "p", Operator: "o"}, "127.0.0.1:5000", http.StatusUnauthorized},
		{Tokens{Operator: "o", OpenPlanner: true}, "192.0.2.1:5000", http.StatusUnauthorized},
	} {
		front := &Front{Pipeline: r.p, Name: "actbridge", Version: "test"}
		req := httptest.NewRequest("POST", "http://127.0.0.1:8765/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`))
		req.RemoteAddr = c.remote
		req.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		front.HTTPHandler(c.tokens, 1<<20).ServeHTTP(w, req)
		if w.Code != c.want {
			t.Errorf("%+v from %s: %d, want %d", c.tokens, c.remote, w.Code, c.want)
		}
	}
}

// headerRoundTripper sets the request headers a test names.
type headerRoundTripper struct {
	mu sync.Mutex
	h  http.Header
}

func (t *headerRoundTripper) set(k, v string) { t.mu.Lock(); t.h.Set(k, v); t.mu.Unlock() }

func (t *headerRoundTripper) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	t.mu.Lock()
	for k, v := range t.h {
		r.Header[k] = v
	}
	t.mu.Unlock()
	return http.DefaultTransport.RoundTrip(r)
}

// Over HTTP a call's role is its own request's token, whatever the
// session began with, and a client cannot name its role in the header
// that carries it to the tool.
func TestAnHTTPCallsRoleIsItsOwnTokensNeverAHeaderItSends(t *testing.T) {
	r := newRig(t)
	front := &Front{Pipeline: r.p, Name: "actbridge", Version: "test"}
	srv := httptest.NewServer(front.HTTPHandler(Tokens{Planner: "p", Operator: "o"}, 1<<20))
	t.Cleanup(srv.Close)
	rt := &headerRoundTripper{h: http.Header{"Authorization": {"Bearer p"}, roleHeader: {string(RoleOperator)}}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).
		Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: srv.URL, HTTPClient: &http.Client{Transport: rt}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	reset := &mcp.CallToolParams{Name: "estop_reset", Arguments: map[string]any{"event": 1}}
	res, err := cs.CallTool(t.Context(), reset)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	b, _ := json.Marshal(res.StructuredContent)
	_ = json.Unmarshal(b, &m)
	if !res.IsError || m["code"] != string(CodePermissionDenied) {
		t.Fatalf("the planner's token with a forged role header: %v", m)
	}
	rt.set("Authorization", "Bearer o") // the same session, the operator's token
	if res, err = cs.CallTool(t.Context(), reset); err != nil {
		t.Fatal(err)
	}
	m = nil
	b, _ = json.Marshal(res.StructuredContent)
	_ = json.Unmarshal(b, &m)
	if m["code"] == string(CodePermissionDenied) {
		t.Fatalf("the operator's token in a planner's session: %v", m)
	}
}
