package config

import (
	"errors"
	"strings"
	"testing"
)

// TestCmdVelStampedIsRefusedWhereNothingReadsIt: cmd_vel_stamped is a
// ROS 2 base's key; ROS 1 sends Twist, and an arm has no cmd_vel.
func TestCmdVelStampedIsRefusedWhereNothingReadsIt(t *testing.T) {
	for _, tc := range []struct{ name, yaml, want string }{
		{"under ros1", "actuators: [{name: b, kind: base, cmd_vel_topic: /cmd_vel, cmd_vel_stamped: true}]", "actuators[0].cmd_vel_stamped: only transport ros2"},
		{"on an arm", "actuators: [{name: a, kind: arm, action: /a, joints: [j], cmd_vel_stamped: true}]", "actuators[0].cmd_vel_stamped: only a base has"},
		{"Twist on jazzy", ros2Base("jazzy", "cmd_vel_stamped: false"), "actuators[0].cmd_vel_stamped: false needs distro humble"},
		{"Twist on kilted", ros2Base("kilted", "cmd_vel_stamped: false"), "actuators[0].cmd_vel_stamped: false needs distro humble"},
		{"Twist on lyrical", ros2Base("lyrical", "cmd_vel_stamped: false"), "actuators[0].cmd_vel_stamped: false needs distro humble"},
		{"without a cmd_vel_topic", "transport: ros2\ndistro: humble\nactuators: [{name: b, kind: base, action: /navigate_to_pose, cmd_vel_stamped: true}]", "actuators[0].cmd_vel_stamped: given without a cmd_vel_topic"},
		{"keep_all cmd_vel", ros2Base("jazzy", "qos: {cmd_vel: {history: keep_all}}"), "actuators[0].qos.cmd_vel: a velocity command must be keep_last and volatile"},
		{"latched cmd_vel", ros2Base("jazzy", "qos: {cmd_vel: {durability: transient_local}}"), "actuators[0].qos.cmd_vel: a velocity command must be keep_last and volatile"},
		{"qos of odom without an odom_topic", "transport: ros2\ndistro: jazzy\nactuators: [{name: b, kind: base, cmd_vel_topic: /c, qos: {odom: {depth: 1}}}]", "actuators[0].qos.odom: kind base has no odom topic"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.yaml))
			if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Parse = %v, want ErrConfig saying %q", err, tc.want)
			}
		})
	}
}

// ros2Base is a ROS 2 config with a base driving /c and reading /o, and
// extra keys.
func ros2Base(distro, extra string) string {
	return "transport: ros2\ndistro: " + distro + "\nactuators: [{name: b, kind: base, cmd_vel_topic: /c, odom_topic: /o, " + extra + "}]"
}

// TestROS2BaseTakesTwistOnHumbleAndQoSPerRole: TwistStamped by default,
// Twist when cmd_vel_stamped is false on Humble, and the cmd_vel and odom
// QoS roles reach their topics.
func TestROS2BaseTakesTwistOnHumbleAndQoSPerRole(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		stamped    bool
	}{
		{"default", ros2Base("jazzy", "drive_rate_hz: 20"), true},
		{"stamped on jazzy", ros2Base("jazzy", "cmd_vel_stamped: true"), true},
		{"Twist on humble", ros2Base("humble", "cmd_vel_stamped: false"), false},
	} {
		c, err := Parse([]byte(tc.yaml))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := c.Actuators[0].StampedCmdVel(); got != tc.stamped {
			t.Errorf("%s: stamped %v, want %v", tc.name, got, tc.stamped)
		}
	}
	c, err := Parse([]byte(ros2Base("jazzy", "qos: {cmd_vel: {reliability: best_effort}, odom: {profile: sensor_data, depth: 1}}")))
	if err != nil {
		t.Fatal(err)
	}
	q := c.QoSByTopic()
	if q["/c"].Reliability != "best_effort" || q["/o"].Profile != "sensor_data" || q["/o"].Depth != 1 || len(q) != 2 {
		t.Errorf("QoS by topic %+v", q)
	}
}
