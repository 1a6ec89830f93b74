package bridge

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// elicitRig is a rig whose arm is confirmed by an operator, with approvals
// by MCP elicitation enabled.
func elicitRig(t *testing.T) *rig {
	t.Helper()
	r := newRig(t)
	r.operator = true
	r.m.Approvals = &Approvals{Key: []byte("approval key"), Denials: r.store, Now: r.clock, Elicit: true}
	return r
}

// connectWith serves the rig in memory to a client with the given options
// and protocol version ("" for the SDK's newest).
func connectWith(t *testing.T, r *rig, opts *mcp.ClientOptions, version string) *mcp.ClientSession {
	t.Helper()
	front := &Front{Pipeline: r.p, Name: "actbridge", Version: "test"}
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := front.Server().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, opts).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// answering is a client whose user answers every approval request with
// action (and approve=true when accepting); asked counts the requests.
func answering(action string, asked *atomic.Int32, msgs *[]string) *mcp.ClientOptions {
	return &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		asked.Add(1)
		if msgs != nil {
			*msgs = append(*msgs, req.Params.Message)
		}
		res := &mcp.ElicitResult{Action: action}
		if action == "accept" {
			res.Content = map[string]any{"approve": true}
		}
		return res, nil
	}}
}

func toolCall(t *testing.T, cs *mcp.ClientSession, p *mcp.CallToolParams) (*mcp.CallToolResult, map[string]any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, p)
	if err != nil {
		t.Fatalf("%s: %v", p.Name, err)
	}
	b, _ := json.Marshal(res.StructuredContent)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return res, m
}

func armPreview(t *testing.T, cs *mcp.ClientSession, j1 float64) string {
	t.Helper()
	res, m := toolCall(t, cs, &mcp.CallToolParams{Name: "arm_move_joints", Arguments: map[string]any{"positions": map[string]any{"j1": j1}}})
	if res.IsError {
		t.Fatalf("preview: %v", m)
	}
	return m["preview_id"].(string)
}

func TestElicitedApprovalRunsTheMotion(t *testing.T) {
	for _, version := range []string{"", "2025-11-25"} { // the SDK's newest (client retries) and a server-side round trip
		t.Run("protocol "+version, func(t *testing.T) {
			r := elicitRig(t)
			obs := &recorder{}
			r.p.Observer = obs
			var asked atomic.Int32
			var msgs []string
			cs := connectWith(t, r, answering("accept", &asked, &msgs), version)
			id := armPreview(t, cs, 0.5)
			res, m := toolCall(t, cs, &mcp.CallToolParams{Name: "motion_confirm", Arguments: map[string]any{"preview_id": id}})
			if res.IsError || m["state"] != "sent" {
				t.Fatalf("confirm after approval: %v", m)
			}
			if asked.Load() != 1 || r.robot.GoalsSent() != 1 {
				t.Fatalf("asked %d times, %d goals sent; want 1 and 1", asked.Load(), r.robot.GoalsSent())
			}
			if !strings.Contains(msgs[0], "j1 0.000 → 0.500") || !strings.Contains(msgs[0], id) {
				t.Fatalf("the user was not told what moves: %q", msgs[0])
			}
			// The operator confirmed, not the planner whose call carried the answer.
			mo, err := r.store.Get(m["motion_id"].(string))
			if err != nil || mo.Role != "operator" || mo.Via != ViaElicitation || m["confirmed_by"] != "operator" || m["confirmed_via"] != ViaElicitation {
				t.Fatalf("recorded confirmer %q via %q (%v), answered %v via %v; want operator via elicitation",
					mo.Role, mo.Via, err, m["confirmed_by"], m["confirmed_via"])
			}
			if note := mo.History[0].Note; note != "confirmed by operator via elicitation" {
				t.Fatalf("history says %q", note)
			}
			if rec := obs.last(t, "motion_confirm"); rec.Via != ViaElicitation || rec.Outcome != "ok" {
				t.Fatalf("the call record of the approved confirm: via %q, outcome %q", rec.Via, rec.Outcome)
			}
		})
	}
}

func TestDeclinedElicitationIsPermissionDeniedAndDeniesThePreview(t *testing.T) {
	r := elicitRig(t)
	var asked atomic.Int32
	cs := connectWith(t, r, answering("decline", &asked, nil), "")
	id := armPreview(t, cs, 0.5)
	res, m := toolCall(t, cs, &mcp.CallToolParams{Name: "motion_confirm", Arguments: map[string]any{"preview_id": id}})
	if !res.IsError || m["code"] != "permission_denied" || !strings.Contains(m["message"].(string), "declined") {
		t.Fatalf("declined: %v", m)
	}
	// The answer stands: asking again does not re-ask, the preview is denied.
	_, m = toolCall(t, cs, &mcp.CallToolParams{Name: "motion_confirm", Arguments: map[string]any{"preview_id": id}})
	if m["code"] != "permission_denied" || !strings.Contains(m["message"].(string), "denied by") {
		t.Fatalf("after a decline: %v", m)
	}
	if asked.Load() != 1 || r.robot.GoalsSent() != 0 {
		t.Fatalf("asked %d, sent %d; want 1 and 0", asked.Load(), r.robot.GoalsSent())
	}
}

func TestDismissedElicitationSendsNothing(t *testing.T) {
	r := elicitRig(t)
	var asked atomic.Int32
	cs := connectWith(t, r, answering("cancel", &asked, nil), "")
	id := armPreview(t, cs, 0.5)
	_, m := toolCall(t, cs, &mcp.CallToolParams{Name: "motion_confirm", Arguments: map[string]any{"preview_id": id}})
	if m["code"] != "permission_denied" || r.robot.GoalsSent() != 0 {
		t.Fatalf("dismissed: %v, %d goals", m, r.robot.GoalsSent())
	}
	if _, denied, _ := r.store.Denied(strings.Split(id, ".")[1]); denied {
		t.Fatal("a dismissed request denied the preview")
	}
}

func TestClientThatCannotAskGetsTheConsoleAddress(t *testing.T) {
	for _, version := range []string{"", "2025-11-25"} {
		t.Run("protocol "+version, func(t *testing.T) {
			r := elicitRig(t)
			cs := connectWith(t, r, nil, version)
			id := armPreview(t, cs, 0.5)
			_, m := toolCall(t, cs, &mcp.CallToolParams{Name: "motion_confirm", Arguments: map[string]any{"preview_id": id}})
			if m["code"] != "permission_denied" || !strings.Contains(m["hint"].(string), r.m.ConsoleURL) {
				t.Fatalf("no elicitation capability: %v", m)
			}
			if r.robot.GoalsSent() != 0 {
				t.Fatal("a goal was sent")
			}
		})
	}
}

func TestApprovalOfOnePreviewCannotRunAnother(t *testing.T) {
	r := elicitRig(t)
	// The client answers by hand, so it can replay A's round on B.
	cs := connectWith(t, r, &mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
	}, MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true}}, "")
	a := armPreview(t, cs, 0.5)
	b := armPreview(t, cs, -0.5)
	res, _ := toolCall(t, cs, &mcp.CallToolParams{Name: "motion_confirm", Arguments: map[string]any{"preview_id": a}})
	if !res.NeedsInput() || len(res.InputRequests) != 1 || res.RequestState == "" {
		t.Fatalf("first round of A: %+v", res)
	}
	answers := mcp.InputResponseMap{}
	for k := range res.InputRequests {
		answers[k] = &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}
	}
	// A's answer and state sent with B, also under B's request id.
	bUUID := strings.Split(b, ".")[1]
	answers["operator_approval_"+bUUID] = &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}
	_, m := toolCall(t, cs, &mcp.CallToolParams{Name: "motion_confirm", Arguments: map[string]any{"preview_id": b},
		InputResponses: answers, RequestState: res.RequestState})
	if m["code"] != "permission_denied" || m["rule"] != "approval_bound_to_preview" {
		t.Fatalf("B with A's approval: %v", m)
	}
	// An altered state is refused the same way.
	_, m = toolCall(t, cs, &mcp.CallToolParams{Name: "motion_confirm", Arguments: map[string]any{"preview_id": a},
		InputResponses: answers, RequestState: res.RequestState[:len(res.RequestState)-2] + "AA"})
	if m["code"] != "permission_denied" || r.robot.GoalsSent() != 0 {
		t.Fatalf("altered state: %v, %d goals", m, r.robot.GoalsSent())
	}
	// A with its own round runs A, and only A.
	_, m = toolCall(t, cs, &mcp.CallToolParams{Name: "motion_confirm", Arguments: map[string]any{"preview_id": a},
		InputResponses: answers, RequestState: res.RequestState})
	if m["state"] != "sent" || r.robot.GoalsSent() != 1 {
		t.Fatalf("A with its approval: %v, %d goals", m, r.robot.GoalsSent())
	}
}

func TestApprovalTokensBindPreviewDecisionAndExpiry(t *testing.T) {
	a := &Approvals{Key: []byte("k")}
	now := time.Unix(1000, 0)
	tok := a.sign(decisionApprove, "A", now.Add(time.Minute))
	cases := map[string]error{
		"same preview":       a.verify(tok, decisionApprove, "A", now),
		"other preview":      a.verify(tok, decisionApprove, "B", now),
		"other decision":     a.verify(tok, decisionAsk, "A", now),
		"expired":            a.verify(tok, decisionApprove, "A", now.Add(time.Minute)),
		"other key":          (&Approvals{Key: []byte("j")}).verify(tok, decisionApprove, "A", now),
		"preview swapped in": a.verify(strings.Replace(tok, ".A.", ".B.", 1), decisionApprove, "B", now),
	}
	for name, err := range cases {
		if (err == nil) != (name == "same preview") {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestOperatorDenialRefusesEveryConfirm(t *testing.T) {
	r := elicitRig(t)
	m, e := r.call(t, RolePlanner, "arm_move_joints", `{"positions":{"j1":0.3}}`)
	if e != nil {
		t.Fatal(e)
	}
	id := m["preview_id"].(string)
	if err := r.store.DenyPreview(context.Background(), strings.Split(id, ".")[1], "operator at the console"); err != nil {
		t.Fatal(err)
	}
	for _, role := range []Role{RolePlanner, RoleOperator} {
		_, e := r.call(t, role, "motion_confirm", `{"preview_id":"`+id+`"}`)
		if e == nil || e.Code != CodePermissionDenied || !strings.Contains(e.Message, "operator at the console") {
			t.Fatalf("%s confirming a denied preview: %v", role, e)
		}
	}
	if r.robot.GoalsSent() != 0 {
		t.Fatal("a denied preview reached the robot")
	}
}

func TestElicitationWorksOverStreamableHTTP(t *testing.T) {
	r := elicitRig(t)
	front := &Front{Pipeline: r.p, Name: "actbridge", Version: "test"}
	srv := httptest.NewServer(front.HTTPHandler(Tokens{OpenPlanner: true}, 1<<20))
	t.Cleanup(srv.Close)
	var asked atomic.Int32
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, answering("accept", &asked, nil)).
		Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	id := armPreview(t, cs, 0.5)
	res, m := toolCall(t, cs, &mcp.CallToolParams{Name: "motion_confirm", Arguments: map[string]any{"preview_id": id}})
	if res.IsError || m["state"] != "sent" || asked.Load() != 1 || r.robot.GoalsSent() != 1 {
		t.Fatalf("over HTTP: %v, asked %d, sent %d", m, asked.Load(), r.robot.GoalsSent())
	}
}

// Unless the config says so (Approvals.Elicit, operator_via_elicitation),
// an MCP elicitation answer is not the operator's confirmation: the client
// is never asked, and a confirm from it is refused as the planner's.
func TestElicitationIsNotTheOperatorUnlessConfigured(t *testing.T) {
	r := elicitRig(t)
	r.m.Approvals.Elicit = false
	var asked atomic.Int32
	cs := connectWith(t, r, answering("accept", &asked, nil), "")
	id := armPreview(t, cs, 0.5)
	res, m := toolCall(t, cs, &mcp.CallToolParams{Name: "motion_confirm", Arguments: map[string]any{"preview_id": id}})
	if !res.IsError || m["code"] != "permission_denied" || m["rule"] != "operator_confirms" {
		t.Fatalf("confirm with elicitation off: %v", m)
	}
	if asked.Load() != 0 || r.robot.GoalsSent() != 0 {
		t.Fatalf("asked %d times, %d goals sent; want neither", asked.Load(), r.robot.GoalsSent())
	}
}
