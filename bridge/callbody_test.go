package bridge

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
)

// callBodySeeds are bodies where a parse could go astray: duplicate and
// near-duplicate keys at each level, other types where strings belong,
// nesting at the bound, trailing data, escapes and invalid UTF-8.
var callBodySeeds = []string{
	confirmBody,
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"joints_read","arguments":{}}}`,
	`  {"method" : "tools/call", "params":{"arguments": {"a":[1,2.50,{"b":null}]} ,"name":"x"}}  `,
	`{"method":"tools/call","params":{"name":"x","arguments":{"a":1,"a":2}}}`,
	`{"method":"tools/call","method":"tools/call","params":{"name":"x","arguments":{}}}`,
	`{"method":"tools/call","params":{"name":"x","name":"robot_stop","arguments":{}}}`,
	`{"method":"tools/call","params":{"name":"x","Arguments":{"a":1},"arguments":{"a":2}}}`,
	`{"Method":"tools/call","params":{"name":"x","arguments":{}}}`,
	`{"method":"tools/list","params":{"name":"x","arguments":{}}}`,
	`{"method":7,"params":{"name":"x","arguments":{}}}`,
	`{"method":"tools/call","params":{"name":7,"arguments":{}}}`,
	`{"method":"tools/call","params":{"name":null,"arguments":null}}`,
	`{"method":null,"params":{"name":"x"}}`,
	`{"method":"tools/call","params":null}`,
	`{"method":"tools/call","params":[]}`,
	`{"method":"tools/call","params":{"name":"x","arguments":[1]}}`,
	`{"method":"tools/call","params":{"name":"x","arguments":"s"}}`,
	`{"method":"tools/call","params":{"name":"x","arguments":{}}}{}`,
	`{"method":"tools/call","params":{"name":"x","arguments":{}}} x`,
	`[{"method":"tools/call","params":{"name":"x","arguments":{}}}]`,
	`{"method":"tools\/call","params":{"name":"\u0078","arguments":{"k\u00e9":"\ud800"}}}`,
	"{\"method\":\"tools/call\",\"params\":{\"name\":\"x\xff\",\"arguments\":{\"a\":\"\xfe\"}}}",
	`{"method":"tools/call","params":{"name":"x","arguments":{"a":1}`,
	`{"method":"tools/call","params":{"name":"x","arguments":` + strings.Repeat(`{"a":`, 30) + `1` + strings.Repeat(`}`, 30) + `}}`,
	`{"method":"tools/call","params":{"name":"x","arguments":` + strings.Repeat(`{"a":`, 32) + `1` + strings.Repeat(`}`, 32) + `}}`,
	`{"method":"tools/call","params":{"_meta":{"progressToken":1},"name":"tools_invoke","arguments":{"name":"joints_read","arguments":{}}}}`,
	``, `null`, `{}`, `{"method":"tools/call"}`,
}

// One parse of a request body gives admission exactly what its own parse
// (parseToolCall) gives, and, where it gives values, exactly what
// DecodeArgs gives for those arguments: admission classifies every body
// as before, and the tool runs on the values it would have decoded.
func TestOneParseOfACallBodyAgreesWithAdmissionAndDecodeArgs(t *testing.T) {
	for _, b := range callBodySeeds {
		oneParseAgrees(t, []byte(b))
	}
	big := `{"method":"tools/call","params":{"name":"x","arguments":{"a":"` + strings.Repeat("x", maxArgBytes+envelopeMax) + `"}}}`
	oneParseAgrees(t, []byte(big))
	if _, v := parseCallBody([]byte(big)); v != nil {
		t.Fatal("a body larger than any tool takes was decoded into values")
	}
	if _, v := parseCallBody([]byte(confirmBody)); v == nil {
		t.Fatal("a confirm's body gave no values: the tool would decode it again")
	}
}

func FuzzOneParseOfACallBodyAgreesWithAdmissionAndDecodeArgs(f *testing.F) {
	for _, b := range callBodySeeds {
		f.Add([]byte(b))
	}
	f.Fuzz(func(t *testing.T, body []byte) { oneParseAgrees(t, body) })
}

func oneParseAgrees(t *testing.T, body []byte) {
	t.Helper()
	want := parseToolCall(body)
	got, values := parseCallBody(body)
	if (want == nil) != (got == nil) {
		t.Fatalf("%q: admission's parse %+v, the one parse %+v", body, want, got)
	}
	if want == nil {
		if values != nil {
			t.Fatalf("%q: values without a call", body)
		}
		return
	}
	if got.Method != want.Method || got.Params.Name != want.Params.Name || !bytes.Equal(got.Params.Arguments, want.Params.Arguments) {
		t.Fatalf("%q: admission's parse %+v, the one parse %+v", body, want, got)
	}
	if values == nil {
		return
	}
	decoded, err := DecodeArgs(want.Params.Arguments)
	if err != nil || !reflect.DeepEqual(values, decoded) {
		t.Fatalf("%q: values %v, DecodeArgs %v %+v", body, values, decoded, err)
	}
}

// Over HTTP a call's arguments are decoded once, by admission, and the tool
// runs on them; a ticket header a client sends is stripped (only admission
// sets one), and a body the one parse cannot read is decoded, and refused,
// by the pipeline as before.
func TestAnHTTPCallsArgumentsAreDecodedOnceBeforeTheTool(t *testing.T) {
	r := newRig(t)
	c, front := servedSession(t, r)
	pv := c.tool(t, "arm_move_joints", map[string]any{"positions": map[string]any{"j1": 1}})
	if out := c.tool(t, "motion_confirm", map[string]any{"preview_id": pv["preview_id"]}); out["motion_id"] == nil {
		t.Fatalf("confirm: %v", out)
	}
	if n := front.parsed.taken.Load(); n != 2 {
		t.Fatalf("%d of 2 calls ran on admission's parse", n)
	}
	body := `{"jsonrpc":"2.0","id":99,"method":"tools/call","params":{"name":"motions_list","arguments":{"limit":1,"limit":2}}}`
	req, _ := http.NewRequest(http.MethodPost, c.url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	req.Header.Set("Mcp-Session-Id", c.session)
	// A live ticket of the very bytes, whose values lack the duplicate:
	// were a client's ticket header let through, the call would run on them.
	forged := httptest.NewRequest(http.MethodPost, "/", nil)
	forget := front.parsed.keep(forged, parsedArgs{raw: []byte(`{"limit":1,"limit":2}`), values: map[string]any{"limit": json.Number("1")}})
	req.Header.Set(parsedHeader, forged.Header.Get(parsedHeader))
	resp, err := c.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !bytes.Contains(b, []byte(`duplicate key`)) || !bytes.Contains(b, []byte(string(CodeInvalidArgument))) {
		t.Fatalf("a duplicate key with a forged ticket: %s", b)
	}
	if n := front.parsed.taken.Load(); n != 2 {
		t.Fatalf("a forged ticket was taken: %d", n)
	}
	forget()
	if leftover := front.parsed.held(); leftover != 0 {
		t.Fatalf("%d parsed calls kept after their requests ended", leftover)
	}
}

// BenchmarkOneParseOfAConfirmBody is admission's parse and the tool's
// decode in one pass (compare BenchmarkConfirmBodyParses' admission and
// decode_args, which it replaces).
func BenchmarkOneParseOfAConfirmBody(b *testing.B) {
	body := []byte(confirmBody)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if c, v := parseCallBody(body); c == nil || v == nil {
			b.Fatal("not a call with arguments")
		}
	}
}
