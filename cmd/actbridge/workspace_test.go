package main

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/actbridge/actbridge/bridge"
	"github.com/actbridge/actbridge/config"
)

// An arm's chain and workspace are checked against the URDF when the model
// is built: a link off the chain, an unknown tool link or a chain joint the
// arm does not own is a configuration error naming it; without any of
// these keys the arm gets the default chain and reports its tool pose.
func TestArmWorkspaceIsCheckedAgainstTheURDF(t *testing.T) {
	urdf, err := os.ReadFile("../../launch/simrobot.urdf")
	if err != nil {
		t.Fatal(err)
	}
	const sixJoints = "[shoulder_pan_joint, shoulder_lift_joint, elbow_joint, wrist_1_joint, wrist_2_joint, wrist_3_joint]"
	arm := func(joints, extra string) *config.Config {
		t.Helper()
		cfg, err := config.Parse([]byte("actuators:\n  - name: arm\n    kind: arm\n    action: /a\n    joint_states_topic: /joint_states\n    joints: " + joints + "\n" + extra))
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	for name, tc := range map[string]struct{ joints, extra, names string }{
		"link off the chain":  {sixJoints, "    workspace: {forbidden: [{name: t, min: [0, 0, 0], max: [1, 1, 1], links: [base_footprint]}]}\n", "base_footprint"},
		"unknown tool link":   {sixJoints, "    tool_link: tool_flange\n", "tool_flange"},
		"base below the tool": {sixJoints, "    base_link: gripper_base_link\n    tool_link: base_link\n", "swap"},
		"joint not the arm's": {"[elbow_joint, wrist_1_joint, wrist_2_joint, wrist_3_joint]", "    base_link: base_link\n", "shoulder_"},
	} {
		_, err := loadModel(arm(tc.joints, tc.extra), urdf)
		if !errors.Is(err, config.ErrConfig) || !strings.Contains(err.Error(), tc.names) {
			t.Errorf("%s: error %v, want a config error naming %q", name, err, tc.names)
		}
	}
	// A shorter chain within the arm's joints is fine.
	if _, err := loadModel(arm(sixJoints, "    base_link: upper_arm_link\n"), urdf); err != nil {
		t.Errorf("chain from upper_arm_link: %v", err)
	}
	m, err := loadModel(arm(sixJoints, ""), urdf)
	if err != nil {
		t.Fatal(err)
	}
	k, ok := m.arms[0].Guard.(bridge.Kinematic)
	if !ok {
		t.Fatal("arm guard has no kinematics")
	}
	p, ok := k.ToolPose(func(string) (float64, bool) { return 0, true })
	if !ok || p.Link != "gripper_base_link" || p.Frame != "base_link" || !(p.Position[2] > 1) {
		t.Fatalf("tool pose at zero %+v", p)
	}
}
