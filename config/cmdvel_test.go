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
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.yaml))
			if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Parse = %v, want ErrConfig saying %q", err, tc.want)
			}
		})
	}
}
