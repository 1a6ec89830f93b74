package bridgetest

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/actbridge/actbridge/bridge"
)

// CallTimeout bounds one tool call of Call and MustCall.
const CallTimeout = 60 * time.Second

// Client connects an MCP client to the bridge over streamable HTTP, sending
// token as a bearer token unless it is empty, and closes it when the test
// ends.
func (b *Bridge) Client(t testing.TB, token string) *mcp.ClientSession {
	t.Helper()
	return Connect(t, b.Addr, token, nil)
}

// Connect is Client for a bridge at addr, with the client's options (an
// elicitation handler, say; nil for none).
func Connect(t testing.TB, addr, token string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	var hc *http.Client
	if token != "" {
		hc = &http.Client{Transport: bearer(token)}
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "bridgetest", Version: "1"}, opts)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: "http://" + addr + "/mcp", HTTPClient: hc}, nil)
	if err != nil {
		t.Fatalf("mcp connect to %s: %v", addr, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

type bearer string

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

// Try calls tool and returns its structured content and whether the tool
// answered an error; err is a failure to get any answer (a cut
// connection, ctx ended), for calls a test expects may not return.
func Try(ctx context.Context, cs *mcp.ClientSession, tool string, args any) (out map[string]any, isErr bool, err error) {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return nil, false, err
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return nil, false, err
	}
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, false, err
	}
	return out, res.IsError, nil
}

// Call runs tool (bounded by CallTimeout) and returns its structured
// content and whether the tool answered an error; no answer at all fails t.
func Call(t testing.TB, cs *mcp.ClientSession, tool string, args any) (map[string]any, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), CallTimeout)
	defer cancel()
	out, isErr, err := Try(ctx, cs, tool, args)
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return out, isErr
}

// MustCall is Call for a call that must succeed: a tool error fails t.
func MustCall(t testing.TB, cs *mcp.ClientSession, tool string, args any) map[string]any {
	t.Helper()
	out, isErr := Call(t, cs, tool, args)
	if isErr {
		t.Fatalf("%s(%v) failed: %v", tool, args, out)
	}
	return out
}

// ResetUncleanExit checks that the bridge behind operator (an operator's
// session) started latched because the run before it died, and releases
// that latch as an operator who checked the robot does; it returns the
// event it reset.
func ResetUncleanExit(t testing.TB, operator *mcp.ClientSession) float64 {
	t.Helper()
	es, _ := MustCall(t, operator, "robot_describe", map[string]any{})["estop"].(map[string]any)
	reason, _ := es["reason"].(string)
	event, _ := es["event"].(float64)
	if es["latched"] != true || !strings.HasPrefix(reason, bridge.UncleanExitReason) {
		t.Fatalf("a bridge restarted after its last run died: e-stop %v, want latched with %q", es, bridge.UncleanExitReason)
	}
	if out := MustCall(t, operator, "estop_reset", map[string]any{"event": event}); out["latched"] != false {
		t.Fatalf("estop_reset of the unclean exit's event %v: %v", event, out)
	}
	return event
}
