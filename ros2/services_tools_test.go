package ros2

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/actbridge/actbridge/allowlist"
	"github.com/actbridge/actbridge/bridge"
	"github.com/actbridge/actbridge/msgs/ros2"
)

// The guarded ROS tools run over the ROS 2 transport as over ROS 1: the
// bridge's own tools (allowlists, types, refusals) against the sim, with
// parameter patterns in the /<node>/<param.name> form.
func TestGuardedToolsOverROS2AgainstTheSim(t *testing.T) {
	r, sim := accessRig(t, msgs.Jazzy, 147)
	one := 1.0
	rt := &bridge.ROSTools{ROS: r, DataDir: t.TempDir(), Images: bridge.NewImages(), Policy: bridge.AccessPolicy{
		Topics:    allowlist.Globs{"/joint_states", "/camera/*"},
		ParamRead: allowlist.Globs{"/joint_trajectory_controller/constraints.*"},
		ParamSet: []bridge.ParamRule{{Pattern: "/simrobot/faults.arm.lag", Type: "double", Min: new(float64), Max: &one},
			// The config is wrong on purpose: the sim's node declares an integer.
			{Pattern: "/simrobot/faults.arm.abort_error_code", Type: "double"}},
		Services: []bridge.ServiceRule{{Pattern: "/simrobot/*", Tier: bridge.TierRead}},
	}}
	reg := bridge.NewRegistry()
	reg.MustAdd(rt.Tools()...)
	reg.MustAdd(bridge.TopicSampleTool(r, t.TempDir(), rt.Policy.Topics))
	p := bridge.NewPipeline(reg, bridge.PipelineDeps{})
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	call := plannerCalls(t, ctx, p)
	must := func(tool, args string) map[string]any {
		t.Helper()
		out, err := call(tool, args)
		if err != nil {
			t.Fatalf("%s %s: %+v\nsim:\n%s", tool, args, err, sim.Output())
		}
		return out
	}
	refused := func(tool, args string, code bridge.Code, rule string) {
		t.Helper()
		if _, err := call(tool, args); err == nil || err.Code != code || rule != "" && err.Rule != rule {
			t.Errorf("%s %s: %+v, want %s %s", tool, args, err, code, rule)
		}
	}

	got := must("params_get", `{"prefix":"/joint_trajectory_controller/constraints."}`)
	if items, _ := got["items"].([]any); len(items) != 1+2*len(simArmJoints) {
		t.Errorf("params_get by prefix: %v", got)
	}
	got = must("params_set", `{"name":"/simrobot/faults.arm.lag","number":0.3}`)
	if got["previous"] != 0.0 || got["value"] != 0.3 {
		t.Errorf("params_set: %v", got)
	}
	refused("params_set", `{"name":"/simrobot/faults.arm.abort_error_code","number":2}`, bridge.CodeInvalidArgument, "accepted_by_robot")
	refused("params_set", `{"name":"/joint_trajectory_controller/constraints.goal_time","number":2}`, bridge.CodePermissionDenied, "param_set_allowed")
	refused("params_get", `{"name":"/simrobot/faults.arm.lag_nope"}`, bridge.CodePermissionDenied, "")

	providersOf(t, r, "/simrobot/goals")
	providersOf(t, r, "/simrobot/set_led")
	// A request nesting messages (set_parameters) is callable: the
	// transport offers it with the messages it nests; so is set_led, of
	// the sim's own type, once learned from /simrobot's type description.
	if typ, err := r.ServiceType(ctx, "/simrobot/set_led"); err != nil {
		t.Fatalf("set_led: %s %v", typ, err)
	}
	got = must("services_list", `{"prefix":"/simrobot/"}`)
	listed, _ := json.Marshal(got["items"])
	for _, want := range []string{
		`{"callable":true,"name":"/simrobot/goals","providers":["/simrobot"],"tier":"read","type":"std_srvs/srv/Trigger"}`,
		`{"callable":true,"name":"/simrobot/set_parameters"`,
		`{"callable":true,"name":"/simrobot/set_led","providers":["/simrobot"],"tier":"read","type":"actbridge_sim_msgs/srv/SetLed"}`,
	} {
		if !strings.Contains(string(listed), want) {
			t.Errorf("services_list: %s\nwant %s", listed, want)
		}
	}
	// set_led's nested request is checked against the learned type by the
	// tool layer and reaches the sim: its answer says what the LED showed.
	got = must("service_call", `{"service":"/simrobot/set_led","request":{"led":"status","colors":[{"red":9,"green":8,"blue":7}],"blink_hz":1}}`)
	if resp, _ := got["response"].(map[string]any); resp["success"] != true || got["type"] != "actbridge_sim_msgs/srv/SetLed" {
		t.Errorf("service_call set_led: %v", got)
	}
	got = must("service_call", `{"service":"/simrobot/set_led","request":{"led":"status","colors":[],"blink_hz":0}}`)
	if b, _ := json.Marshal(got["response"]); !strings.Contains(string(b), `"previous":[{"blue":7,"green":8,"red":9}]`) {
		t.Errorf("service_call set_led again: %s", b)
	}
	refused("service_call", `{"service":"/simrobot/set_led","request":{"led":"status","colors":[{"red":300}],"blink_hz":0}}`, bridge.CodeInvalidArgument, "")
	got = must("service_call", `{"service":"/simrobot/goals","request":{}}`)
	if resp, _ := got["response"].(map[string]any); resp["success"] != true {
		t.Errorf("service_call: %v", got)
	}
	refused("service_call", `{"service":"/simrobot/no_such","request":{}}`, bridge.CodeNotFound, "service_exists")

	got = must("camera_snapshot", `{"topic":"/camera/image_raw","timeout_s":5}`)
	if got["width"] != 320.0 || got["height"] != 240.0 {
		t.Errorf("camera_snapshot: %v", got)
	}
	got = must("topic_sample", `{"topic":"/joint_states","n":2}`)
	if b, _ := json.Marshal(got); !strings.Contains(string(b), "shoulder_pan_joint") {
		t.Errorf("topic_sample: %s", b)
	}
}

// service_call sends a request nesting messages two deep over ROS 2: the
// sim's own rcl_interfaces/srv/SetParameters on /simrobot/set_parameters,
// allowlisted as a write-tier service, changes the parameter params_get
// then reads; a request breaking the type deep inside is refused with its
// path and changes nothing.
func TestServiceCallSetsAParameterWithANestedRequestOverROS2(t *testing.T) {
	r, sim := accessRig(t, msgs.Jazzy, 158)
	waitService(t, r, "/simrobot/set_parameters", sim.Output)
	rt := &bridge.ROSTools{ROS: r, DataDir: t.TempDir(), Images: bridge.NewImages(), Policy: bridge.AccessPolicy{
		ParamRead: allowlist.Globs{"/simrobot/faults.arm.*"},
		Services:  []bridge.ServiceRule{{Pattern: "/simrobot/set_parameters", Tier: bridge.TierWrite, Type: "rcl_interfaces/srv/SetParameters"}},
	}}
	reg := bridge.NewRegistry()
	reg.MustAdd(rt.Tools()...)
	p := bridge.NewPipeline(reg, bridge.PipelineDeps{})
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	call := plannerCalls(t, ctx, p)
	lag := func() any {
		t.Helper()
		got, err := call("params_get", `{"name":"/simrobot/faults.arm.lag"}`)
		if err != nil {
			t.Fatalf("params_get: %+v", err)
		}
		return got["items"].([]any)[0].(map[string]any)["value"]
	}
	if v := lag(); v != 0.0 {
		t.Fatalf("lag before: %v", v)
	}
	_, err := call("service_call", `{"service":"/simrobot/set_parameters","request":{"parameters":[{"name":"faults.arm.lag","value":{"type":3,"double_value":"0.25"}}]}}`)
	if err == nil || err.Field != "request.parameters[0].value.double_value" || err.Expected != "number in [-1e+12, 1e+12]" {
		t.Fatalf("a bad nested value: %+v", err)
	}
	// type 3 is PARAMETER_DOUBLE (rcl_interfaces/msg/ParameterType)
	got, err := call("service_call", `{"service":"/simrobot/set_parameters","request":{"parameters":[{"name":"faults.arm.lag","value":{"type":3,"double_value":0.25}}]}}`)
	if err != nil {
		t.Fatalf("service_call: %+v\nsim:\n%s", err, sim.Output())
	}
	results, _ := got["response"].(map[string]any)["results"].([]any)
	if got["tier"] != "write" || len(results) != 1 || results[0].(map[string]any)["successful"] != true {
		t.Fatalf("service_call: %v", got)
	}
	if v := lag(); v != 0.25 {
		t.Fatalf("lag after set_parameters: %v", v)
	}
	// An int64 nested two deep arrives exact at 2^53, the largest integer
	// a JSON number holds exactly (PARAMETER_INTEGER is 2).
	got, err = call("service_call", `{"service":"/simrobot/set_parameters","request":{"parameters":[{"name":"faults.arm.abort_error_code","value":{"type":2,"integer_value":9007199254740992}}]}}`)
	if err != nil {
		t.Fatalf("service_call: %+v", err)
	}
	code, err := call("params_get", `{"name":"/simrobot/faults.arm.abort_error_code"}`)
	if err != nil || code["items"].([]any)[0].(map[string]any)["value"] != 9007199254740992.0 {
		t.Fatalf("abort_error_code after set_parameters: %v %+v (%v)", code, err, got)
	}
	// The node refuses a value of another type than it declared: it
	// answers, and the parameter keeps its value.
	got, err = call("service_call", `{"service":"/simrobot/set_parameters","request":{"parameters":[{"name":"faults.arm.lag","value":{"type":4,"string_value":"slow"}}]}}`)
	if err != nil {
		t.Fatalf("service_call: %+v", err)
	}
	results, _ = got["response"].(map[string]any)["results"].([]any)
	if len(results) != 1 || results[0].(map[string]any)["successful"] != false || lag() != 0.25 {
		t.Fatalf("a string for a double: %v, lag %v", got, lag())
	}
}

// plannerCalls calls the pipeline's tools as the planner, results as JSON.
func plannerCalls(t *testing.T, ctx context.Context, p *bridge.Pipeline) func(tool, args string) (map[string]any, *bridge.Error) {
	return func(tool, args string) (map[string]any, *bridge.Error) {
		t.Helper()
		res, err := p.Call(ctx, tool, json.RawMessage(args), bridge.Invocation{Role: bridge.RolePlanner})
		if err != nil {
			return nil, err
		}
		b, _ := json.Marshal(res)
		var out map[string]any
		if jerr := json.Unmarshal(b, &out); jerr != nil {
			t.Fatalf("%s: %v", tool, jerr)
		}
		return out, nil
	}
}

// Humble (no type hashes, 24-byte Gids) and Kilted serve the same access
// as Jazzy: parameters listed, read and set, a Trigger called, a frame read.
func TestAccessOnHumbleAndKilted(t *testing.T) {
	for i, d := range []msgs.Distro{msgs.Humble, msgs.Kilted} {
		t.Run(string(d), func(t *testing.T) {
			r, sim := accessRig(t, d, 150+i)
			ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
			defer cancel()
			names, err := r.ParamNames(ctx)
			if err != nil || !slices.Contains(names, "/simrobot/faults.arm.lag") {
				t.Fatalf("names %v %v\nsim:\n%s", names, err, sim.Output())
			}
			if err := r.SetParam(ctx, "/simrobot/faults.arm.lag", 0.5); err != nil {
				t.Fatal(err)
			}
			if v, err := r.GetParam(ctx, "/simrobot/faults.arm.lag"); err != nil || v != 0.5 {
				t.Fatalf("lag %v %v", v, err)
			}
			if res, err := r.CallService(ctx, "/simrobot/goals", "std_srvs/srv/Trigger", nil, 10*time.Second); err != nil || res["success"] != true {
				t.Fatalf("goals %v %v", res, err)
			}
			if f, err := r.Snapshot(ctx, "/camera/image_raw/compressed", 5*time.Second); err != nil || f.RawExt != "jpg" {
				t.Fatalf("snapshot %+v %v", f, err)
			}
		})
	}
}
