package config

import (
	"errors"
	"strings"
	"testing"
)

func TestArmPlanningParsesWithItsDefaults(t *testing.T) {
	c, err := Parse([]byte(`transport: ros2
distro: jazzy
actuators:
  - {name: arm, kind: arm, action: /a, joints: [j], planning: {group: manipulator, node: /move_group}}
`))
	if err != nil {
		t.Fatal(err)
	}
	p := c.Actuators[0].Planning
	if p == nil || p.Group != "manipulator" || p.Service != DefaultPlanningService || p.Node != "/move_group" || p.TimeS != 0 {
		t.Fatalf("planning %+v", p)
	}
}

func TestPlanningErrorsNameTheField(t *testing.T) {
	arm := func(extra string) string {
		return "transport: ros2\ndistro: jazzy\nactuators: [{name: arm, kind: arm, action: /a, joints: [j], " + extra + "}]"
	}
	for _, tt := range []struct{ name, yaml, field string }{
		{"on a gripper", "transport: ros2\ndistro: jazzy\nactuators: [{name: g, kind: gripper, action: /g, joints: [f], planning: {group: g}}]", "actuators[0].planning"},
		{"on a base", "transport: ros2\ndistro: jazzy\nactuators: [{name: b, kind: base, cmd_vel_topic: /c, planning: {group: g}}]", "actuators[0].planning"},
		{"ros1", "actuators: [{name: arm, kind: arm, action: /a, joints: [j], planning: {group: arm}}]", "actuators[0].planning"},
		{"no group", arm("planning: {}"), "actuators[0].planning.group"},
		{"bad group", arm("planning: {group: 'a b'}"), "actuators[0].planning.group"},
		{"bad node", arm("planning: {group: arm, node: move_group}"), "actuators[0].planning.node"},
		{"bad service", arm("planning: {group: arm, service: 'plan path'}"), "actuators[0].planning.service"},
		{"time", arm("planning: {group: arm, time_s: 600}"), "actuators[0].planning.time_s"},
		{"unknown key", arm("planning: {group: arm, pipeline: ompl}"), "pipeline"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.yaml))
			if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tt.field) {
				t.Fatalf("error %v, want ErrConfig naming %s", err, tt.field)
			}
		})
	}
}
