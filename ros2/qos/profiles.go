package qos

import (
	"fmt"

	"github.com/actbridge/actbridge/rtps"
)

// Profile is a named ROS 2 QoS profile. Its QoS is what an endpoint using
// it announces in SEDP.
type Profile struct {
	Name string
	QoS  rtps.QoS
}

// The profiles ROS 2 defines and the layers above use (ros2/rmw
// `qos_profiles.h`, rcl_action `default_qos.h`).
var (
	// Default is rmw_qos_profile_default: topics and action feedback.
	Default = Profile{"default", rtps.QoS{Reliability: rtps.Reliable, Durability: rtps.Volatile, History: rtps.KeepLast, Depth: 10}}
	// SensorData is rmw_qos_profile_sensor_data: best effort, keep-last 5.
	SensorData = Profile{"sensor_data", rtps.QoS{Reliability: rtps.BestEffort, Durability: rtps.Volatile, History: rtps.KeepLast, Depth: 5}}
	// Services is rmw_qos_profile_services_default: requests and replies,
	// an action's send_goal, cancel and get_result.
	Services = Profile{"services", rtps.QoS{Reliability: rtps.Reliable, Durability: rtps.Volatile, History: rtps.KeepLast, Depth: 10}}
	// ActionStatus is rcl_action's status profile: the last status array
	// is kept for late joiners.
	ActionStatus = Profile{"action_status", rtps.QoS{Reliability: rtps.Reliable, Durability: rtps.TransientLocal, History: rtps.KeepLast, Depth: 1}}
	// ParameterEvents is rmw_qos_profile_parameter_events.
	ParameterEvents = Profile{"parameter_events", rtps.QoS{Reliability: rtps.Reliable, Durability: rtps.Volatile, History: rtps.KeepLast, Depth: 1000}}
	// Latched is what robot_state_publisher uses for /robot_description:
	// reliable, transient_local, keep-last 1.
	Latched = Profile{"latched", rtps.QoS{Reliability: rtps.Reliable, Durability: rtps.TransientLocal, History: rtps.KeepLast, Depth: 1}}
)

// Profiles lists every named profile, for config lookups and messages.
func Profiles() []Profile {
	return []Profile{Default, SensorData, Services, ActionStatus, ParameterEvents, Latched}
}

// ByName returns the profile called name.
func ByName(name string) (Profile, error) {
	for _, p := range Profiles() {
		if p.Name == name {
			return p, nil
		}
	}
	return Profile{}, fmt.Errorf("%w: %q (known: %s)", ErrUnknownProfile, name, profileNames())
}

func profileNames() string {
	s := ""
	for i, p := range Profiles() {
		if i > 0 {
			s += ", "
		}
		s += p.Name
	}
	return s
}
