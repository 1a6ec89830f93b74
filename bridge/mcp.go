package bridge

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Front serves the pipeline over MCP. One mcp.Server is shared by every
// connection, so tools/list is identical on all of them.
type Front struct {
	Pipeline *Pipeline
	Lazy     bool // list only core tools; the rest through tools_search/tools_invoke
	Name     string
	Version  string
	// Instructions are sent to clients at initialization.
	Instructions string
	// OnSessionEnd is told when an MCP session closes (deadman for base_drive).
	OnSessionEnd func(session string)
	// ServerOptions, when set, adjusts the options the server is built with
	// (the events' resource subscriptions: Events.ServerOptions).
	ServerOptions func(*mcp.ServerOptions)
	// Images, when set, adds camera snapshots to the results naming them.
	Images *Images

	server *mcp.Server
	tokens *Tokens      // set by HTTPHandler: each request's role comes from its own token
	lane   *stopLane    // set by HTTPHandler: robot_stop already ran at the front door
	parsed *parsedCalls // set by HTTPHandler: the arguments admission decoded
}

// Server builds (once) the MCP server with every listed tool registered
// through the low-level AddTool, so our error object survives intact.
func (f *Front) Server() *mcp.Server {
	if f.server != nil {
		return f.server
	}
	opts := &mcp.ServerOptions{Instructions: f.Instructions}
	// The deadman for drives: when a planner's session ends, whatever it
	// is driving stops. Wait returns when the session closes.
	opts.InitializedHandler = func(_ context.Context, req *mcp.InitializedRequest) {
		ss := req.Session
		if f.OnSessionEnd == nil {
			return
		}
		go func() {
			_ = ss.Wait()
			f.OnSessionEnd(ss.ID())
		}()
	}
	if f.ServerOptions != nil {
		f.ServerOptions(opts)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: f.Name, Version: f.Version}, opts)
	listed := func(t *Tool) bool { return !f.Lazy || f.Pipeline.Registry.IsCore(t.Name) }
	// A tool whose Listing changed (service_call after the transport
	// learned service types) is listed again with its new shape: AddTool
	// swaps it and sends notifications/tools/list_changed to every
	// session. In lazy mode an unlisted tool is found by tools_search,
	// which reads the registry itself. mu keeps a change made while the
	// first list is added from being overwritten by the older shape.
	var mu sync.Mutex
	mu.Lock()
	tools := f.Pipeline.Registry.Watch(func(t *Tool) {
		mu.Lock()
		defer mu.Unlock()
		if listed(t) {
			s.AddTool(MCPTool(t), f.handler(t.Name))
		}
	})
	for _, t := range tools {
		if listed(t) {
			s.AddTool(MCPTool(t), f.handler(t.Name))
		}
	}
	mu.Unlock()
	f.server = s
	return s
}

// MCPTool renders a tool's contract as an MCP tool with annotations from
// its tier.
func MCPTool(t *Tool) *mcp.Tool {
	shape := t.Shape()
	in, _ := json.Marshal(shape.Input)
	out, _ := json.Marshal(OutputSchemaFor(t))
	yes, no := true, false
	ann := &mcp.ToolAnnotations{Title: t.Title, IdempotentHint: t.Idempotent, ReadOnlyHint: t.Tier == TierRead && !t.Delegates}
	switch {
	case t.Tier == TierIrreversible || t.Delegates:
		ann.DestructiveHint = &yes
	default:
		ann.DestructiveHint = &no
	}
	if t.TouchesRobot || t.Delegates {
		ann.OpenWorldHint = &yes
	} else {
		ann.OpenWorldHint = &no
	}
	return &mcp.Tool{Name: t.Name, Title: t.Title, Description: shape.Description,
		InputSchema: json.RawMessage(in), OutputSchema: json.RawMessage(out), Annotations: ann}
}

func (f *Front) handler(name string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if name == "robot_stop" {
			if res, ok := f.lane.answer(req); ok {
				f.Images.AddTo(res)
				return res, nil
			}
		}
		inv := Invocation{Role: RolePlanner}
		if r, ok := roleFromContext(ctx); ok {
			inv.Role = r // stdio; over HTTP the session's first request
		}
		// Over HTTP the handler runs in the session's context, made from
		// its initialize request: the role is this request's own, which
		// HTTPHandler derived from its token (roleHeader).
		if f.tokens != nil && req.Extra != nil && req.Extra.Header != nil {
			if r := req.Extra.Header.Get(roleHeader); r != "" {
				inv.Role = Role(r)
			}
		}
		inv.Decoded = f.parsed.take(req) // admission's parse of these very bytes, if it made one
		if req.Session != nil {
			inv.Session = req.Session.ID()
		}
		if tok := req.Params.GetProgressToken(); tok != nil && req.Session != nil {
			sess := req.Session
			inv.Progress = func(done, total float64, msg string) {
				_ = sess.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: done, Total: total, Message: msg})
			}
		}
		ctx, round := elicitationRound(ctx, req)
		out, err := f.Pipeline.Call(ctx, name, req.Params.Arguments, inv)
		if ask := round.inputRequired(); ask != nil {
			return ask, nil // the client asks its user, then retries with the answer
		}
		res := ToolResult(out, err)
		f.Images.AddTo(res)
		return res, nil
	}
}

// ToolResult renders a pipeline outcome as an MCP result: the object in
// structuredContent, the same JSON as text content, isError on failure.
func ToolResult(out any, err *Error) *mcp.CallToolResult {
	var v any = out
	if err != nil {
		v = err
	}
	b, merr := json.Marshal(v)
	if merr != nil {
		err = Errf(CodeInternal, "result not encodable: %v", merr)
		b, _ = json.Marshal(err)
		v = err
	}
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: string(b)}},
		StructuredContent: json.RawMessage(b),
		IsError:           err != nil,
	}
}

type roleKey struct{}

// roleHeader carries a request's role, derived once from its token, from
// HTTPHandler to the tool handler; HTTPHandler overwrites whatever a
// client put there.
const roleHeader = "X-Actbridge-Role"

func roleFromContext(ctx context.Context) (Role, bool) {
	r, ok := ctx.Value(roleKey{}).(Role)
	return r, ok
}

// WithRole marks a context with the caller's role (set by authentication).
func WithRole(ctx context.Context, r Role) context.Context {
	return context.WithValue(ctx, roleKey{}, r)
}

// Tokens holds the bearer tokens of the two roles. A request is the role
// whose token it carries; a request without one is refused, except that
// with OpenPlanner (the loopback demo, no token configured) it is the
// planner. The zero value refuses everyone.
type Tokens struct {
	Planner  string
	Operator string
	// OpenPlanner lets a request without a token act as the planner. Serve
	// sets it only on a loopback listen with no token configured; the
	// operator always needs its token.
	OpenPlanner bool
}

// Any reports whether any token is configured.
func (t Tokens) Any() bool { return t.Planner != "" || t.Operator != "" }

// RoleFor maps an Authorization header to a role; ok is false when the
// token is missing (and OpenPlanner is off) or wrong.
func (t Tokens) RoleFor(h http.Header) (Role, bool) {
	auth := h.Get("Authorization")
	got, _ := strings.CutPrefix(auth, "Bearer ")
	eq := func(want string) bool {
		return want != "" && subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
	}
	switch {
	case eq(t.Operator):
		return RoleOperator, true
	case eq(t.Planner):
		return RolePlanner, true
	case auth == "" && t.OpenPlanner:
		return RolePlanner, true
	}
	return "", false
}

// Open reports whether a request with header h is let in by OpenPlanner
// alone (no token): such a request must come from this machine.
func (t Tokens) Open(h http.Header) bool { return t.OpenPlanner && h.Get("Authorization") == "" }

// HTTPHandler serves streamable HTTP MCP with a body limit and bearer
// authentication; a missing or wrong token gets HTTP 401 before MCP sees it.
// It sets up the front's HTTP side (tokens, stop lane, parsed calls): call
// it once per Front, before serving.
func (f *Front) HTTPHandler(tokens Tokens, maxBody int64) http.Handler {
	f.tokens = &tokens
	srv := f.Server()
	adm := newAdmission(func(name string) bool {
		t, ok := f.Pipeline.Registry.Lookup(name)
		return ok && t.Quick
	})
	f.lane = newStopLane(f.Pipeline)
	f.parsed = newParsedCalls()
	adm.lane, adm.parsed = f.lane, f.parsed
	h := adm.wrap(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
		&mcp.StreamableHTTPOptions{MaxRequestBodyBytes: maxBody, SessionTimeout: 10 * time.Minute}), maxBody)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// DNS rebinding: refused before admission reads the body (the MCP
		// SDK refuses it too, later).
		if local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && LoopbackHost(local.String()) && !LoopbackHost(r.Host) {
			http.Error(w, fmt.Sprintf("Forbidden: invalid Host header %q", r.Host), http.StatusForbidden)
			return
		}
		role, ok := tokens.RoleFor(r.Header)
		if ok && tokens.Open(r.Header) && !LoopbackHost(r.RemoteAddr) {
			ok = false // the tokenless planner is a process on this machine only
		}
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer realm="actbridge"`)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			_ = json.NewEncoder(w).Encode(Errf(CodePermissionDenied, "a valid bearer token is required (Authorization: Bearer <planner token>)"))
			return
		}
		r.Header.Set(roleHeader, string(role))
		h.ServeHTTP(w, r.WithContext(WithRole(r.Context(), role)))
	})
}

// ServeStdio runs MCP over stdin/stdout until ctx ends or the client leaves.
func (f *Front) ServeStdio(ctx context.Context) error {
	return f.Server().Run(WithRole(ctx, RolePlanner), &mcp.StdioTransport{})
}

// LoopbackHost reports whether a host or host:port names the loopback
// interface (localhost, 127.0.0.0/8, ::1): the DNS-rebinding check of the
// MCP endpoint and the console.
func LoopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
