package test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/actbridge/actbridge/test/bridgetest"
)

// With the shipped default (operator_via_elicitation off) an arm under
// operator policy is not approved by the planner's client answering an
// elicitation: it is never asked, the confirm is refused and nothing moves.
// A request without a token is refused where tokens are set.
func TestOnlyTheOperatorsTokenOrConsoleApprovesWithElicitationOff(t *testing.T) {
	eachTransport(t, func(t *testing.T, tr transport) {
		cfg := simConfig(t, tr, map[string]string{"policy: planner": "policy: operator"}) // the arm
		w := newWorld(t, worldOpts{tr: tr, config: cfg,
			bridgeEnv: []string{"ACTBRIDGE_PLANNER_TOKEN=" + plannerToken, "ACTBRIDGE_OPERATOR_TOKEN=" + operatorToken}})

		resp, err := http.Post("http://"+w.addr+"/mcp", "application/json",
			strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("a request without a token: %s, want 401", resp.Status)
		}

		var asked atomic.Int32
		planner := bridgetest.Connect(t, w.addr, plannerToken, &mcp.ClientOptions{
			ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				asked.Add(1)
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
			}})
		goals := w.goalsReceived()
		pv := bridgetest.MustCall(t, planner, "arm_move_joints", map[string]any{"positions": map[string]any{"elbow_joint": -0.2}})
		out, isErr := bridgetest.Call(t, planner, "motion_confirm", map[string]any{"preview_id": pv["preview_id"]})
		if !isErr || out["code"] != "permission_denied" || out["rule"] != "operator_confirms" {
			t.Fatalf("planner's eliciting confirm: %v", out)
		}
		if asked.Load() != 0 || w.goalsReceived() != goals {
			t.Fatalf("the client was asked %d times, %d goals reached the sim", asked.Load(), w.goalsReceived()-goals)
		}
		operator := w.mcpClient(operatorToken)
		if mc := bridgetest.MustCall(t, operator, "motion_confirm", map[string]any{"preview_id": pv["preview_id"]}); mc["confirmed_by"] != "operator" {
			t.Fatalf("operator confirm: %v", mc)
		}
	})
}

// In the loopback demo (no token configured) the planner needs no token,
// but no local process is the operator without the token the bridge wrote
// to its data dir: the console refuses a tokenless e-stop reset and takes
// one with that token; MCP's estop_reset likewise.
func TestInTheLoopbackDemoOnlyTheGeneratedTokenIsTheOperator(t *testing.T) {
	eachTransport(t, func(t *testing.T, tr transport) {
		w := newWorld(t, worldOpts{tr: tr})
		planner := w.mcpClient("")
		ev := bridgetest.MustCall(t, planner, "robot_stop", map[string]any{"reason": "demo"})["estop_event"]
		reset := func(token string) int {
			req, err := http.NewRequest("POST", "http://"+w.addr+"/console/api/estop_reset", strings.NewReader(fmt.Sprintf(`{"event":%v}`, ev)))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			if token != "" {
				req.Header.Set("Authorization", "Bearer "+token)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			return resp.StatusCode
		}
		if code := reset(""); code != http.StatusForbidden {
			t.Fatalf("tokenless console reset: %d, want 403", code)
		}
		if out, isErr := bridgetest.Call(t, planner, "estop_reset", map[string]any{"event": ev}); !isErr || out["code"] != "permission_denied" {
			t.Fatalf("tokenless MCP reset: %v", out)
		}
		if code := reset(w.operatorToken()); code != http.StatusOK {
			t.Fatalf("reset with the generated operator token: %d", code)
		}
		if es := bridgetest.MustCall(t, planner, "robot_describe", map[string]any{})["estop"].(map[string]any); es["latched"] != false {
			t.Fatalf("e-stop after the operator's reset: %v", es)
		}
	})
}
