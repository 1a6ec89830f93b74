package bridge

import (
	"encoding/json"
	"net/http"
	"runtime/trace"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// stopTicketHeader carries, from admission to the MCP handler, the ticket
// of a robot_stop the stop lane already ran. Admission strips any a
// client sends, so only the lane can set it.
const stopTicketHeader = "X-Actbridge-Stop-Ticket"

// stopLane runs robot_stop at the front door: admission recognises the
// call and runs it through the same pipeline (latch, cancels, zero twist,
// audit, metrics) before the request joins any queue, lock or SDK
// processing; the SDK then parses the request as usual and its handler
// answers with the result computed here, keyed by a ticket in the
// request's headers, so the stop runs once. A request the SDK then
// refuses (unknown session, not initialised) has still stopped the
// robot: the safe side.
type stopLane struct {
	pipeline *Pipeline
	answers  *tickets[stopAnswer]
}

type stopAnswer struct {
	out any
	err *Error
}

func newStopLane(p *Pipeline) *stopLane {
	return &stopLane{pipeline: p, answers: newTickets[stopAnswer](stopTicketHeader)}
}

// run stops the robot for r (its role and session as the handler would
// see them), keeps the answer and marks r with its ticket; forget drops
// the answer once the request is over, claimed or not.
func (l *stopLane) run(r *http.Request, args json.RawMessage) (forget func()) {
	defer trace.StartRegion(r.Context(), "robot_stop lane").End() // for go tool trace of a loaded bridge
	inv := Invocation{Role: RolePlanner, Session: r.Header.Get("Mcp-Session-Id")}
	if role, ok := roleFromContext(r.Context()); ok {
		inv.Role = role
	}
	out, err := l.pipeline.Call(r.Context(), "robot_stop", args, inv)
	return l.answers.keep(r, stopAnswer{out: out, err: err})
}

// answer returns the result of the stop the lane ran for req, if it did.
func (l *stopLane) answer(req *mcp.CallToolRequest) (*mcp.CallToolResult, bool) {
	if l == nil || req.Extra == nil || req.Extra.Header == nil {
		return nil, false
	}
	a, marked, ok := l.answers.claim(req.Extra.Header)
	if !marked {
		return nil, false
	}
	if !ok { // the request ended before the SDK reached it: nobody reads this
		return ToolResult(nil, Errf(CodeInternal, "robot_stop ran at the front door; its answer was dropped when the request ended")), true
	}
	return ToolResult(a.out, a.err), true
}
