package config

import (
	"errors"
	"strings"
	"testing"
)

// TestPinnedNodesAreFullyQualifiedROS2NamesOfWhatTheActuatorHas:
// server_node and state_node name a node as "/ns/node", under ros2 only,
// and only what the actuator reads (an action, joint states or odometry).
func TestPinnedNodesAreFullyQualifiedROS2NamesOfWhatTheActuatorHas(t *testing.T) {
	arm := func(extra string) string {
		return "transport: ros2\ndistro: jazzy\nactuators: [{name: a, kind: arm, action: /a, joints: [j], " + extra + "}]"
	}
	for _, tc := range []struct{ name, yaml, want string }{
		{"under ros1", "actuators: [{name: a, kind: arm, action: /a, joints: [j], server_node: /r1/jtc}]", "actuators[0].server_node: only transport ros2"},
		{"relative", arm("server_node: jtc"), "actuators[0].server_node: \"jtc\" is not a fully qualified node name"},
		{"bad token", arm("state_node: /r1/joint-state"), "actuators[0].state_node: \"/r1/joint-state\" is not a fully qualified node name"},
		{"drive-only base", "transport: ros2\ndistro: jazzy\nactuators: [{name: b, kind: base, cmd_vel_topic: /c, server_node: /nav}]", "actuators[0].server_node: the actuator has no action"},
		{"description under ros1", "description_node: /robot_state_publisher\nactuators: [{name: a, kind: arm, action: /a, joints: [j]}]", "description_node: only transport ros2"},
		{"description relative", "description_node: robot_state_publisher\n" + arm(""), "description_node: \"robot_state_publisher\" is not a fully qualified node name"},
		{"base without odometry", "transport: ros2\ndistro: jazzy\nactuators: [{name: b, kind: base, cmd_vel_topic: /c, state_node: /odom_node}]", "actuators[0].state_node: the actuator has no odom_topic"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.yaml))
			if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Parse = %v, want ErrConfig saying %q", err, tc.want)
			}
		})
	}
	c, err := Parse([]byte(arm("server_node: /r1/joint_trajectory_controller, state_node: /r1/joint_state_broadcaster")))
	if err != nil {
		t.Fatal(err)
	}
	if a := c.Actuators[0]; a.ServerNode != "/r1/joint_trajectory_controller" || a.StateNode != "/r1/joint_state_broadcaster" {
		t.Fatalf("read %+v", a)
	}
}
