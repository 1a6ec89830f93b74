package config

import (
	"errors"
	"strings"
	"testing"
)

// An arm's chain and workspace parse into the fields the model reads.
func TestArmWorkspaceParses(t *testing.T) {
	c, err := Parse([]byte(`actuators:
  - name: arm
    kind: arm
    action: /a
    joints: [j]
    base_link: base_link
    tool_link: tool0
    workspace:
      box: {min: [-1, -1, 0], max: [1, 1, 1.5]}
      forbidden:
        - {name: table, min: [0.3, -0.5, -0.1], max: [0.9, 0.5, 0.02], links: [tool0, wrist_3_link]}
        - {name: wall, min: [-1, 0.8, 0], max: [1, 0.9, 2]}
      tool_speed_max: 0.25
`))
	if err != nil {
		t.Fatal(err)
	}
	a := c.Actuators[0]
	w := a.Workspace
	if a.BaseLink != "base_link" || a.ToolLink != "tool0" || w == nil || w.ToolSpeedMax != 0.25 || w.Box.Max[2] != 1.5 ||
		len(w.Forbidden) != 2 || w.Forbidden[0].Links[1] != "wrist_3_link" || w.Forbidden[1].Links != nil || w.Forbidden[0].Max[2] != 0.02 {
		t.Fatalf("arm %+v workspace %+v", a, w)
	}
}

// Every malformed workspace value is refused with the field that holds it.
func TestWorkspaceErrorsNameTheField(t *testing.T) {
	arm := func(extra string) string {
		return "actuators: [{name: arm, kind: arm, action: /a, joints: [j], " + extra + "}]"
	}
	for _, tt := range []struct{ name, yaml, field string }{
		{"chain on a gripper", "actuators: [{name: g, kind: gripper, action: /g, joints: [f], tool_link: t}]", "actuators[0].tool_link"},
		{"workspace on a base", "actuators: [{name: b, kind: base, cmd_vel_topic: /c, workspace: {tool_speed_max: 1}}]", "actuators[0].workspace"},
		{"bad link name", arm("base_link: 'a b'"), "actuators[0].base_link"},
		{"empty workspace", arm("workspace: {}"), "actuators[0].workspace"},
		{"unknown key", arm("workspace: {tool_speed: 1}"), "tool_speed"},
		{"two coordinates", arm("workspace: {box: {min: [0, 0], max: [1, 1, 1]}}"), "actuators[0].workspace.box"},
		{"empty box", arm("workspace: {box: {min: [0, 0, 1], max: [1, 1, 1]}}"), "actuators[0].workspace.box"},
		{"far box", arm("workspace: {box: {min: [0, 0, 0], max: [1, 1, 1e9]}}"), "actuators[0].workspace.box"},
		{"nan", arm("workspace: {box: {min: [0, 0, .nan], max: [1, 1, 1]}}"), "actuators[0].workspace.box"},
		{"speed", arm("workspace: {tool_speed_max: -0.25}"), "actuators[0].workspace.tool_speed_max"},
		{"speed too high", arm("workspace: {tool_speed_max: 100}"), "actuators[0].workspace.tool_speed_max"},
		{"zone name", arm("workspace: {forbidden: [{name: Table, min: [0, 0, 0], max: [1, 1, 1]}]}"), "actuators[0].workspace.forbidden[0].name"},
		{"zone twice", arm("workspace: {forbidden: [{name: t, min: [0, 0, 0], max: [1, 1, 1]}, {name: t, min: [0, 0, 0], max: [1, 1, 1]}]}"), "actuators[0].workspace.forbidden[1].name"},
		{"zone empty", arm("workspace: {forbidden: [{name: t, min: [0, 0, 0], max: [1, 0, 1]}]}"), "actuators[0].workspace.forbidden[0]"},
		{"zone link", arm("workspace: {forbidden: [{name: t, min: [0, 0, 0], max: [1, 1, 1], links: ['']}]}"), "actuators[0].workspace.forbidden[0].links[0]"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.yaml))
			if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tt.field) {
				t.Fatalf("error %v, want ErrConfig naming %s", err, tt.field)
			}
		})
	}
}
