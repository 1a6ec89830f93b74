package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/actbridge/actbridge/actuators"
)

// decoded is a JSON text as the pipeline hands it to a schema.
func decoded(t *testing.T, s string) map[string]any {
	t.Helper()
	m, err := DecodeArgs([]byte(s))
	if err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	return m
}

// A request nesting messages is checked field by field down to the
// scalars, and a violation names its path, what was expected and what came.
func TestNestedRequestViolationsNamePathExpectedAndActual(t *testing.T) {
	s, err := typeSchema(setParameters())
	if err != nil {
		t.Fatal(err)
	}
	ok := `{"parameters":[{"name":"a","value":{"type":3,"double_value":0.5}},{"name":"b","value":{"type":9,"string_array_value":["x"]}},{"name":"c"}]}`
	if verr := s.Validate(decoded(t, ok)); verr != nil {
		t.Fatalf("valid request refused: %+v", verr)
	}
	for _, c := range []struct{ req, field, expected, actual string }{
		{`{"parameters":[{"name":"a","value":{"type":"x"}}]}`, "parameters[0].value.type", "integer in [0, 255]", `string "x"`},
		{`{"parameters":[{"name":"a"},{"name":"b","value":{"type":256}}]}`, "parameters[1].value.type", "integer in [0, 255]", "256"},
		{`{"parameters":[{"name":"a","value":{"bogus":1}}]}`, "parameters[0].value.bogus", "one of: bool_array_value, bool_value, byte_array_value, double_array_value, double_value, integer_array_value, integer_value, string_array_value, string_value, type", `"bogus"`},
		{`{"parameters":[{"name":"a","value":{"integer_value":9007199254740993}}]}`, "parameters[0].value.integer_value", "integer in [-9.007199254740992e+15, 9.007199254740992e+15]", "9007199254740993"},
		{`{"parameters":[{"name":"a","value":{"byte_array_value":[1,-1]}}]}`, "parameters[0].value.byte_array_value[1]", "integer in [0, 255]", "-1"},
		{`{"parameters":{"name":"a"}}`, "parameters", "array", "object with 1 fields"},
		{`{"parameters":["a"]}`, "parameters[0]", "object", `string "a"`},
		{`{}`, "parameters", "array", "missing"},
	} {
		verr := s.Validate(decoded(t, c.req))
		if verr == nil {
			t.Errorf("%s accepted", c.req)
			continue
		}
		if verr.Field != c.field || verr.Expected != c.expected || verr.Actual != c.actual {
			t.Errorf("%s: field %q expected %q actual %q, want %q %q %q", c.req, verr.Field, verr.Expected, verr.Actual, c.field, c.expected, c.actual)
		}
	}
}

// Through service_call the path starts at request, nothing is sent on a
// violation, and a valid nested request reaches the transport with every
// number a float64 (what the transports build CDR and ROS 1 values from).
func TestServiceCallSendsANestedRequestAndRefusesABadOneWithItsPath(t *testing.T) {
	r := newROSRig(t)
	r.ros.knows("/sim/set_parameters", setParameters())
	r.tools.services() // as a probe would: service_call is rebuilt with the type
	r.tools.Policy.Services = append(r.tools.Policy.Services, ServiceRule{Pattern: "/sim/set_parameters", Tier: TierWrite})
	e := mustRefuse(t, r, "service_call", `{"service":"/sim/set_parameters","request":{"parameters":[{"name":"x","value":{"type":true}}]}}`, CodeInvalidArgument, "")
	if e.Field != "request.parameters[0].value.type" || e.Expected != "integer in [0, 255]" || e.Actual != "boolean true" {
		t.Fatalf("%+v", e)
	}
	// What only the type's own check sees (a required field) says the type.
	e = mustRefuse(t, r, "service_call", `{"service":"/sim/set_parameters","request":{}}`, CodeInvalidArgument, "")
	if e.Field != "request.parameters" || e.Actual != "missing" || !strings.Contains(e.Message, "rcl_interfaces/srv/SetParameters") {
		t.Fatalf("%+v", e)
	}
	if _, _, _, calls, _ := r.ros.counts(); calls != 0 {
		t.Fatal("a refused request reached the service")
	}
	out := mustOK(t, r, RolePlanner, "service_call", `{"service":"/sim/set_parameters","request":{"parameters":[{"name":"led.level","value":{"type":2,"integer_value":9007199254740992}}]}}`)
	if out["tier"] != "write" || out["type"] != "rcl_interfaces/srv/SetParameters" {
		t.Fatalf("%v", out)
	}
	got, _ := json.Marshal(r.ros.lastRequest())
	if string(got) != `{"parameters":[{"name":"led.level","value":{"integer_value":9007199254740992,"type":2}}]}` {
		t.Fatalf("sent %s", got)
	}
	v := r.ros.lastRequest()["parameters"].([]any)[0].(map[string]any)["value"].(map[string]any)
	if n, ok := v["integer_value"].(float64); !ok || n != 1<<53 {
		t.Fatalf("integer_value %T %v", v["integer_value"], v["integer_value"])
	}
}

// An irreversible service's nested request is stored with its preview
// and motion_confirm sends exactly that request, once.
func TestAConfirmedNestedRequestIsTheOnePreviewed(t *testing.T) {
	r := newROSRig(t)
	r.ros.knows("/sim/set_parameters", setParameters())
	r.tools.services()
	r.tools.Policy.Services = append(r.tools.Policy.Services, ServiceRule{Pattern: "/sim/set_parameters", Tier: TierIrreversible, Confirm: RolePlanner})
	req := `{"parameters":[{"name":"arm.speed","value":{"type":3,"double_value":0.125,"integer_array_value":[9007199254740992,-3]}}]}`
	pv := mustOK(t, r, RolePlanner, "service_call", `{"service":"/sim/set_parameters","request":`+req+`}`)
	if got, _ := json.Marshal(pv["request"]); string(got) != `{"parameters":[{"name":"arm.speed","value":{"double_value":0.125,"integer_array_value":[9007199254740992,-3],"type":3}}]}` {
		t.Fatalf("previewed %s", got)
	}
	if _, _, _, calls, _ := r.ros.counts(); calls != 0 {
		t.Fatal("a preview called the service")
	}
	c := mustOK(t, r, RolePlanner, "motion_confirm", `{"preview_id":"`+pv["preview_id"].(string)+`"}`)
	if c["state"] != "succeeded" || r.ros.calls["/sim/set_parameters"] != 1 {
		t.Fatalf("confirm %v, calls %v", c, r.ros.calls)
	}
	sent, _ := json.Marshal(r.ros.lastRequest())
	if want, _ := json.Marshal(pv["request"]); string(sent) != string(want) {
		t.Fatalf("sent %s, previewed %s", sent, want)
	}
}

// Two types giving one field name different types: the union takes what
// either takes (so no valid request is refused before its type is known),
// and the check after the type is known is that type's alone.
func TestUnionOfTypesSharingAFieldNameTakesEachAndTheTypeCheckStaysExact(t *testing.T) {
	types := []actuators.ServiceType{
		{Name: "a/srv/Bool", Request: []actuators.ServiceField{{Name: "data", Type: "bool"}, {Name: "n", Type: "int8"}}},
		{Name: "a/srv/Text", Request: []actuators.ServiceField{{Name: "data", Type: "string"}, {Name: "n", Type: "float64"}}},
		{Name: "a/srv/Msg", Request: []actuators.ServiceField{{Name: "data", Type: "a/msg/X"}},
			Messages: map[string][]actuators.ServiceField{"a/msg/X": {{Name: "k", Type: "int32"}}}},
		{Name: "a/srv/Msg2", Request: []actuators.ServiceField{{Name: "data", Type: "a/msg/Y"}},
			Messages: map[string][]actuators.ServiceField{"a/msg/Y": {{Name: "k", Type: "string"}, {Name: "j", Type: "bool"}}}},
		{Name: "a/srv/List", Request: []actuators.ServiceField{{Name: "data", Type: "int64[<=2]"}}},
	}
	cat := newServiceCatalog(types)
	if len(cat.offered) != 5 {
		t.Fatalf("offered %v refused %v", cat.offered, cat.refused)
	}
	union := cat.request
	for _, ok := range []string{`{"data":true}`, `{"data":"s"}`, `{"data":{"k":1}}`, `{"data":{"k":"s","j":true}}`, `{"data":[1,2]}`, `{"n":1.5}`, `{"n":200}`} {
		if verr := union.Validate(decoded(t, ok)); verr != nil {
			t.Errorf("union refused %s: %+v", ok, verr)
		}
	}
	for _, bad := range []string{`{"data":1}`, `{"data":{"z":1}}`, `{"data":[1,2,3]}`, `{"data":{"k":true}}`, `{"bogus":1}`} {
		if verr := union.Validate(decoded(t, bad)); verr == nil {
			t.Errorf("union accepted %s", bad)
		} else if !strings.Contains(verr.Hint, "services_list") {
			t.Errorf("%s: no hint to learn types: %+v", bad, verr)
		}
	}
	exact := func(typ, req string) *Error { return cat.exact[typ].Validate(decoded(t, req)) }
	for _, c := range []struct {
		typ, req string
		ok       bool
	}{
		{"a/srv/Bool", `{"data":true,"n":1}`, true}, {"a/srv/Bool", `{"data":"s","n":1}`, false}, {"a/srv/Bool", `{"data":true,"n":200}`, false},
		{"a/srv/Text", `{"data":"s","n":200.5}`, true}, {"a/srv/Text", `{"data":true,"n":1}`, false},
		{"a/srv/Msg", `{"data":{"k":1}}`, true}, {"a/srv/Msg", `{"data":{"k":"s"}}`, false}, {"a/srv/Msg", `{"data":{"j":true}}`, false},
	} {
		if verr := exact(c.typ, c.req); (verr == nil) != c.ok {
			t.Errorf("%s %s: %+v, want ok=%v", c.typ, c.req, verr, c.ok)
		}
	}
	// The tool built from it keeps the strict contract, anyOf included.
	r := newROSRig(t)
	for _, typ := range types {
		r.ros.knows("/sim/"+strings.ToLower(strings.TrimPrefix(typ.Name, "a/srv/")), typ)
	}
	tool := (&ROSTools{ROS: r.ros, Policy: r.tools.Policy}).serviceCall() // a tool set of its own: the rig's is registered
	if err := CheckContract(tool); err != nil {
		t.Fatal(err)
	}
	// OpenAI's strict export keeps the union: anyOf of closed alternatives.
	reg := NewRegistry()
	reg.MustAdd(tool)
	b, err := Export(reg, "openai")
	if err != nil {
		t.Fatal(err)
	}
	var exported []struct {
		Function struct {
			Parameters struct {
				Properties struct {
					Request struct {
						Properties map[string]struct {
							AnyOf []map[string]any `json:"anyOf"`
						} `json:"properties"`
					} `json:"request"`
				} `json:"properties"`
			} `json:"parameters"`
			Strict bool `json:"strict"`
		} `json:"function"`
	}
	if err := json.Unmarshal(b, &exported); err != nil || len(exported) != 1 || !exported[0].Function.Strict {
		t.Fatalf("%v %s", err, b)
	}
	var kinds []string
	for _, alt := range exported[0].Function.Parameters.Properties.Request.Properties["data"].AnyOf {
		kinds = append(kinds, fmt.Sprint(alt["type"]))
		if alt["type"] == "object" && (alt["additionalProperties"] != false || fmt.Sprint(alt["required"]) != "[j k]") {
			t.Errorf("object alternative not strict: %v", alt)
		}
	}
	if strings.Join(kinds, " ") != "boolean array object string null" {
		t.Fatalf("data's alternatives %v", kinds)
	}
}

// A type whose schema would pass the bounds, or nests a message whose
// definition is missing, is not offered; services_list and service_call
// say why, and nothing is sent.
func TestATypeTooDeepTooWideOrUndefinedIsNotOfferedAndSaysWhy(t *testing.T) {
	deep := actuators.ServiceType{Name: "a/srv/Deep", Request: []actuators.ServiceField{{Name: "m", Type: "a/msg/M0"}}, Messages: map[string][]actuators.ServiceField{}}
	for i := range maxRequestDepth + 1 {
		deep.Messages[fmt.Sprintf("a/msg/M%d", i)] = []actuators.ServiceField{{Name: "m", Type: fmt.Sprintf("a/msg/M%d", i+1)}}
	}
	deep.Messages[fmt.Sprintf("a/msg/M%d", maxRequestDepth+1)] = []actuators.ServiceField{{Name: "x", Type: "bool"}}
	wide := actuators.ServiceType{Name: "a/srv/Wide", Request: []actuators.ServiceField{{Name: "m", Type: "a/msg/W[3]"}}, Messages: map[string][]actuators.ServiceField{}}
	for i := range maxRequestFields {
		wide.Messages["a/msg/W"] = append(wide.Messages["a/msg/W"], actuators.ServiceField{Name: fmt.Sprintf("f%d", i), Type: "float64"})
	}
	undefined := actuators.ServiceType{Name: "a/srv/Undefined", Request: []actuators.ServiceField{{Name: "m", Type: "a/msg/Nowhere"}}}
	odd := actuators.ServiceType{Name: "a/srv/Odd", Request: []actuators.ServiceField{{Name: "t", Type: "time"}}}
	r := newROSRig(t)
	for svc, typ := range map[string]actuators.ServiceType{"/sim/deep": deep, "/sim/wide": wide, "/sim/undefined": undefined, "/sim/odd": odd} {
		r.ros.knows(svc, typ)
	}
	r.tools.Policy.Services = append(r.tools.Policy.Services, ServiceRule{Pattern: "/sim/*", Tier: TierWrite})
	for svc, why := range map[string]string{"/sim/deep": "nest more than 6 deep", "/sim/wide": "more than 200 fields", "/sim/undefined": "a/msg/Nowhere, whose definition", "/sim/odd": `"time" is not a ROS scalar`} {
		e := mustRefuse(t, r, "service_call", `{"service":"`+svc+`","request":{}}`, CodeInvalidArgument, "service_type_supported")
		if !strings.Contains(e.Message, why) || strings.Contains(e.Expected, "a/srv/") {
			t.Errorf("%s: %+v", svc, e)
		}
	}
	list := mustOK(t, r, RolePlanner, "services_list", `{"prefix":"/sim/"}`)
	notes := map[string]string{}
	for _, it := range list["items"].([]any) {
		m := it.(map[string]any)
		if strings.HasPrefix(m["type"].(string), "a/srv/") {
			note, _ := m["note"].(string)
			if m["callable"] != false || !strings.HasPrefix(note, "not callable: ") {
				t.Errorf("%v", m)
			}
			notes[m["name"].(string)] = note
		}
	}
	if len(notes) != 4 {
		t.Fatalf("notes %v", notes)
	}
	if _, _, _, calls, _ := r.ros.counts(); calls != 0 {
		t.Fatal("a type not offered was called")
	}
	tl, _ := r.p.Registry.Lookup(ServiceCallTool)
	if d := tl.Shape().Description; strings.Contains(d, "a/srv/") {
		t.Fatalf("description offers a refused type: %s", d)
	}
}

// connectFront serves a front over an in-memory transport to a client
// that reports tools/list_changed on changed.
func connectFront(t *testing.T, front *Front, changed chan<- struct{}) *mcp.ClientSession {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := front.Server().Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case changed <- struct{}{}:
			default:
			}
		}})
	cs, err := client.Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func requestProps(t *testing.T, raw any) map[string]any {
	t.Helper()
	b, _ := json.Marshal(raw)
	var in struct {
		Properties struct {
			Request struct {
				Properties map[string]any `json:"properties"`
			} `json:"request"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(b, &in); err != nil {
		t.Fatal(err)
	}
	return in.Properties.Request.Properties
}

func callMCP(t *testing.T, cs *mcp.ClientSession, tool, args string) map[string]any {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(res.StructuredContent)
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	if res.IsError {
		out["isError"] = true
	}
	return out
}

// A service type the transport learns from a probe (ros2: a node's type
// description) makes service_call take its fields: before, its fields are
// refused with a hint to call services_list; services_list's probe grows
// the transport's types, service_call's listing is set (the registered
// tool stays the one declared), the MCP client is sent
// tools/list_changed and lists the new schema, and the nested request then
// goes through.
func TestALearnedTypeGrowsServiceCallsListingAndTheClientIsToldTheListChanged(t *testing.T) {
	r := newROSRig(t)
	r.ros.learnOnProbe("/sim/set_parameters", setParameters())
	r.tools.Policy.Services = append(r.tools.Policy.Services, ServiceRule{Pattern: "/sim/set_parameters", Tier: TierWrite})
	changed := make(chan struct{}, 1)
	cs := connectFront(t, &Front{Pipeline: r.p, Name: "actbridge", Version: "test"}, changed)
	ctx := context.Background()
	lt, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	schemaOf := func(lt *mcp.ListToolsResult) map[string]any {
		for _, tl := range lt.Tools {
			if tl.Name == ServiceCallTool {
				return requestProps(t, tl.InputSchema)
			}
		}
		t.Fatal("service_call not listed")
		return nil
	}
	if _, ok := schemaOf(lt)["parameters"]; ok {
		t.Fatal("parameters offered before the type was learned")
	}
	req := `{"service":"/sim/set_parameters","request":{"parameters":[{"name":"led.level","value":{"type":3,"double_value":0.25}}]}}`
	out := callMCP(t, cs, ServiceCallTool, req)
	if out["code"] != string(CodeInvalidArgument) || out["field"] != "request.parameters" || !strings.Contains(out["hint"].(string), "services_list") {
		t.Fatalf("before learning: %v", out)
	}
	list := callMCP(t, cs, "services_list", `{"prefix":"/sim/set"}`)
	if b, _ := json.Marshal(list["items"]); !strings.Contains(string(b), `"callable":true`) {
		t.Fatalf("services_list: %s", b)
	}
	wait, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	select {
	case <-changed:
	case <-wait.Done():
		t.Fatal("no notifications/tools/list_changed after the type was learned")
	}
	lt, err = cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	props := schemaOf(lt)
	if _, ok := props["parameters"]; !ok {
		t.Fatalf("service_call's request after learning: %v", props)
	}
	for _, tl := range lt.Tools {
		if tl.Name == ServiceCallTool && !strings.Contains(tl.Description, "rcl_interfaces/srv/SetParameters") {
			t.Fatalf("description: %s", tl.Description)
		}
	}
	out = callMCP(t, cs, ServiceCallTool, req)
	if out["isError"] == true || out["type"] != "rcl_interfaces/srv/SetParameters" {
		t.Fatalf("after learning: %v", out)
	}
	if got, _ := json.Marshal(r.ros.lastRequest()); !strings.Contains(string(got), `"double_value":0.25`) {
		t.Fatalf("sent %s", got)
	}
	// A second probe of known types changes nothing: the same shape.
	tl := mustLookup(t, r.p.Registry, ServiceCallTool)
	before := tl.Shape().Input
	callMCP(t, cs, "services_list", `{}`)
	if mustLookup(t, r.p.Registry, ServiceCallTool) != tl || tl.Shape().Input != before {
		t.Fatal("service_call's shape was set again though no type was learned")
	}
}

// In lazy mode service_call is found through tools_search, which shows the
// learned fields at once, and tools_invoke checks against them; the
// core list does not change.
func TestLazyModeSearchAndInvokeFollowALearnedType(t *testing.T) {
	r := newROSRig(t)
	r.ros.learnOnProbe("/sim/set_parameters", setParameters())
	r.tools.Policy.Services = append(r.tools.Policy.Services, ServiceRule{Pattern: "/sim/set_parameters", Tier: TierWrite})
	r.p.Registry.SetCore("tools_search", "tools_invoke", "tools_batch")
	cs := connectFront(t, &Front{Pipeline: r.p, Lazy: true, Name: "actbridge", Version: "test"}, make(chan struct{}, 1))
	found := func() map[string]any {
		out := callMCP(t, cs, "tools_search", `{"query":"call a service","limit":10}`)
		for _, g := range out["groups"].([]any) {
			for _, tl := range g.(map[string]any)["tools"].([]any) {
				if m := tl.(map[string]any); m["name"] == ServiceCallTool {
					return requestProps(t, m["input_schema"])
				}
			}
		}
		t.Fatalf("tools_search did not find service_call: %v", out)
		return nil
	}
	if _, ok := found()["parameters"]; ok {
		t.Fatal("parameters found before the type was learned")
	}
	callMCP(t, cs, "tools_invoke", `{"name":"services_list","arguments":{}}`)
	if _, ok := found()["parameters"]; !ok {
		t.Fatal("tools_search does not show the learned type")
	}
	out := callMCP(t, cs, "tools_invoke", `{"name":"service_call","arguments":{"service":"/sim/set_parameters","request":{"parameters":[{"name":"x","value":{"type":1,"bool_value":true}}]}}}`)
	if out["isError"] == true || out["type"] != "rcl_interfaces/srv/SetParameters" {
		t.Fatalf("%v", out)
	}
	lt, err := cs.ListTools(context.Background(), nil)
	if err != nil || len(lt.Tools) != 3 {
		t.Fatalf("lazy list changed: %v %v", lt, err)
	}
}

// service_call and services_list run concurrently while the transport
// learns one type after another: every call is answered from one whole
// shape (run with -race), and the last shape holds every learned field.
func TestCallsWhileTheListingGrowsSeeOneWholeShape(t *testing.T) {
	r := newROSRig(t)
	r.tools.Policy.Services = append(r.tools.Policy.Services, ServiceRule{Pattern: "/sim/learn/*", Tier: TierRead})
	const learned = 20
	for i := range learned {
		r.ros.learnOnProbe(fmt.Sprintf("/sim/learn/s%02d", i), actuators.ServiceType{Name: fmt.Sprintf("a/srv/T%02d", i),
			Request:  []actuators.ServiceField{{Name: fmt.Sprintf("f%02d", i), Type: fmt.Sprintf("a/msg/M%02d", i)}},
			Messages: map[string][]actuators.ServiceField{fmt.Sprintf("a/msg/M%02d", i): {{Name: "x", Type: "int32"}}}})
	}
	changed := make(chan struct{}, 1)
	front := &Front{Pipeline: r.p, Name: "actbridge", Version: "test"}
	cs := connectFront(t, front, changed)
	var wg sync.WaitGroup
	errs := make(chan string, 4*learned)
	for i := range learned {
		wg.Add(2)
		go func() {
			defer wg.Done()
			// Probing it teaches its type; the request is checked against it.
			svc := fmt.Sprintf("/sim/learn/s%02d", i)
			if _, err := r.call(t, RolePlanner, ServiceCallTool, `{"service":"`+svc+`","request":{}}`); err == nil || err.Field != fmt.Sprintf("request.f%02d", i) {
				errs <- fmt.Sprintf("%s: %+v", svc, err)
			}
		}()
		go func() {
			defer wg.Done()
			if out := callMCP(t, cs, ServiceCallTool, `{"service":"/sim/led/set","request":{"data":true}}`); out["isError"] == true {
				errs <- fmt.Sprintf("led/set: %v", out)
			}
			if _, err := r.call(t, RolePlanner, "services_list", `{"limit":100}`); err != nil {
				errs <- fmt.Sprintf("services_list: %+v", err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	tl, _ := r.p.Registry.Lookup(ServiceCallTool)
	props := tl.Shape().Input.Properties["request"].Properties
	for i := range learned {
		if _, ok := props[fmt.Sprintf("f%02d", i)]; !ok {
			t.Errorf("f%02d missing from the last tool", i)
		}
	}
	if err := CheckContract(tl); err != nil {
		t.Fatal(err)
	}
	// The front lists the registry's tool once the notifications settle.
	wait, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		lt, err := cs.ListTools(wait, nil)
		if err != nil {
			t.Fatal(err)
		}
		var got map[string]any
		for _, x := range lt.Tools {
			if x.Name == ServiceCallTool {
				got = requestProps(t, x.InputSchema)
			}
		}
		if len(got) == len(props) {
			break
		}
		select {
		case <-changed:
		case <-wait.Done():
			t.Fatalf("the front lists %d request fields, the registry %d", len(got), len(props))
		}
	}
}

// A preview is bound to its type's definition, not only its name: a node
// restarted with another definition under the same type name (another
// RIHS01 hash) makes the preview stale and sends nothing, and service_call
// is rebuilt to check requests against the new definition.
func TestAPreviewOfATypeRedefinedSinceIsStale(t *testing.T) {
	r := newROSRig(t)
	v1 := actuators.ServiceType{Name: "acme/srv/Blink", Request: []actuators.ServiceField{{Name: "led", Type: "acme/msg/Led"}},
		Messages: map[string][]actuators.ServiceField{"acme/msg/Led": {{Name: "index", Type: "uint8"}}}}
	r.ros.knows("/acme/blink", v1)
	r.tools.services()
	r.tools.Policy.Services = append(r.tools.Policy.Services, ServiceRule{Pattern: "/acme/blink", Tier: TierIrreversible, Confirm: RolePlanner})
	pv := mustOK(t, r, RolePlanner, "service_call", `{"service":"/acme/blink","request":{"led":{"index":2}}}`)
	v2 := v1
	v2.Messages = map[string][]actuators.ServiceField{"acme/msg/Led": {{Name: "index", Type: "uint8"}, {Name: "burn", Type: "bool"}}}
	r.ros.redefines(v2)
	mustRefuse(t, r, "motion_confirm", `{"preview_id":"`+pv["preview_id"].(string)+`"}`, CodeStalePreview, "")
	if r.ros.calls["/acme/blink"] != 0 {
		t.Fatalf("a stale preview called the service: %v", r.ros.calls)
	}
	// The new field is taken once a probe saw the new definition (the
	// refusal's hint: services_list).
	mustOK(t, r, RolePlanner, "services_list", `{}`)
	pv2 := mustOK(t, r, RolePlanner, "service_call", `{"service":"/acme/blink","request":{"led":{"index":2,"burn":false}}}`)
	if c := mustOK(t, r, RolePlanner, "motion_confirm", `{"preview_id":"`+pv2["preview_id"].(string)+`"}`); c["state"] != "succeeded" || r.ros.calls["/acme/blink"] != 1 {
		t.Fatalf("confirm of the new preview: %v, calls %v", c, r.ros.calls)
	}
}

// An action called as a service (franka's ErrorRecovery) answers its
// goal's end status: anything but SUCCEEDED ends the motion aborted, so
// the planner is never told a failed recovery worked; SUCCEEDED succeeds.
func TestAnActionCalledAsAServiceSucceedsOnlyWhenItsGoalSucceeded(t *testing.T) {
	for _, c := range []struct{ status, want string }{{"ABORTED", "aborted"}, {"CANCELED", "aborted"}, {"SUCCEEDED", "succeeded"}} {
		t.Run(c.status, func(t *testing.T) {
			r := newROSRig(t)
			r.ros.knows("/action_server/error_recovery", actuators.ServiceType{Name: "franka_msgs/action/ErrorRecovery",
				Response: []actuators.ServiceField{{Name: "status", Type: "string"}}})
			r.tools.services()
			r.tools.Policy.Services = append(r.tools.Policy.Services, ServiceRule{Pattern: "/action_server/error_recovery", Tier: TierIrreversible, Confirm: RolePlanner})
			r.ros.mu.Lock()
			r.ros.answer = map[string]any{"status": c.status}
			r.ros.mu.Unlock()
			pv := mustOK(t, r, RolePlanner, "service_call", `{"service":"/action_server/error_recovery","request":{}}`)
			got := mustOK(t, r, RolePlanner, "motion_confirm", `{"preview_id":"`+pv["preview_id"].(string)+`"}`)
			if got["state"] != c.want {
				t.Fatalf("status %s: motion %v, want %s", c.status, got, c.want)
			}
		})
	}
}
