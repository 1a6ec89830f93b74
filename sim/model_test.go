package sim

import (
	"encoding/xml"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

func TestLaunchCopiesMatchEmbeddedAssets(t *testing.T) {
	for _, name := range []string{"simrobot.urdf", "joint_limits.yaml", "simrobot-dual-arm.urdf", "joint_limits-dual-arm.yaml"} {
		embedded, err := os.ReadFile(filepath.Join("assets", name))
		if err != nil {
			t.Fatal(err)
		}
		launch, err := os.ReadFile(filepath.Join("..", "launch", name))
		if err != nil {
			t.Fatal(err)
		}
		if string(embedded) != string(launch) {
			t.Errorf("launch/%s differs from sim/assets/%s; copy one over the other", name, name)
		}
	}
}

func TestDefaultRobotHasSixArmJointsAndAGripper(t *testing.T) {
	joints, err := ParseJoints(DefaultURDF)
	if err != nil {
		t.Fatal(err)
	}
	types := map[string]string{}
	for _, j := range joints {
		types[j.Name] = j.Type
		if j.Velocity <= 0 || j.Effort <= 0 {
			t.Errorf("%s has no velocity/effort limit: %+v", j.Name, j)
		}
	}
	if len(joints) != 7 || types["wrist_3_joint"] != "continuous" || types["gripper_finger_joint"] != "prismatic" ||
		types["elbow_joint"] != "revolute" {
		t.Errorf("joints %v", types)
	}
	r := newTestRobot(t)
	if got := r.ArmJoints(); len(got) != 6 || got[0] != "shoulder_pan_joint" {
		t.Errorf("arm joints %v", got)
	}
	limits, err := ParseJointLimits(DefaultJointLimits)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, l := range limits {
		seen[l.Joint+"/"+l.Key] = true
	}
	for _, j := range joints {
		if !seen[j.Name+"/max_velocity"] {
			t.Errorf("joint_limits.yaml has no max_velocity for %s", j.Name)
		}
	}
}

func TestBadURDFIsRefused(t *testing.T) {
	tests := map[string]string{
		"not xml":                "<robot",
		"no movable joints":      `<robot name="r"><joint name="a" type="fixed"/></robot>`,
		"revolute without limit": `<robot name="r"><joint name="a" type="revolute"/></robot>`,
		"lower above upper":      `<robot name="r"><joint name="a" type="revolute"><limit lower="1" upper="0" velocity="1" effort="1"/></joint></robot>`,
		"unknown type":           `<robot name="r"><joint name="a" type="spherical"/></robot>`,
	}
	for name, urdf := range tests {
		if _, err := ParseJoints(urdf); !errors.Is(err, ErrURDF) {
			t.Errorf("%s: err %v, want ErrURDF", name, err)
		}
	}
}

func TestConfigWithoutGripperJointIsRefused(t *testing.T) {
	cfg := DefaultConfig()
	cfg.GripperJoint = "nope"
	if _, err := New(cfg); !errors.Is(err, ErrConfig) {
		t.Errorf("err %v, want ErrConfig", err)
	}
}

func TestGazeboControllersMatchTheSim(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "launch", "gazebo_controllers.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Arm struct {
			Joints []string `yaml:"joints"`
		} `yaml:"arm_controller"`
		Gripper struct {
			Joint string `yaml:"joint"`
		} `yaml:"gripper_controller"`
	}
	if err := yaml.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	r := newTestRobot(t)
	if strings.Join(c.Arm.Joints, ",") != strings.Join(r.ArmJoints(), ",") || c.Gripper.Joint != r.Config().GripperJoint {
		t.Errorf("gazebo controllers %+v, sim arm %v gripper %s", c, r.ArmJoints(), r.Config().GripperJoint)
	}
	for _, f := range []string{"gazebo.launch", "sim.launch", "package.xml"} {
		b, err := os.ReadFile(filepath.Join("..", "launch", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := xml.Unmarshal(b, new(struct{})); err != nil {
			t.Errorf("launch/%s: %v", f, err)
		}
	}
}
