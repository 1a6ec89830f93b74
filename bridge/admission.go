package bridge

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"runtime"
)

// quickBodyMax: a quick read's arguments are a few hundred bytes; larger
// ones are never classified quick (nor queued), so classifying stays cheap.
const quickBodyMax = 4 << 10

// admission keeps stop and cancel from queueing behind a flood of reads
// (and runs robot_stop itself, in the stop lane, when it has one):
// HTTP requests that call a Quick tool run at most slots at a time, the
// rest wait their turn (in arrival order). Every other request
// (robot_stop, motion_cancel, motions, calls that wait, session set-up)
// is never held, so on a busy bridge it meets a handful of runnable
// goroutines, not every client's.
type admission struct {
	slots chan struct{}
	quick func(tool string) bool
	lane  *stopLane // nil: robot_stop goes to the SDK like any call
	// parsed hands the arguments decoded here to the tool (callbody.go);
	// nil: the pipeline decodes them.
	parsed *parsedCalls
}

// rpcCall is what admission reads of a JSON-RPC tools/call request: which
// tool, and its arguments (for tools_invoke's inner name).
type rpcCall struct {
	Method string
	Params struct {
		Name      string
		Arguments json.RawMessage
	}
}

// newAdmission admits quick calls one fewer at a time than there are
// CPUs as the bridge starts (one at least), so on two cores or more a core
// is left for what is never held (a stop, a confirm, a cancel); on one
// core, reads go one at a time.
func newAdmission(quick func(tool string) bool) *admission {
	return &admission{slots: make(chan struct{}, readSlots()), quick: quick}
}

func readSlots() int { return max(1, runtime.GOMAXPROCS(0)-1) }

// wrap gates next. The body of a POST is read here (at most maxBody+1
// bytes; the MCP handler refuses what is larger) and handed on unchanged.
func (a *admission) wrap(next http.Handler, maxBody int64) http.Handler {
	pass := next.ServeHTTP
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Header.Del(stopTicketHeader) // only the lane sets it
		r.Header.Del(parsedHeader)     // only admission sets it
		if r.Method != http.MethodPost || r.Body == nil {
			pass(w, r)
			return
		}
		if maxBody <= 0 { // the SDK's own default or no limit: nothing to bound reading by here
			pass(w, r)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
		_ = r.Body.Close()
		if err != nil {
			http.Error(w, "reading the request body: "+err.Error(), http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		var call *rpcCall
		var values map[string]any
		if int64(len(body)) <= maxBody {
			call, values = parseCallBody(body)
		}
		if call != nil && call.Params.Name == "robot_stop" && a.lane != nil {
			// Before any queue, lock or SDK processing: the stop needs
			// nothing a read holds.
			defer a.lane.run(r, call.Params.Arguments)()
		} else if values != nil && a.parsed != nil {
			defer a.parsed.keep(r, parsedArgs{raw: call.Params.Arguments, values: values})()
		}
		if call != nil && a.isQuick(call) {
			select {
			case a.slots <- struct{}{}:
			case <-r.Context().Done():
				return // the client left while queued: nothing ran
			}
			defer func() { <-a.slots }()
		}
		pass(w, r)
	})
}

// parseToolCall returns body as a call if it is one JSON-RPC tools/call, else
// nil (malformed included: the MCP server words the refusal). Keys match
// exactly and at most once, as the MCP server reads them: encoding/json's
// case-insensitive, last-one-wins fields could read another method or tool
// from the same bytes than the server would.
func parseToolCall(body []byte) *rpcCall {
	dec := json.NewDecoder(bytes.NewReader(body))
	var c rpcCall
	into := func(v any) bool { return dec.Decode(v) == nil }
	skip := func() bool { var raw json.RawMessage; return into(&raw) }
	params := func(k string) bool {
		switch k {
		case "name":
			return into(&c.Params.Name)
		case "arguments":
			return into(&c.Params.Arguments)
		}
		return skip()
	}
	top := func(k string) bool {
		switch k {
		case "method":
			return into(&c.Method)
		case "params":
			return exactObject(dec, params)
		}
		return skip()
	}
	if !exactObject(dec, top) || c.Method != "tools/call" {
		return nil
	}
	if _, err := dec.Token(); err != io.EOF { // trailing data
		return nil
	}
	return &c
}

// exactObject reads one JSON object from dec, calling field for each key
// (which must read the value); a repeated key or any error ends it false.
func exactObject(dec *json.Decoder, field func(key string) bool) bool {
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return false
	}
	seen := map[string]bool{}
	for dec.More() {
		t, err := dec.Token()
		k, ok := t.(string)
		if err != nil || !ok || seen[k] {
			return false
		}
		seen[k] = true
		if !field(k) {
			return false
		}
	}
	t, err := dec.Token()
	return err == nil && t == json.Delim('}')
}

// isQuick reports whether call is of a quick tool, directly or through
// tools_invoke; only small requests are, so classifying stays cheap.
func (a *admission) isQuick(call *rpcCall) bool {
	if len(call.Params.Arguments) > quickBodyMax {
		return false
	}
	name := call.Params.Name
	if name == "tools_invoke" {
		var inner struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(call.Params.Arguments, &inner) != nil {
			return false
		}
		name = inner.Name
	}
	return a.quick(name)
}
