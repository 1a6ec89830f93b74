package config

import (
	"errors"
	"strings"
	"testing"
)

const ros2Arm = "actuators: [{name: arm, kind: arm, action: /joint_trajectory_controller/follow_joint_trajectory, joints: [j]}]"

func TestROS2ConfigTakesDistroDomainDiscoveryAndQoS(t *testing.T) {
	c, err := Parse([]byte(`transport: ros2
distro: jazzy
domain_id: 42
static_peers: [127.0.0.1]
actuators:
  - name: arm
    kind: arm
    action: /joint_trajectory_controller/follow_joint_trajectory
    joints: [j]
    qos: {joint_states: {profile: sensor_data, depth: 5}}
`))
	if err != nil {
		t.Fatal(err)
	}
	if c.Distro != DistroJazzy || c.DomainID == nil || *c.DomainID != 42 || c.DiscoveryRange != DiscoveryLocalhost {
		t.Errorf("ros2 keys read as %+v", c.ROS2)
	}
	if got := c.QoSByTopic()["/joint_states"]; got.Profile != "sensor_data" || got.Depth != 5 {
		t.Errorf("QoS of /joint_states = %+v", got)
	}
}

// A gripper's action type defaults to the one its distro's controller
// serves, and may name parallel_gripper_controller's on Jazzy.
func TestGripperActionTypeDefaultsToTheDistrosController(t *testing.T) {
	tests := []struct {
		distro, set, want string
	}{
		{DistroHumble, "", GripperActionCommand},
		{DistroJazzy, "", GripperActionCommand},
		{DistroKilted, "", GripperActionParallel},
		{DistroLyrical, "", GripperActionParallel},
		{DistroJazzy, GripperActionParallel, GripperActionParallel},
		{DistroHumble, GripperActionCommand, GripperActionCommand},
		{DistroHumble, GripperActionFranka, GripperActionFranka},
		{DistroLyrical, GripperActionFranka, GripperActionFranka},
	}
	for _, tt := range tests {
		t.Run(tt.distro+"/"+tt.set, func(t *testing.T) {
			y := "transport: ros2\ndistro: " + tt.distro + "\nactuators:\n" +
				"  - {name: gripper, kind: gripper, action: /gripper_controller/gripper_cmd, joints: [f]"
			if tt.set != "" {
				y += ", action_type: " + tt.set
			}
			y += "}\n  - {name: base, kind: base, action: /navigate_to_pose, cmd_vel_topic: /diff_drive_controller/cmd_vel, odom_topic: /diff_drive_controller/odom}\n"
			c, err := Parse([]byte(y))
			if err != nil {
				t.Fatal(err)
			}
			if got := c.Actuators[0].ActionType; got != tt.want {
				t.Errorf("action_type = %q, want %q", got, tt.want)
			}
			if got := c.Actuators[1].ActionType; got != "" {
				t.Errorf("a base's action_type = %q, want none", got)
			}
		})
	}
}

func TestROS2KeysAreRefusedWhereTheyWouldBeIgnored(t *testing.T) {
	tests := []struct {
		name, yaml, want string
	}{
		{"distro under ros1", "transport: ros1\ndistro: jazzy\n" + ros2Arm, "distro: only transport ros2"},
		{"domain under the default", "domain_id: 3\n" + ros2Arm, "domain_id: only transport ros2"},
		{"range under ros1", "discovery_range: subnet\n" + ros2Arm, "discovery_range: only transport ros2"},
		{"peers under ros1", "static_peers: [127.0.0.1]\n" + ros2Arm, "static_peers: only transport ros2"},
		{"qos under ros1", "actuators: [{name: arm, kind: arm, action: /a, joints: [j], qos: {joint_states: {depth: 1}}}]", "actuators[0].qos: only transport ros2"},
		{"no distro", "transport: ros2\n" + ros2Arm, "distro: transport ros2 needs"},
		{"unknown distro", "transport: ros2\ndistro: iron\n" + ros2Arm, `distro: "iron" is not one of`},
		{"domain too large", "transport: ros2\ndistro: jazzy\ndomain_id: 233\n" + ros2Arm, "domain_id: 233"},
		{"negative domain", "transport: ros2\ndistro: jazzy\ndomain_id: -1\n" + ros2Arm, "domain_id: -1"},
		{"unknown range", "transport: ros2\ndistro: jazzy\ndiscovery_range: system\n" + ros2Arm, "discovery_range"},
		{"off without peers", "transport: ros2\ndistro: jazzy\ndiscovery_range: off\n" + ros2Arm, "discovery_range: off finds only static_peers"},
		{"remote peer on localhost", "transport: ros2\ndistro: jazzy\nstatic_peers: [10.0.0.2]\n" + ros2Arm, "static_peers[0]: 10.0.0.2 is not on loopback"},
		{"ipv6 peer", "transport: ros2\ndistro: jazzy\ndiscovery_range: subnet\nstatic_peers: ['::1']\n" + ros2Arm, "static_peers[0]: ::1 is not IPv4"},
		{"bad peer", "transport: ros2\ndistro: jazzy\ndiscovery_range: off\nstatic_peers: ['a b']\n" + ros2Arm, "static_peers[0]"},
		{"action_type under ros1", "actuators: [{name: g, kind: gripper, action: /g, joints: [f], action_type: control_msgs/action/GripperCommand}]", "actuators[0].action_type: only transport ros2"},
		{"GripperCommand on kilted", "transport: ros2\ndistro: kilted\nactuators: [{name: g, kind: gripper, action: /g, joints: [f], action_type: control_msgs/action/GripperCommand}]", "actuators[0].action_type: gripper_action_controller, which serves control_msgs/action/GripperCommand, is gone from kilted on"},
		{"GripperCommand on lyrical", "transport: ros2\ndistro: lyrical\nactuators: [{name: g, kind: gripper, action: /g, joints: [f], action_type: control_msgs/action/GripperCommand}]", "actuators[0].action_type: gripper_action_controller, which serves control_msgs/action/GripperCommand, is gone from kilted on"},
		{"ParallelGripperCommand on humble", "transport: ros2\ndistro: humble\nactuators: [{name: g, kind: gripper, action: /g, joints: [f], action_type: control_msgs/action/ParallelGripperCommand}]", "actuators[0].action_type: parallel_gripper_controller, which serves control_msgs/action/ParallelGripperCommand, comes with jazzy"},
		{"unknown gripper action type", "transport: ros2\ndistro: jazzy\nactuators: [{name: g, kind: gripper, action: /g, joints: [f], action_type: franka_msgs/action/Grasp}]", `actuators[0].action_type: "franka_msgs/action/Grasp" is not one of`},
		{"action_type of an arm", "transport: ros2\ndistro: jazzy\nactuators: [{name: arm, kind: arm, action: /a, joints: [j], action_type: control_msgs/action/FollowJointTrajectory}]", "actuators[0].action_type: only a gripper chooses"},
		{"qos of a topic the arm lacks", "transport: ros2\ndistro: jazzy\nactuators: [{name: arm, kind: arm, action: /a, joints: [j], qos: {odom: {depth: 1}}}]", "actuators[0].qos.odom: kind arm has no odom topic"},
		{"bad reliability", "transport: ros2\ndistro: jazzy\nactuators: [{name: arm, kind: arm, action: /a, joints: [j], qos: {joint_states: {reliability: sometimes}}}]", "actuators[0].qos.joint_states: reliability"},
		{"depth with keep_all", "transport: ros2\ndistro: jazzy\nactuators: [{name: arm, kind: arm, action: /a, joints: [j], qos: {joint_states: {history: keep_all, depth: 3}}}]", "actuators[0].qos.joint_states: depth"},
		{"unknown qos field", "transport: ros2\ndistro: jazzy\nactuators: [{name: arm, kind: arm, action: /a, joints: [j], qos: {joint_states: {deadline: 1}}}]", "deadline"},
		{"two overrides of one topic", "transport: ros2\ndistro: jazzy\nactuators: [{name: l, kind: arm, action: /l, joints: [a], qos: {joint_states: {depth: 1}}}, {name: r, kind: arm, action: /r, joints: [b], qos: {joint_states: {depth: 2}}}]", "actuators[1].qos.joint_states: /joint_states already has"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.yaml))
			if !errors.Is(err, ErrConfig) {
				t.Fatalf("Parse = %v, want ErrConfig", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not say %q", err, tt.want)
			}
		})
	}
}
