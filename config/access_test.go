package config

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestSimConfigCarriesTheAccessListsLimitsAndCaps(t *testing.T) {
	c, err := Load("../launch/robots/sim.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Access.Topics) == 0 || len(c.Access.Params.Set) != 3 || len(c.Access.Services) != 3 || len(c.Access.Events) != 1 {
		t.Fatalf("access = %+v", c.Access)
	}
	reset := c.Access.Services[2]
	if reset.Tier != TierIrreversible || reset.Policy != PolicyPlanner || reset.Timeout.D() != 3*time.Second {
		t.Errorf("reset_odometry = %+v", reset)
	}
	if c.Access.Services[0].Timeout.D() != DefaultServiceTimeout {
		t.Errorf("default service timeout not applied: %+v", c.Access.Services[0])
	}
	if c.RateLimits.Tools["camera_snapshot"] == 0 || c.StepCaps.MaxJointChange == 0 || c.StepCaps.MaxBaseTravel == 0 {
		t.Errorf("limits %+v caps %+v", c.RateLimits, c.StepCaps)
	}
}

func TestIrreversibleServicesAreConfirmedByTheOperatorUnlessTheConfigSaysPlanner(t *testing.T) {
	c, err := Parse([]byte(`
actuators: [{name: arm, kind: arm, action: /a, joints: [j1]}]
access:
  services: [{name: /x/reset, tier: irreversible}, {name: /x/status, tier: read}]
`))
	if err != nil {
		t.Fatal(err)
	}
	if c.Access.Services[0].Policy != PolicyOperator || c.Access.Services[1].Policy != "" {
		t.Fatalf("%+v", c.Access.Services)
	}
}

// TestServiceTypePinsTakeTheTransportsForm: a service rule's type is
// compared with the type discovery reports, std_srvs/Trigger on ROS 1 and
// std_srvs/srv/Trigger on ROS 2, so each transport takes only its form.
func TestServiceTypePinsTakeTheTransportsForm(t *testing.T) {
	const ros2 = "transport: ros2\ndistro: jazzy\nactuators: [{name: arm, kind: arm, action: /a, joints: [j]}]\n"
	const ros1 = "actuators: [{name: arm, kind: arm, action: /a, joints: [j]}]\n"
	for _, tt := range []struct {
		name, head, typ string
		ok              bool
	}{
		{"ros2 form under ros2", ros2, "std_srvs/srv/Trigger", true},
		{"ros1 form under ros2", ros2, "std_srvs/Trigger", false},
		{"a message type under ros2", ros2, "std_msgs/msg/String", false},
		{"an action type under ros2 (called as a service)", ros2, "franka_msgs/action/ErrorRecovery", true},
		{"an action type under ros1", ros1, "franka_msgs/action/ErrorRecovery", false},
		{"ros1 form under ros1", ros1, "std_srvs/Trigger", true},
		{"ros2 form under ros1", ros1, "std_srvs/srv/Trigger", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.head + "access: {services: [{name: /s, tier: read, type: " + tt.typ + "}]}"))
			if tt.ok && err != nil {
				t.Fatal(err)
			}
			if !tt.ok && (!errors.Is(err, ErrConfig) || !strings.Contains(fmt.Sprint(err), "access.services[0].type")) {
				t.Fatalf("error %v, want one naming access.services[0].type", err)
			}
		})
	}
}

func TestAccessConfigErrorsNameTheField(t *testing.T) {
	const arm = "actuators: [{name: arm, kind: arm, action: /a, joints: [j]}]\n"
	tests := []struct {
		name, yaml, field string
	}{
		{"relative topic pattern", "access: {topics: [camera/*]}", "access.topics[0]"},
		{"shell in a pattern", "access: {topics: ['/a;rm']}", "access.topics[0]"},
		{"bad read pattern", "access: {params: {read: ['/a//b']}}", "access.params.read[0]"},
		{"param without type", "access: {params: {set: [{name: /a}]}}", "access.params.set[0].type"},
		{"range on a bool", "access: {params: {set: [{name: /a, type: bool, min: 0}]}}", "access.params.set[0].min"},
		{"min above max", "access: {params: {set: [{name: /a, type: double, min: 2, max: 1}]}}", "access.params.set[0].min"},
		{"max_length on a number", "access: {params: {set: [{name: /a, type: int, max_length: 3}]}}", "access.params.set[0].max_length"},
		{"bad tier", "access: {services: [{name: /s, tier: admin}]}", "access.services[0].tier"},
		{"policy on a read service", "access: {services: [{name: /s, tier: read, policy: planner}]}", "access.services[0].policy"},
		{"bad service type", "access: {services: [{name: /s, tier: read, type: Trigger}]}", "access.services[0].type"},
		{"service timeout too long", "access: {services: [{name: /s, tier: read, timeout: 5m}]}", "access.services[0].timeout"},
		{"condition without a bound", "access: {events: [{name: far, topic: /odom, field: pose.x}]}", "access.events[0].above"},
		{"condition bad field", "access: {events: [{name: far, topic: /odom, field: 'pose..x', above: 1}]}", "access.events[0].field"},
		{"condition twice", "access: {topics: [/odom], events: [{name: far, topic: /odom, field: x, above: 1}, {name: far, topic: /odom, field: y, above: 1}]}", "access.events[1].name"},
		{"condition on a topic not allowed", "access: {topics: [/camera/*], events: [{name: far, topic: /odom, field: x, above: 1}]}", "access.events[0].topic"},
		{"negative rate", "rate_limits: {global: -1}", "rate_limits.global"},
		{"stop tool limited", "rate_limits: {tools: {robot_stop: 10}}", "rate_limits.tools.robot_stop"},
		{"cancel limited", "rate_limits: {tools: {motion_cancel: 10}}", "rate_limits.tools.motion_cancel"},
		{"negative step cap", "step_caps: {max_joint_change: -1}", "step_caps.max_joint_change"},
		{"unknown access key", "access: {topicz: [/a]}", "topicz"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(arm + tt.yaml))
			if err == nil {
				t.Fatal("Parse accepted it")
			}
			if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tt.field) {
				t.Errorf("error %q does not name %s", err, tt.field)
			}
		})
	}
}
