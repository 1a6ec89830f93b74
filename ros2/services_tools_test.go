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
	"github.com/actbridge/actbridge/ros2/msgs"
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
	reg.MustAdd(bridge.TopicSampleTool(r, t.TempDir()))
	p := bridge.NewPipeline(reg)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	call := func(tool, args string) (map[string]any, *bridge.Error) {
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
	got = must("services_list", `{"prefix":"/simrobot/"}`)
	listed, _ := json.Marshal(got["items"])
	// A request nesting messages (set_parameters) is listed, not callable.
	if !strings.Contains(string(listed), `{"callable":true,"name":"/simrobot/goals","providers":["/simrobot"],"tier":"read","type":"std_srvs/srv/Trigger"}`) ||
		!strings.Contains(string(listed), `{"callable":false,"name":"/simrobot/set_parameters"`) {
		t.Errorf("services_list: %s", listed)
	}
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
