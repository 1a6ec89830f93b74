package ros2

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/actbridge/actbridge/actuators"
)

// The sim's Trigger services are listed with their node, typed from
// discovery, and called once; a call that cannot go out says nothing was
// sent.
func TestServicesOfTheSimAreListedTypedAndCalled(t *testing.T) {
	r, sim := simRig(t, 143)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	ss, err := r.Services(ctx)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(ss, func(s actuators.ServiceInfo) bool { return s.Name == "/simrobot/goals" })
	if i < 0 || !slices.Equal(ss[i].Providers, []string{"/simrobot"}) {
		t.Fatalf("services %+v", ss)
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
