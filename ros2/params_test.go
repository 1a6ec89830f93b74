package ros2

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/msgs/ros2"
)

func TestParameterNamesSplitAtTheLongestNode(t *testing.T) {
	nodes := []string{"/arm", "/arm/controller", "/simrobot"}
	for _, c := range []struct{ name, node, param string }{
		{"/simrobot/faults.arm.lag", "/simrobot", "faults.arm.lag"},
		{"/arm/controller/gain.p", "/arm/controller", "gain.p"},
		{"/arm/speed", "/arm", "speed"},
		{"/arm/qos_overrides./tf.publisher.depth", "/arm", "qos_overrides./tf.publisher.depth"},
		{"/unknown/ns/node/x.y", "/unknown/ns/node", "x.y"}, // no such node: the last slash
	} {
		n, p, err := splitParam(nodes, c.name)
		if err != nil || n != c.node || p != c.param {
			t.Errorf("%s: %q %q %v, want %q %q", c.name, n, p, err, c.node, c.param)
		}
	}
	for _, bad := range []string{"nodeless", "/simrobot/", "/"} {
		if _, _, err := splitParam(nodes, bad); !errors.Is(err, actuators.ErrInvalidArgument) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

// The sim's parameters are listed over every node, read and set through
// rcl_interfaces; what its nodes refuse (a wrong type, a read-only
// parameter) is reported with their reason, and nothing changes.
func TestParametersOfTheSimAreListedReadAndGuardedByTheirNodes(t *testing.T) {
	r, sim := accessRig(t, msgs.Jazzy, 142)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	names, err := r.ParamNames(ctx)
	if err != nil {
		t.Fatalf("%v\nsim:\n%s", err, sim.Output())
	}
	for _, want := range []string{"/simrobot/faults.arm.lag", "/joint_trajectory_controller/constraints.goal_time", "/gripper_controller/joint", "/diff_drive_controller/cmd_vel_timeout"} {
		if !slices.Contains(names, want) {
			t.Errorf("ParamNames lacks %s: %v", want, names)
		}
	}
	if !slices.IsSorted(names) || slices.ContainsFunc(names, func(n string) bool { return strings.HasPrefix(n, "/actbridge/") }) {
		t.Errorf("names unsorted or the bridge's own: %v", names)
	}
	for name, want := range map[string]any{
		"/joint_trajectory_controller/constraints.goal_time": 0.5,
		"/gripper_controller/joint":                          "gripper_finger_joint",
		"/simrobot/faults.arm.lag":                           0.0,
	} {
		if v, err := r.GetParam(ctx, name); err != nil || v != want {
			t.Errorf("%s = %v %v, want %v", name, v, err, want)
		}
	}
	if v, err := r.GetParam(ctx, "/joint_trajectory_controller/joints"); err != nil || !slices.Equal(v.([]any), []any{simArmJoints[0], simArmJoints[1], simArmJoints[2], simArmJoints[3], simArmJoints[4], simArmJoints[5]}) {
		t.Errorf("joints = %v %v", v, err)
	}
	for _, name := range []string{"/simrobot/faults.no_such", "/no_such_node/x"} {
		if _, err := r.GetParam(ctx, name); !errors.Is(err, actuators.ErrParamNotSet) {
			t.Errorf("%s: %v, want ErrParamNotSet", name, err)
		}
	}
	if err := r.SetParam(ctx, "/simrobot/faults.arm.lag", 0.25); err != nil {
		t.Fatal(err)
	}
	if v, err := r.GetParam(ctx, "/simrobot/faults.arm.lag"); err != nil || v != 0.25 {
		t.Fatalf("after set: %v %v", v, err)
	}
	for _, c := range []struct {
		name   string
		value  any
		reason string
	}{
		{"/simrobot/faults.arm.lag", "slow", "type"},
		{"/simrobot/faults.arm.lag", 1, "type"},
		{"/joint_trajectory_controller/constraints.goal_time", 2.0, "read-only"},
	} {
		err := r.SetParam(ctx, c.name, c.value)
		if !errors.Is(err, ErrParamRefused) || !errors.Is(err, actuators.ErrInvalidArgument) || !strings.Contains(err.Error(), c.reason) {
			t.Errorf("set %s = %v: %v, want refused (%s)", c.name, c.value, err, c.reason)
		}
	}
	if v, _ := r.GetParam(ctx, "/simrobot/faults.arm.lag"); v != 0.25 {
		t.Errorf("a refused set changed the parameter to %v", v)
	}
	if v, _ := r.GetParam(ctx, "/joint_trajectory_controller/constraints.goal_time"); v != 0.5 {
		t.Errorf("a read-only parameter became %v", v)
	}
}
