package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// clientTransport is shared by every MCP session of a world: enough idle
// connections that 64 concurrent clients never re-dial (the default keeps 2
// per host, which would measure TCP handshakes, not the bridge).
func clientTransport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns, t.MaxIdleConnsPerHost = 1024, 1024
	return t
}

type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// Client connects one MCP session over streamable HTTP, as a planner (empty
// token) or with a bearer token; it is closed when the test ends.
func (w *World) Client(token string) *mcp.ClientSession {
	tb := w.env.TB
	tb.Helper()
	cs, err := w.connect(token)
	if err != nil {
		tb.Fatalf("mcp connect: %v", err)
	}
	w.onClose(func() { _ = cs.Close() })
	return cs
}

// httpTransport is every bench client's transport, stamped by w.wire.
func (w *World) httpTransport() *http.Transport {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.transport == nil {
		w.transport = stampedTransport(&w.wire)
	}
	return w.transport
}

func (w *World) connect(token string) (*mcp.ClientSession, error) {
	var rt http.RoundTripper = w.httpTransport()
	if token != "" {
		rt = bearer{token, rt}
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "actbridge-bench", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: "http://" + w.Addr + "/mcp", HTTPClient: &http.Client{Transport: rt}}, nil)
}

// call runs one tool and returns its structured content; a tool error
// (isError) is returned as an error carrying that content.
func call(cs *mcp.ClientSession, tool string, args any) (map[string]any, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", tool, err)
	}
	b, _ := json.Marshal(res.StructuredContent)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	if res.IsError {
		return m, fmt.Errorf("%s failed: %s", tool, b)
	}
	return m, nil
}

// toolCaller is an MCP client as the latency rows use it: the Go SDK's
// session (sdkCaller) or the lean client.
type toolCaller interface {
	callTool(tool string, args map[string]any) (map[string]any, error)
}

// benchClient is one client the latency rows are measured with.
type benchClient struct {
	name, key string // "Go SDK client", "" / "lean Go client ...", "_lean"
	c         toolCaller
}

// benchClients are the Go SDK's client and the lean client, as a planner.
func (w *World) benchClients() []benchClient {
	lc := w.Lean()
	return []benchClient{{"Go SDK client", "", sdkCaller{w.Client("")}}, {leanName, "_lean", lc}}
}

type sdkCaller struct{ cs *mcp.ClientSession }

func (s sdkCaller) callTool(tool string, args map[string]any) (map[string]any, error) {
	return call(s.cs, tool, args)
}

// waitTerminal polls motion_status (long-polling wait_s) until the motion
// ends, and returns its final state; bounded by d.
func waitTerminal(c toolCaller, id string, d time.Duration) (string, error) {
	deadline := time.Now().Add(d)
	for {
		st, err := c.callTool("motion_status", map[string]any{"motion_id": id, "wait_s": 5, "until": "end"})
		if err != nil {
			return "", err
		}
		state, _ := st["state"].(string)
		if st["terminal"] == true || state == "unknown" {
			return state, nil
		}
		if time.Now().After(deadline) {
			return state, fmt.Errorf("motion %s still %s after %s", id, state, d)
		}
	}
}
