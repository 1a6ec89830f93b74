package bridge

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// scanAgrees checks scanToolCall against decodeToolCall, the reference:
// where the scan answers, both answers are the same.
func scanAgrees(t *testing.T, body []byte) (answered bool) {
	t.Helper()
	got, ok := scanToolCall(body)
	if !ok {
		return false
	}
	want := decodeToolCall(body)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("body %q:\n scan   %+v\n decode %+v", body, got, want)
	}
	if got != nil { // raw fields share body: appending to one must not write into it
		before := string(body)
		for _, raw := range [][]byte{got.ID, got.Params.Arguments, got.Params.InputResponses, got.Params.Meta.ProgressToken} {
			_ = append(raw, "XXXX"...)
		}
		if string(body) != before {
			t.Fatalf("appending to a raw field changed the body %q", before)
		}
	}
	return true
}

func TestScanToolCallAgreesWithTheDecoder(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		scanned    bool // the scan answers itself
	}{
		{"a read", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"joints_read","arguments":{}}}`, true},
		{"a confirm from the Go SDK", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"arguments":{"preview_id":"pv_1.abc"},"name":"motion_confirm"}}`, true},
		{"string id, spaces and newlines", "{ \"jsonrpc\" : \"2.0\" ,\n\"id\":\"a-1\",\r\n\t\"method\":\"tools/call\", \"params\": { \"name\":\"x\" , \"arguments\" : { \"a\" : [1, 2.5e3, -0, true, null, \"s\\\"q\"] } } }  \n", true},
		{"_meta", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","_meta":{"progressToken":"p1","io.modelcontextprotocol/protocolVersion":"2026-07-28","other":{"a":[]}}}}`, true},
		{"null fields", `{"jsonrpc":null,"id":null,"method":"tools/call","params":{"name":null,"arguments":null,"requestState":null}}`, true},
		{"unknown keys skipped", `{"x":[{"y":"}"}],"method":"tools/call","params":{"z":"]","name":"n"},"jsonrpc":"2.0"}`, true},
		{"elicitation retry", `{"method":"tools/call","params":{"name":"motion_confirm","requestState":"st","inputResponses":{"a":{"action":"accept"}}}}`, true},
		{"empty objects", `{"method":"tools/call","params":{}}`, true},
		{"another method", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`, true},
		{"a notification", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, true},
		{"unicode in a string field", `{"method":"tools/call","params":{"name":"gr€ifer"}}`, true},
		// Left to the decoder.
		{"escaped key", `{"method":"tools/call","params":{"na\u006de":"joints_read"}}`, false},
		{"escaped method", `{"method":"tools\/call","params":{"name":"x"}}`, false},
		{"escaped name", `{"method":"tools/call","params":{"name":"a\"b"}}`, false},
		{"invalid UTF-8 in a name", "{\"method\":\"tools/call\",\"params\":{\"name\":\"a\xffb\"}}", false},
		{"non-ASCII key", `{"méthode":"x","method":"tools/call","params":{}}`, false},
		{"repeated key", `{"method":"tools/call","params":{"name":"a","name":"b"}}`, false},
		{"repeated top key", `{"method":"tools/call","method":"tools/call","params":{}}`, false},
		{"trailing data", `{"method":"tools/call","params":{}} {}`, false},
		{"trailing comma", `{"method":"tools/call","params":{"name":"a",}}`, false},
		{"truncated", `{"method":"tools/call","params":{"name":"a"`, false},
		{"bad literal", `{"method":"tools/call","params":{"arguments":tru}}`, false},
		{"bad number", `{"method":"tools/call","id":01,"params":{}}`, false},
		{"name not a string", `{"method":"tools/call","params":{"name":7}}`, false},
		{"params null", `{"method":"tools/call","params":null}`, false},
		{"batch", `[{"method":"tools/call"}]`, false},
		{"control character in a string", "{\"method\":\"tools/call\",\"params\":{\"name\":\"a\tb\"}}", false},
		{"mismatched brackets", `{"method":"tools/call","params":{"arguments":{"a":[1}]}}`, false},
		{"empty", ``, false},
		{"many keys", `{"method":"tools/call","params":{"name":"x"` + manyKeys(maxScanKeys) + `}}`, false},
		{"keys up to the bound", `{"method":"tools/call","params":{"name":"x"` + manyKeys(maxScanKeys-2) + `}}`, true},
		{"deep arguments", `{"method":"tools/call","params":{"name":"x","arguments":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := scanAgrees(t, []byte(tc.body)); got != tc.scanned {
				t.Errorf("scan answered = %v, want %v", got, tc.scanned)
			}
		})
	}
}

// manyKeys is n distinct extra members, each after a comma.
func manyKeys(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `,"k%d":%d`, i, i)
	}
	return b.String()
}

func FuzzScanToolCallAgreesWithTheDecoder(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"joints_read","arguments":{}}}`,
		`{"method":"tools/call","params":{"name":"x","_meta":{"progressToken":1},"arguments":{"a":[1,"]",{"b":null}]}}}`,
		`{"method":"tools/call","params":{"na\u006de":"x"}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		` {"id":"x" , "method" : "tools/call" ,"params":{"requestState":"s","inputResponses":[]}} `,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		scanAgrees(t, body)
	})
}
