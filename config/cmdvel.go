package config

import "fmt"

// QoS roles of a base's topics (transport ros2).
const (
	QoSCmdVel = "cmd_vel"
	QoSOdom   = "odom"
)

// StampedCmdVel reports whether transport ros2 sends a base's velocity as
// geometry_msgs/msg/TwistStamped (the default) rather than Twist.
func (a *ActuatorConfig) StampedCmdVel() bool { return a.CmdVelStamped == nil || *a.CmdVelStamped }

// checkCmdVelStamped refuses cmd_vel_stamped where nothing would read it:
// without a cmd_vel_topic, and false on a distro whose
// diff_drive_controller subscribes only TwistStamped (Jazzy and later;
// Humble's reads Twist on ~/cmd_vel_unstamped when use_stamped_vel is
// false).
func (a *ActuatorConfig) checkCmdVelStamped(distro string) error {
	switch {
	case a.CmdVelStamped == nil:
		return nil
	case a.CmdVelTopic == "":
		return fmt.Errorf("given without a cmd_vel_topic")
	case !*a.CmdVelStamped && distro != DistroHumble:
		return fmt.Errorf("false needs distro humble: %s's diff_drive_controller reads only TwistStamped on ~/cmd_vel", distro)
	}
	return nil
}
