package bridge

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"runtime"
)

// quickBodyMax: a quick read's request is a few hundred bytes; a larger
// body is never classified (and never queued), so classifying stays cheap.
const quickBodyMax = 4 << 10

// admission keeps stop and cancel from queueing behind a flood of reads:
// HTTP requests that call a Quick tool run at most slots at a time, the
// rest wait their turn (in arrival order) before the MCP server sees them.
// Every other request (robot_stop, motion_cancel, motions, calls that
// wait, session set-up) is never held, so on a busy bridge it meets a
// handful of runnable goroutines, not every client's.
type admission struct {
	slots chan struct{}
	quick func(tool string) bool
}

// newAdmission admits up to two quick calls per CPU: enough to keep every
// core busy while each waits on its socket writes.
func newAdmission(quick func(tool string) bool) *admission {
	return &admission{slots: make(chan struct{}, 2*runtime.GOMAXPROCS(0)), quick: quick}
}

// wrap gates next. The body of a POST is read here (at most maxBody+1
// bytes; the MCP handler refuses what is larger) and handed on unchanged.
func (a *admission) wrap(next http.Handler, maxBody int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Body == nil {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
		_ = r.Body.Close()
		if err != nil {
			http.Error(w, "reading the request body: "+err.Error(), http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		if !a.isQuickCall(body) {
			next.ServeHTTP(w, r)
			return
		}
		select {
		case a.slots <- struct{}{}:
		case <-r.Context().Done():
			return // the client left while queued: nothing ran
		}
		defer func() { <-a.slots }()
		next.ServeHTTP(w, r)
	})
}

// isQuickCall reports whether body is one JSON-RPC tools/call of a quick
// tool, directly or through tools_invoke. Anything else, malformed
// included, is not: the MCP handler answers it unqueued.
func (a *admission) isQuickCall(body []byte) bool {
	if len(body) > quickBodyMax {
		return false
	}
	var msg struct {
		Method string `json:"method"`
		Params struct {
			Name      string `json:"name"`
			Arguments struct {
				Name string `json:"name"`
			} `json:"arguments"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &msg) != nil || msg.Method != "tools/call" {
		return false
	}
	name := msg.Params.Name
	if name == "tools_invoke" {
		name = msg.Params.Arguments.Name
	}
	return a.quick(name)
}
