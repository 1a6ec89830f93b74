package ros2

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/config"
	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/test/ddspeers"
	"github.com/actbridge/actbridge/test/netns"
)

// The sim's Trigger services are listed with their node, typed from
// discovery, and called once; a call that cannot go out says nothing was
// sent.
func TestServicesOfTheSimAreListedTypedAndCalled(t *testing.T) {
	r, sim := accessRig(t, msgs.Jazzy, 143)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	if ps := providersOf(t, r, "/simrobot/goals"); !slices.Equal(ps, []string{"/simrobot"}) {
		t.Fatalf("providers %v", ps)
	}
	ss, err := r.Services(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if slices.ContainsFunc(ss, func(s actuators.ServiceInfo) bool { return strings.Contains(s.Name, "/_action/") }) {
		t.Errorf("an action's services listed: %+v", ss)
	}
	if typ, err := r.ServiceType(ctx, "/simrobot/goals"); err != nil || typ != "std_srvs/srv/Trigger" {
		t.Fatalf("type %q %v", typ, err)
	}
	if _, err := r.ServiceType(ctx, "/simrobot/no_such"); !errors.Is(err, actuators.ErrUnknownService) {
		t.Fatalf("unknown service typed: %v", err)
	}
	res, err := r.CallService(ctx, "/simrobot/goals", "std_srvs/srv/Trigger", nil, 10*time.Second)
	if err != nil || res["success"] != true {
		t.Fatalf("goals: %v %v\nsim:\n%s", res, err, sim.Output())
	}
	if _, ok := res["message"].(string); !ok {
		t.Fatalf("response %v", res)
	}
	// The service's client is kept: a second call goes through the same
	// one, whose endpoints the server matched already.
	kept := r.access.services[serviceKey{"/simrobot/goals", "std_srvs::srv::dds_::Trigger_Request_"}]
	if kept == nil {
		t.Fatalf("no client kept for /simrobot/goals: %v", r.access.services)
	}
	if res, err := r.CallService(ctx, "/simrobot/goals", "std_srvs/srv/Trigger", nil, 10*time.Second); err != nil || res["success"] != true {
		t.Fatalf("goals again: %v %v", res, err)
	}
	if again := r.access.services[serviceKey{"/simrobot/goals", "std_srvs::srv::dds_::Trigger_Request_"}]; again != kept || len(r.access.services) != 1 {
		t.Fatalf("the second call made another client (%d kept)", len(r.access.services))
	}
	// The distro's set is the catalogue: rcl_interfaces' services too,
	// with nested fields in ROS form.
	types := r.ServiceTypes()
	j := slices.IndexFunc(types, func(s actuators.ServiceType) bool { return s.Name == "rcl_interfaces/srv/GetParameters" })
	if j < 0 || !slices.Equal(types[j].Request, []actuators.ServiceField{{Name: "names", Type: "string[]"}}) {
		t.Fatalf("service types %+v", types)
	}
	res, err = r.CallService(ctx, "/joint_trajectory_controller/get_parameters", "rcl_interfaces/srv/GetParameters",
		map[string]any{"names": []any{"constraints.goal_time"}}, 10*time.Second)
	if vs, _ := res["values"].([]any); err != nil || len(vs) != 1 || vs[0].(map[string]any)["double_value"] != 0.5 {
		t.Fatalf("get_parameters: %v %v", res, err)
	}
	for _, c := range []struct {
		name, typ string
		req       map[string]any
		also      error
	}{
		{"/simrobot/no_such", "std_srvs/srv/Trigger", nil, actuators.ErrUnknownService},
		{"/simrobot/goals", "std_srvs/srv/SetBool", map[string]any{"data": true}, nil}, // another type
		{"/simrobot/goals", "example_interfaces/srv/AddTwoInts", nil, actuators.ErrUnsupportedType},
		{"/simrobot/goals", "std_srvs/srv/Trigger", map[string]any{"bogus": 1}, actuators.ErrInvalidArgument},
	} {
		_, err := r.CallService(ctx, c.name, c.typ, c.req, 2*time.Second)
		if !errors.Is(err, actuators.ErrServiceNotSent) || c.also != nil && !errors.Is(err, c.also) {
			t.Errorf("%s as %s %v: %v, want not sent (%v)", c.name, c.typ, c.req, err, c.also)
		}
	}
}

// Against each vendor's nodes (CycloneDDS, Fast DDS 2.9 and 3.1, each in its rmw's
// service dialect): a parameter is listed, read, set and refused by its
// node as rclcpp refuses; a Trigger is called exactly once, and a call
// of another type reaches nothing (the server's own log counts).
func TestParametersAndServicesOfEachVendorsNode(t *testing.T) {
	p := ddspeers.BuildNodes(t, msgs.Jazzy)
	for i, v := range vendorPeers(p.Cyclone, p.Fast, p.Fast3(t)) {
		t.Run(v.name, func(t *testing.T) {
			v.need(t)
			ns := netns.Require(t)
			domain := 145 + i
			ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
			defer cancel()
			params := ddspeers.StartParamServer(t, ns, v.bin, "ctl", []string{"speed=double:0.5", "arm.name=string:ur5", "safe=bool:true"},
				"--namespace", "/robot", "--read-only", "safe", "--domain", strconv.Itoa(domain))
			trigger := ddspeers.StartTriggerServer(t, ns, v.bin, "/robot/trigger", "--timeout", "0", "--node", "trigger_node",
				"--namespace", "/robot", "--domain", strconv.Itoa(domain))
			for _, s := range []*ddspeers.Proc{params, trigger} {
				if err := s.WaitStderr(ctx, "ready"); err != nil {
					t.Fatalf("%v: %s", err, s.Stderr())
				}
			}
			defer func() {
				if t.Failed() {
					t.Logf("param server:\n%s\n%s\ntrigger server:\n%s\n%s", params.Stdout(), params.Stderr(), trigger.Stdout(), trigger.Stderr())
				}
			}()
			r := openOn(t, msgs.Jazzy, domain, config.DiscoverySubnet)
			waitService(t, r, "/robot/ctl/list_parameters", params.Stderr)
			waitService(t, r, "/robot/trigger", trigger.Stderr)

			names, err := r.ParamNames(ctx)
			if err != nil || !slices.Equal(names, []string{"/robot/ctl/arm.name", "/robot/ctl/safe", "/robot/ctl/speed"}) {
				t.Fatalf("ParamNames %v %v", names, err)
			}
			if v, err := r.GetParam(ctx, "/robot/ctl/arm.name"); err != nil || v != "ur5" {
				t.Fatalf("arm.name %v %v", v, err)
			}
			if err := r.SetParam(ctx, "/robot/ctl/speed", 0.75); err != nil {
				t.Fatal(err)
			}
			if v, err := r.GetParam(ctx, "/robot/ctl/speed"); err != nil || v != 0.75 {
				t.Fatalf("speed after set %v %v", v, err)
			}
			for _, c := range []struct {
				name   string
				value  any
				reason string
			}{
				{"/robot/ctl/speed", "fast", "Wrong parameter type"},
				{"/robot/ctl/safe", false, "read-only"},
				{"/robot/ctl/nope", 1, "not declared"},
			} {
				if err := r.SetParam(ctx, c.name, c.value); !errors.Is(err, ErrParamRefused) || !strings.Contains(err.Error(), c.reason) {
					t.Errorf("set %s = %v: %v, want refused: %s", c.name, c.value, err, c.reason)
				}
			}
			if _, err := r.GetParam(ctx, "/robot/ctl/nope"); !errors.Is(err, actuators.ErrParamNotSet) {
				t.Errorf("undeclared read: %v", err)
			}

			if ps := providersOf(t, r, "/robot/trigger"); !slices.Equal(ps, []string{"/robot/trigger_node"}) {
				t.Fatalf("providers %v", ps)
			}
			if _, err := r.CallService(ctx, "/robot/trigger", "std_srvs/srv/SetBool", map[string]any{"data": true}, 5*time.Second); !errors.Is(err, actuators.ErrServiceNotSent) {
				t.Fatalf("a SetBool to a Trigger: %v", err)
			}
			res, err := r.CallService(ctx, "/robot/trigger", "std_srvs/srv/Trigger", nil, 10*time.Second)
			if err != nil || res["success"] != true {
				t.Fatalf("trigger %v %v", res, err)
			}
			if err := trigger.WaitStdout(ctx, `"call":1`); err != nil { // the peer logs after it replied
				t.Fatal(err)
			}
			time.Sleep(200 * time.Millisecond) // a second call, were there one, would be logged by now
			calls, err := ddspeers.JSONLines[ddspeers.ServedCall](trigger.Stdout())
			if err != nil {
				t.Fatal(err)
			}
			served := slices.DeleteFunc(calls, func(c ddspeers.ServedCall) bool { return c.Call == 0 }) // the node's announcement line
			if len(served) != 1 || !served[0].Replied {
				t.Fatalf("the server saw %+v, want one call", calls)
			}
		})
	}
}

// Every distro's catalogue loads: its messages are sampleable, its
// services callable with their fields in ROS form, and a request nesting
// messages comes with the definition of every message it nests.
func TestEveryDistrosCatalogueOffersItsTypes(t *testing.T) {
	for _, d := range msgs.Distros() {
		sample, err := SampleTypesOf(d)
		if err != nil {
			t.Fatal(err)
		}
		services, err := ServiceTypesOf(d)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(sample, TypeImage) || !slices.Contains(sample, TypeCompressedImage) || !slices.IsSorted(sample) {
			t.Errorf("%s: sample types %v", d, sample)
		}
		want := map[string][]actuators.ServiceField{
			"std_srvs/srv/Trigger":              {},
			"std_srvs/srv/Empty":                {}, // its dummy member is no field to give
			"std_srvs/srv/SetBool":              {{Name: "data", Type: "bool"}},
			"rcl_interfaces/srv/ListParameters": {{Name: "prefixes", Type: "string[]"}, {Name: "depth", Type: "uint64"}},
			// offered now that the tool layer checks nested requests
			"nested:rcl_interfaces/srv/SetParameters": nil, "nested:action_msgs/srv/CancelGoal": nil,
		}
		if !slices.IsSortedFunc(services, byName) {
			t.Errorf("%s: service types not sorted by name", d)
		}
		for _, st := range services {
			if st.Name == "rcl_interfaces/srv/SetParameters" {
				value := st.Messages["rcl_interfaces/msg/ParameterValue"]
				if !slices.Equal(st.Request, []actuators.ServiceField{{Name: "parameters", Type: "rcl_interfaces/msg/Parameter[]"}}) ||
					!slices.Equal(st.Messages["rcl_interfaces/msg/Parameter"], []actuators.ServiceField{{Name: "name", Type: "string"}, {Name: "value", Type: "rcl_interfaces/msg/ParameterValue"}}) ||
					len(value) != 10 || value[0] != (actuators.ServiceField{Name: "type", Type: "uint8"}) ||
					!slices.Contains(value, actuators.ServiceField{Name: "string_array_value", Type: "string[]"}) ||
					st.Messages["rcl_interfaces/msg/SetParametersResult"] == nil {
					t.Errorf("%s: SetParameters %+v", d, st)
				}
			}
			for _, f := range append(slices.Clone(st.Request), st.Response...) {
				if elem, _, _ := strings.Cut(f.Type, "["); strings.Contains(elem, "/") && st.Messages[elem] == nil {
					t.Errorf("%s: %s nests %s without its definition", d, st.Name, elem)
				}
			}
			delete(want, "nested:"+st.Name)
			if w, ok := want[st.Name]; ok {
				if !slices.Equal(st.Request, w) {
					t.Errorf("%s: %s request %+v, want %+v", d, st.Name, st.Request, w)
				}
				delete(want, st.Name)
			}
		}
		if len(want) > 0 {
			t.Errorf("%s: missing %v", d, want)
		}
	}
}
