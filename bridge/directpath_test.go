package bridge

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// contentTypes records the Content-Type of every tools/call response by
// tool name.
type contentTypes struct {
	mu   sync.Mutex
	byTo map[string][]string
	next http.RoundTripper
}

func (c *contentTypes) RoundTrip(r *http.Request) (*http.Response, error) {
	var tool string
	if r.Body != nil {
		b, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(b))
		var m rpcCall
		if json.Unmarshal(b, &m) == nil && m.Method == "tools/call" {
			tool = m.Params.Name
		}
	}
	res, err := c.next.RoundTrip(r)
	if err == nil && tool != "" {
		c.mu.Lock()
		c.byTo[tool] = append(c.byTo[tool], res.Header.Get("Content-Type"))
		c.mu.Unlock()
	}
	return res, err
}

func (c *contentTypes) of(tool string) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.byTo[tool]...)
}

// httpSession serves the rig over streamable HTTP and connects the SDK
// client, recording response content types.
func httpSession(t *testing.T, r *rig, opts ...*mcp.ClientSessionOptions) (*mcp.ClientSession, *contentTypes, string) {
	t.Helper()
	return httpClientSession(t, r, nil, append(opts, nil)[0])
}

// httpClientSession is httpSession with client options (an elicitation
// handler).
func httpClientSession(t *testing.T, r *rig, copts *mcp.ClientOptions, opts *mcp.ClientSessionOptions) (*mcp.ClientSession, *contentTypes, string) {
	t.Helper()
	front := &Front{Pipeline: r.p, Name: "actbridge", Version: "test"}
	srv := httptest.NewServer(front.HTTPHandler(Tokens{}, 1<<20))
	t.Cleanup(srv.Close)
	ct := &contentTypes{byTo: map[string][]string{}, next: http.DefaultTransport}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, copts).
		Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL, HTTPClient: &http.Client{Transport: ct}}, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	// The server learns of the session when it handles the client's
	// initialized notification, which may come after the first call.
	waitUntil(t, "the session known to the direct path", func() bool {
		_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "motions_list", Arguments: map[string]any{}})
		got := ct.of("motions_list")
		return err == nil && got[len(got)-1] == "application/json"
	})
	ct.mu.Lock()
	ct.byTo = map[string][]string{}
	ct.mu.Unlock()
	return cs, ct, srv.URL
}

// The direct path answers calls with JSON, exactly as the MCP server would
// have (results and tool errors alike). The reference is the MCP server's
// own answer on the same HTTP session: a progress token sends a call there.
func TestDirectAnswersAreTheServersAnswers(t *testing.T) {
	for _, version := range []string{"", "2025-06-18", "2026-07-28"} {
		t.Run("protocol "+version, func(t *testing.T) {
			directAnswersAreTheServers(t, &mcp.ClientSessionOptions{ProtocolVersion: version})
		})
	}
}

func directAnswersAreTheServers(t *testing.T, opts *mcp.ClientSessionOptions) {
	r := newRig(t)
	cs, ct, _ := httpSession(t, r, opts)
	for _, tc := range []struct {
		name string
		args map[string]any
	}{
		{"tools_search", map[string]any{"query": "open the hand"}},
		{"tools_search", map[string]any{"query": 7}},           // schema error
		{"tools_search", map[string]any{"query": "x", "z": 1}}, // unknown field
		{"robot_describe", map[string]any{}},
		{"motions_list", map[string]any{}},
		{"no_such_tool", map[string]any{}},
	} {
		ctx := context.Background()
		got, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tc.name, Arguments: tc.args})
		want, werr := cs.CallTool(ctx, &mcp.CallToolParams{Name: tc.name, Arguments: tc.args, Meta: mcp.Meta{"progressToken": "ref"}})
		if (err == nil) != (werr == nil) {
			t.Fatalf("%s: direct error %v, MCP server error %v", tc.name, err, werr)
		}
		// A success ends the failure streak (its hint would differ).
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "tools_search", Arguments: map[string]any{"query": "reset"}}); err != nil {
			t.Fatal(err)
		}
		gb, _ := json.Marshal(got)
		wb, _ := json.Marshal(want)
		if !bytes.Equal(gb, wb) {
			t.Errorf("%s %v:\ndirect:     %s\nMCP server: %s", tc.name, tc.args, gb, wb)
		}
	}
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "robot_stop", Arguments: map[string]any{"reason": "test"}}); err != nil {
		t.Fatal(err)
	}
	for tool, want := range map[string][]string{
		"tools_search":   {"application/json", "text/event-stream", "application/json"},
		"robot_describe": {"application/json", "text/event-stream"},
		"robot_stop":     {"application/json"},
	} {
		got := ct.of(tool)
		for i := range got {
			got[i], _, _ = strings.Cut(got[i], ";")
		}
		if len(got) < len(want) || got[0] != want[0] || (len(want) > 1 && got[1] != want[1]) {
			t.Errorf("%s answered as %q, want %q (direct, then the MCP server)", tool, got, want)
		}
	}
	// Calls that may ask the client's user go to the MCP server.
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "tools_invoke", Arguments: map[string]any{"name": "motions_list", "arguments": map[string]any{}}}); err != nil {
		t.Fatal(err)
	}
	if got := ct.of("tools_invoke"); len(got) != 1 || !strings.HasPrefix(got[0], "text/event-stream") {
		t.Errorf("tools_invoke answered as %q, want the MCP server's event stream", got)
	}
}

// What the direct path is not sure of goes to the MCP server: a session it
// does not know (or one closed), a client that does not take JSON.
func TestDirectPathLeavesUnknownSessionsAndStreamOnlyClientsToTheServer(t *testing.T) {
	r := newRig(t)
	cs, _, url := httpSession(t, r)
	post := func(session, accept string, edit ...func(*http.Request)) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"motions_list","arguments":{}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", accept)

		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		for _, e := range edit {
			e(req)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { res.Body.Close() })
		return res
	}
	both := "application/json, text/event-stream"
	if res := post(cs.ID(), both); res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "application/json" {
		t.Errorf("live session: %d %s, want 200 application/json", res.StatusCode, res.Header.Get("Content-Type"))
	}
	if res := post(cs.ID(), "text/event-stream"); res.Header.Get("Content-Type") == "application/json" {
		t.Errorf("stream-only client: %d %s, want the MCP server's answer", res.StatusCode, res.Header.Get("Content-Type"))
	}
	for name, edit := range map[string]func(*http.Request){
		"a body that is not declared JSON":  func(r *http.Request) { r.Header.Set("Content-Type", "text/plain") },
		"a protocol version no session has": func(r *http.Request) { r.Header.Set("Mcp-Protocol-Version", "2099-01-01") },
		"the 2026-07-28 protocol's request meta": func(r *http.Request) {
			setBody(r, `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"motions_list","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`)
		},
	} {
		// The MCP server refuses each (the direct path would answer 200).
		if res := post(cs.ID(), both, edit); res.StatusCode == http.StatusOK {
			t.Errorf("%s: answered %d %s, want the MCP server's refusal", name, res.StatusCode, res.Header.Get("Content-Type"))
		}
	}
	// DNS rebinding: a loopback server refuses a foreign Host on every path.
	if res := post(cs.ID(), both, func(r *http.Request) { r.Host = "evil.example:80" }); res.StatusCode != http.StatusForbidden {
		t.Errorf("foreign Host header: %d, want 403", res.StatusCode)
	}
	if res := post("no-such-session", both); res.StatusCode != http.StatusNotFound {
		t.Errorf("unknown session: %d, want 404 from the MCP server", res.StatusCode)
	}
	id := cs.ID()
	if err := cs.Close(); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the session forgotten", func() bool { return post(id, both).StatusCode == http.StatusNotFound })
}

// motion_confirm takes the direct path only where no approval can be asked
// of the client's user; a client that can be asked gets the MCP server,
// which runs the elicitation round.
func TestConfirmIsDirectOnlyForClientsThatCannotBeAsked(t *testing.T) {
	r := elicitRig(t)
	plain, ct, _ := httpSession(t, r)
	_, m := toolCall(t, plain, &mcp.CallToolParams{Name: "motion_confirm", Arguments: map[string]any{"preview_id": armPreview(t, plain, 0.5)}})
	if m["code"] != string(CodePermissionDenied) || r.robot.goalsSent() != 0 {
		t.Fatalf("operator-policy confirm from a client that cannot be asked: %v, sent %d", m, r.robot.goalsSent())
	}
	if got := ct.of("motion_confirm"); len(got) != 1 || got[0] != "application/json" {
		t.Errorf("confirm of a client that cannot be asked answered as %q, want application/json", got)
	}

	var asked atomic.Int32
	asking, act, _ := httpClientSession(t, r, answering("accept", &asked, nil), nil)
	res, m := toolCall(t, asking, &mcp.CallToolParams{Name: "motion_confirm", Arguments: map[string]any{"preview_id": armPreview(t, asking, 0.25)}})
	if res.IsError || m["state"] != "sent" || asked.Load() != 1 || r.robot.goalsSent() != 1 {
		t.Fatalf("confirm with an approving user: %v, asked %d, sent %d", m, asked.Load(), r.robot.goalsSent())
	}
	for _, got := range act.of("motion_confirm") {
		if !strings.HasPrefix(got, "text/event-stream") {
			t.Errorf("confirm of a client that can be asked answered as %q, want the MCP server's event stream", got)
		}
	}
}

// A confirm taken by the direct path runs to its end when the client
// leaves mid-call, as on the MCP server (whose handlers outlive the HTTP
// request): the goal goes out, and a retry gets that motion.
func TestDirectConfirmOutlivesItsClient(t *testing.T) {
	r := newRig(t)
	cs, _, url := httpSession(t, r)
	id := armPreview(t, cs, 0.5)
	r.robot.mu.Lock()
	r.robot.sendDelay = 300 * time.Millisecond
	r.robot.mu.Unlock()

	ctx, cancel := context.WithCancel(context.Background())
	body := `{"jsonrpc":"2.0","id":41,"method":"tools/call","params":{"name":"motion_confirm","arguments":{"preview_id":"` + id + `"}}}`
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", cs.ID())
	done := make(chan error, 1)
	go func() {
		res, err := http.DefaultClient.Do(req)
		if err == nil {
			res.Body.Close()
		}
		done <- err
	}()
	time.Sleep(100 * time.Millisecond) // the confirm is waiting on the send
	cancel()
	<-done
	waitUntil(t, "the goal sent", func() bool { return r.robot.goalsSent() == 1 })
	r.robot.mu.Lock()
	r.robot.sendDelay = 0
	r.robot.mu.Unlock()
	_, m := toolCall(t, cs, &mcp.CallToolParams{Name: "motion_confirm", Arguments: map[string]any{"preview_id": id}})
	if m["replay"] != true || m["state"] == "rejected" || r.robot.goalsSent() != 1 {
		t.Errorf("retry after the client left: %v, goals sent %d; want a replay of the sent motion", m, r.robot.goalsSent())
	}

}

func setBody(r *http.Request, body string) {
	r.Body = io.NopCloser(strings.NewReader(body))
	r.ContentLength = int64(len(body))
}

// A request's role is its own token's, on both paths: a session opened
// with the operator's token and continued with the planner's acts as the
// planner, also where the MCP server runs the call (a progress token).
func TestEveryRequestActsWithItsOwnToken(t *testing.T) {
	r := newRig(t)
	front := &Front{Pipeline: r.p, Name: "actbridge", Version: "test"}
	srv := httptest.NewServer(front.HTTPHandler(Tokens{Planner: "planner-token", Operator: "operator-token"}, 1<<20))
	t.Cleanup(srv.Close)
	var token atomic.Pointer[string]
	op := "operator-token"
	token.Store(&op)
	hc := &http.Client{Transport: roundTripFunc(func(req *http.Request) (*http.Response, error) {
		req = req.Clone(req.Context())
		req.Header.Set("Authorization", "Bearer "+*token.Load())
		return http.DefaultTransport.RoundTrip(req)
	})}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).
		Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL, HTTPClient: hc}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	planner := "planner-token"
	token.Store(&planner)
	for _, meta := range []mcp.Meta{nil, {"progressToken": "via-the-server"}} {
		_, m := toolCall(t, cs, &mcp.CallToolParams{Name: "estop_reset", Arguments: map[string]any{"event": 1}, Meta: meta})
		if m["code"] != string(CodePermissionDenied) {
			t.Errorf("estop_reset with the planner's token (meta %v): %v, want permission_denied", meta, m)
		}
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
