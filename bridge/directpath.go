package bridge

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sdkTouchEvery: a session's calls go through the MCP server at least
// this often, so its idle timer (SessionTimeout, 10 minutes) never closes
// a session whose calls all take the direct path.
const sdkTouchEvery = time.Minute

// The direct path answers a tools/call on an initialized session with one
// application/json response (streamable HTTP lets a server answer any POST
// so) straight from the pipeline: the same result, audit and metrics,
// without the MCP server's hand-offs between goroutines and its event
// stream, which cost ~150 µs of CPU per call. It takes only calls that
// need nothing of the MCP session while they run: no progress token, no
// tool that calls other tools, and motion_confirm (which may ask the
// client's user to approve) only for clients that cannot be asked. Anything it is not sure of goes
// to the MCP server: unknown or closed sessions (the server answers 404),
// clients that do not accept JSON, malformed ids, tools the server does
// not list (lazy mode).

// sessions are the MCP sessions that finished initialization.
type sessions struct {
	mu sync.Mutex
	m  map[string]*session
}

// session is what the direct path knows of one.
type session struct {
	seen   atomic.Int64 // unix nanoseconds the MCP server last saw a request of it
	canAsk bool         // its client can ask its user (elicitation)
}

func (s *sessions) open(id string, canAsk bool) {
	if id == "" {
		return // not a streamable HTTP session
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[string]*session{}
	}
	ss := &session{canAsk: canAsk}
	ss.seen.Store(time.Now().UnixNano())
	s.m[id] = ss
}

func (s *sessions) close(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, id)
}

func (s *sessions) lookup(id string) *session {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.m[id]
}

// toServer notes that the MCP server sees a request of r's session.
func (s *sessions) toServer(r *http.Request) {
	if ss := s.lookup(r.Header.Get("Mcp-Session-Id")); ss != nil {
		ss.seen.Store(time.Now().UnixNano())
	}
}

// canElicit reports whether initialize params declare that the client can
// ask its user in form mode (what elicitationRound requires).
func canElicit(p *mcp.InitializeParams) bool {
	if p == nil || p.Capabilities == nil || p.Capabilities.Elicitation == nil {
		return false
	}
	e := p.Capabilities.Elicitation
	return e.Form != nil || e.URL == nil
}

// answerDirect answers call itself, or returns false to leave it to the
// MCP server.
func (f *Front) answerDirect(w http.ResponseWriter, r *http.Request, call *rpcCall) bool {
	id := r.Header.Get("Mcp-Session-Id")
	ss := f.sessions.lookup(id)
	switch {
	case ss == nil,
		time.Since(time.Unix(0, ss.seen.Load())) > sdkTouchEvery,
		!accepts(r.Header.Values("Accept"), "application/json") || !accepts(r.Header.Values("Accept"), "text/event-stream"),
		!isJSON(r.Header.Get("Content-Type")),
		!knownProtocol(r.Header.Get("Mcp-Protocol-Version")),
		call.JSONRPC != "2.0" || !plainID(call.ID),
		len(call.Params.Meta.ProgressToken) > 0 && string(call.Params.Meta.ProgressToken) != "null",
		// The 2026-07-28 protocol names itself per request; this stateful
		// server refuses it, and the MCP server words that.
		len(call.Params.Meta.ProtocolVersion) > 0,
		f.Lazy && !f.Pipeline.Registry.IsCore(call.Params.Name):
		return false
	}
	t, ok := f.Pipeline.Registry.Lookup(call.Params.Name)
	if !ok || t.Delegates {
		return false // the MCP server words unknown tools
	}
	if t.AsksUser && (ss.canAsk || call.Params.RequestState != "" || len(call.Params.InputResponses) > 0) {
		return false // an elicitation round may happen: the MCP server runs it
	}
	inv := Invocation{Role: RolePlanner, Session: id}
	if role, ok := roleFromContext(r.Context()); ok {
		inv.Role = role
	}
	// As on the MCP server, whose handlers run in the session, not the HTTP
	// request: a client that leaves mid-call does not cut a confirm between
	// its commit and its send. Every tool bounds its own waits.
	out, err := f.Pipeline.Call(context.WithoutCancel(r.Context()), call.Params.Name, call.Params.Arguments, inv)
	res := ToolResult(out, err)
	f.Images.AddTo(res)
	body := make([]byte, 0, 2*len(textOf(res))+len(call.ID)+128)
	body = append(body, `{"jsonrpc":"2.0","id":`...)
	body = append(body, call.ID...)
	body = append(body, `,"result":`...)
	start := len(body)
	body, ok = appendPlainResult(body, res)
	if !ok {
		result, merr := json.Marshal(res)
		if merr != nil { // cannot happen: ToolResult holds marshalled JSON
			http.Error(w, merr.Error(), http.StatusInternalServerError)
			return true
		}
		body = append(body[:start], result...)
	}
	body = append(body, '}')
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(body)
	return true
}

// appendPlainResult writes the usual result (one text content holding the
// structured content's JSON) as the SDK's marshalling would, without its
// reflection and re-compaction: most of a read's allocations otherwise.
// Anything else (images, _meta) is left to json.Marshal: false.
func appendPlainResult(dst []byte, res *mcp.CallToolResult) ([]byte, bool) {
	raw, ok := res.StructuredContent.(json.RawMessage)
	if !ok || len(res.Content) != 1 || res.Meta != nil || len(res.InputRequests) > 0 || res.RequestState != "" {
		return dst, false
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok || tc.Meta != nil || tc.Annotations != nil {
		return dst, false
	}
	dst = append(dst, `{"content":[{"type":"text","text":`...)
	dst = appendJSONString(dst, tc.Text)
	dst = append(dst, `}],"structuredContent":`...)
	dst = append(dst, raw...)
	if res.IsError {
		dst = append(dst, `,"isError":true`...)
	}
	return append(dst, '}'), true
}

// textOf is the first text content's text, for sizing a response.
func textOf(res *mcp.CallToolResult) string {
	if len(res.Content) > 0 {
		if tc, ok := res.Content[0].(*mcp.TextContent); ok {
			return tc.Text
		}
	}
	return ""
}

// accepts reports whether Accept headers list the media type (or a
// wildcard for it).
func accepts(accept []string, mediaType string) bool {
	major, _, _ := strings.Cut(mediaType, "/")
	for _, h := range accept {
		for _, part := range strings.Split(h, ",") {
			mt, _, _ := strings.Cut(part, ";")
			switch strings.TrimSpace(mt) {
			case mediaType, major + "/*", "*/*":
				return true
			}
		}
	}
	return false
}

// isJSON reports whether a Content-Type is application/json.
func isJSON(contentType string) bool {
	mt, _, _ := strings.Cut(contentType, ";")
	return strings.EqualFold(strings.TrimSpace(mt), "application/json")
}

// knownProtocol reports whether an MCP-Protocol-Version header is absent
// or names a released version a session can have: anything else is the
// MCP server's to judge.
func knownProtocol(v string) bool {
	switch v {
	case "", "2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25":
		return true
	}
	return false
}

// plainID reports whether a JSON-RPC id is a string or a number (not
// null, absent or structured).
func plainID(id json.RawMessage) bool {
	if len(id) == 0 {
		return false
	}
	switch c := id[0]; {
	case c == '"', c == '-', c >= '0' && c <= '9':
		return true
	}
	return false
}
