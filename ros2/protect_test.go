package ros2

import (
	"slices"
	"testing"

	"github.com/actbridge/actbridge/config"
)

// TestConfiguredServersAndTopicsAreProtected: the topics the RTPS layer
// keeps a slot for are every DDS topic of a configured action (the cancel
// service among them) and of the configured readings and drive topics.
func TestConfiguredServersAndTopicsAreProtected(t *testing.T) {
	got := protectedTopics([]config.ActuatorConfig{
		{Name: "arm", Action: "/arm/follow_joint_trajectory", JointStatesTopic: "/joint_states"},
		{Name: "base", CmdVelTopic: "/cmd_vel", OdomTopic: "/odom"},
	})
	for _, want := range []string{
		"rq/arm/follow_joint_trajectory/_action/send_goalRequest", "rr/arm/follow_joint_trajectory/_action/send_goalReply",
		"rq/arm/follow_joint_trajectory/_action/cancel_goalRequest", "rr/arm/follow_joint_trajectory/_action/cancel_goalReply",
		"rq/arm/follow_joint_trajectory/_action/get_resultRequest", "rr/arm/follow_joint_trajectory/_action/get_resultReply",
		"rt/arm/follow_joint_trajectory/_action/feedback", "rt/arm/follow_joint_trajectory/_action/status",
		"rt/joint_states", "rt/cmd_vel", "rt/odom",
	} {
		if !slices.Contains(got, want) {
			t.Errorf("%s is not protected (got %v)", want, got)
		}
	}
	if len(got) != 11 {
		t.Errorf("%d topics protected, want 11: %v", len(got), got)
	}
}
