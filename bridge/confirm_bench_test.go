package bridge

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/actbridge/actbridge/actuators"
)

// mcpPoster is a bare streamable-HTTP MCP client: one session, JSON-RPC
// posts, the result read from the response (JSON or one SSE event).
type mcpPoster struct {
	url, session string
	hc           *http.Client
	id           int
}

func (c *mcpPoster) post(tb testing.TB, method string, params any) json.RawMessage {
	tb.Helper()
	c.id++
	msg := map[string]any{"jsonrpc": "2.0", "method": method, "params": params}
	if !strings.HasPrefix(method, "notifications/") {
		msg["id"] = c.id
	}
	body, _ := json.Marshal(msg)
	req, _ := http.NewRequest(http.MethodPost, c.url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	if s := resp.Header.Get("Mcp-Session-Id"); s != "" {
		c.session = s
	}
	if resp.StatusCode == http.StatusAccepted {
		return nil
	}
	var data []byte
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				data = []byte(d)
				break
			}
		}
	} else {
		data, _ = io.ReadAll(resp.Body)
	}
	var r struct {
		Result json.RawMessage
		Error  json.RawMessage
	}
	if err := json.Unmarshal(data, &r); err != nil || r.Error != nil {
		tb.Fatalf("%s: %s (%v)", method, data, err)
	}
	return r.Result
}

func (c *mcpPoster) tool(tb testing.TB, name string, args map[string]any) map[string]any {
	tb.Helper()
	var res struct {
		StructuredContent map[string]any
		IsError           bool
	}
	if err := json.Unmarshal(c.post(tb, "tools/call", map[string]any{"name": name, "arguments": args}), &res); err != nil || res.IsError {
		tb.Fatalf("%s: %v %v", name, res.StructuredContent, err)
	}
	return res.StructuredContent
}

// BenchmarkConfirmOverHTTP is motion_confirm through the whole front door
// (net/http, admission, the MCP SDK, the pipeline, the store without
// fsync, the fake robot's send): the bridge's own CPU per confirm, which
// no floor of the bench's confirm row pays.
func BenchmarkConfirmOverHTTP(b *testing.B) {
	r := newRig(b)
	c, _ := servedSession(b, r)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		pv := c.tool(b, "arm_move_joints", map[string]any{"positions": map[string]any{"j1": 1}})
		b.StartTimer()
		out := c.tool(b, "motion_confirm", map[string]any{"preview_id": pv["preview_id"]})
		b.StopTimer()
		r.robot.Emit(actuators.GoalUpdate{Actuator: "arm", GoalID: fmt.Sprint(out["motion_id"]), State: actuators.GoalSucceeded})
		b.StartTimer()
	}
}

// servedSession serves r's pipeline over HTTP as the bridge does and
// returns an initialized MCP session to it, and the front serving it.
func servedSession(b testing.TB, r *rig) (*mcpPoster, *Front) {
	front := &Front{Pipeline: r.p, Name: "actbridge", Version: "test"}
	srv := httptest.NewServer(front.HTTPHandler(Tokens{OpenPlanner: true}, 1<<20))
	b.Cleanup(srv.Close)
	c := &mcpPoster{url: srv.URL, hc: srv.Client()}
	c.post(b, "initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "bench", "version": "1"}})
	c.post(b, "notifications/initialized", map[string]any{})
	return c, front
}

// confirmBody is a motion_confirm request as the bench's clients send it.
const confirmBody = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"motion_confirm","arguments":{"preview_id":"pv2.a6f8c871-580b-466c-bcfe-da7c40e62d8c.1796670138.YXJt.xwxm7SGItHTMnFMvn2Pa0Ha9"}}}`

// BenchmarkConfirmBodyParses times each parse a confirm's body goes
// through: admission's (tool name and arguments), the MCP SDK's own of
// the JSON-RPC envelope and of the call's params (public API standing in
// for its internal parse, which the SDK does whatever we hand it), and
// the pipeline's DecodeArgs of the arguments.
func BenchmarkConfirmBodyParses(b *testing.B) {
	body := []byte(confirmBody)
	b.Run("admission", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if parseToolCall(body) == nil {
				b.Fatal("not a call")
			}
		}
	})
	b.Run("sdk_envelope_and_params", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			msg, err := jsonrpc.DecodeMessage(body)
			if err != nil {
				b.Fatal(err)
			}
			var p mcp.CallToolParamsRaw
			if err := json.Unmarshal(msg.(*jsonrpc.Request).Params, &p); err != nil {
				b.Fatal(err)
			}
		}
	})
	args := parseToolCall(body).Params.Arguments
	b.Run("decode_args", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := DecodeArgs(args); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkGetPreviewOfAConfirm is the confirm's read of its preview from
// the store (a bbolt read transaction; the record decoded unless the
// store's decoded copy still matches its stored bytes), for an
// arm_move_joints preview as the bench's confirm row makes them.
func BenchmarkGetPreviewOfAConfirm(b *testing.B) {
	r := newRig(b)
	s, e := r.call(b, RolePlanner, "arm_move_joints", `{"positions":{"j1":1}}`)
	if e != nil {
		b.Fatal(e)
	}
	pid, perr := parsePreviewID(fmt.Sprint(s["preview_id"]))
	if perr != nil {
		b.Fatal(perr)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.store.GetPreview(pid.UUID); err != nil {
			b.Fatal(err)
		}
	}
}
