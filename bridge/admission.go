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

// admission keeps stop and cancel from queueing behind a flood of reads:
// HTTP requests that call a Quick tool run at most slots at a time, the
// rest wait their turn (in arrival order). Every other request
// (robot_stop, motion_cancel, motions, calls that wait, session set-up)
// is never held, so on a busy bridge it meets a handful of runnable
// goroutines, not every client's.
type admission struct {
	slots chan struct{}
	quick func(tool string) bool
	// direct, if set, may answer a tools/call itself (the Front's direct
	// path); false hands it to the MCP server.
	direct func(w http.ResponseWriter, r *http.Request, call *rpcCall) bool
	// toServer is told of every request handed to the MCP server.
	toServer func(r *http.Request)
}

// rpcCall is a JSON-RPC tools/call request as admission reads it.
type rpcCall struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
		// An elicitation round's retry carries these.
		RequestState   string          `json:"requestState"`
		InputResponses json.RawMessage `json:"inputResponses"`
		Meta           struct {
			ProgressToken json.RawMessage `json:"progressToken"`
			// Set by clients of the 2026-07-28 protocol on every request.
			ProtocolVersion    json.RawMessage `json:"io.modelcontextprotocol/protocolVersion"`
			ClientCapabilities json.RawMessage `json:"io.modelcontextprotocol/clientCapabilities"`
		} `json:"_meta"`
	} `json:"params"`
}

// newAdmission admits up to two quick calls per CPU: enough to keep every
// core busy while each waits on its socket writes.
func newAdmission(quick func(tool string) bool) *admission {
	return &admission{slots: make(chan struct{}, 2*runtime.GOMAXPROCS(0)), quick: quick}
}

// wrap gates next. The body of a POST is read here (at most maxBody+1
// bytes; the MCP handler refuses what is larger) and handed on unchanged.
func (a *admission) wrap(next http.Handler, maxBody int64) http.Handler {
	pass := func(w http.ResponseWriter, r *http.Request) {
		if a.toServer != nil {
			a.toServer(r)
		}
		next.ServeHTTP(w, r)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
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
		if int64(len(body)) <= maxBody {
			call = parseToolCall(body)
		}
		if call != nil && a.isQuick(call) {
			select {
			case a.slots <- struct{}{}:
			case <-r.Context().Done():
				return // the client left while queued: nothing ran
			}
			defer func() { <-a.slots }()
		}
		if call != nil && a.direct != nil && a.direct(w, r, call) {
			return
		}
		pass(w, r)
	})
}

// parseToolCall returns body as a call if it is one JSON-RPC tools/call, else
// nil (malformed included: the MCP server words the refusal). Keys match
// exactly and at most once, as the MCP server reads them: encoding/json's
// case-insensitive, last-one-wins fields could read another method or tool
// from the same bytes than the server would. The usual body is scanned;
// decodeToolCall reads the rest and is what the scan must agree with.
func parseToolCall(body []byte) *rpcCall {
	if c, ok := scanToolCall(body); ok {
		return c
	}
	return decodeToolCall(body)
}

// decodeToolCall is parseToolCall with encoding/json's Decoder.
func decodeToolCall(body []byte) *rpcCall {
	dec := json.NewDecoder(bytes.NewReader(body))
	var c rpcCall
	into := func(v any) bool { return dec.Decode(v) == nil }
	skip := func() bool { var raw json.RawMessage; return into(&raw) }
	meta := func(k string) bool {
		switch k {
		case "progressToken":
			return into(&c.Params.Meta.ProgressToken)
		case "io.modelcontextprotocol/protocolVersion":
			return into(&c.Params.Meta.ProtocolVersion)
		case "io.modelcontextprotocol/clientCapabilities":
			return into(&c.Params.Meta.ClientCapabilities)
		}
		return skip()
	}
	params := func(k string) bool {
		switch k {
		case "name":
			return into(&c.Params.Name)
		case "arguments":
			return into(&c.Params.Arguments)
		case "requestState":
			return into(&c.Params.RequestState)
		case "inputResponses":
			return into(&c.Params.InputResponses)
		case "_meta":
			return exactObject(dec, meta)
		}
		return skip()
	}
	top := func(k string) bool {
		switch k {
		case "jsonrpc":
			return into(&c.JSONRPC)
		case "id":
			return into(&c.ID)
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
