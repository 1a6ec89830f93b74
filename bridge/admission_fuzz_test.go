package bridge

import (
	"encoding/json"
	"testing"
)

// FuzzParseToolCall feeds any HTTP body to the admission's parser: it
// never panics, and a body it takes for a tools/call is one JSON object
// that encoding/json, keys matched exactly, reads as the same method and
// tool name (a parser that disagreed with the MCP server could queue a
// stop behind reads, or admit a flood of reads as stops).
func FuzzParseToolCall(f *testing.F) {
	a := newAdmission(func(name string) bool { return name == "joints_read" })
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"joints_read","arguments":{}}}`,
		`{"method":"tools/call","params":{"name":"tools_invoke","arguments":{"name":"joints_read"}}}`,
		`{"method":"tools/call","params":{"name":"robot_stop","name":"joints_read"}}`,
		`{"method":"ping","METHOD":"tools/call","params":{"name":"joints_read"}}`,
		`[{"method":"tools/call"}]`, `{"method":"tools/call","params":{"name":"x"}} {}`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		call := parseToolCall(body)
		if call == nil {
			return
		}
		a.isQuick(call)
		// Keys read exactly, as the MCP server reads them (encoding/json's
		// struct fields would match "METHOD" too).
		var top map[string]json.RawMessage
		if err := json.Unmarshal(body, &top); err != nil {
			t.Fatalf("taken as a call, but encoding/json refuses it: %v", err)
		}
		var method, name string
		json.Unmarshal(top["method"], &method)
		var params map[string]json.RawMessage
		if json.Unmarshal(top["params"], &params) == nil {
			json.Unmarshal(params["name"], &name)
		}
		if call.Method != "tools/call" || method != call.Method || name != call.Params.Name {
			t.Fatalf("read as %q %q, encoding/json reads %q %q", call.Method, call.Params.Name, method, name)
		}
	})
}
