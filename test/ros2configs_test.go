package test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"gopkg.in/yaml.v3"
)

// ros2Variant writes launch/robots/sim-ros2.yaml with only the actuators
// named in keep (in that order; "arm2" is the second arm of `simrobot
// --second-arm`, behind its own controller) to a temporary file: the ROS 2
// counterparts of sim-arm-only.yaml, sim-base-only.yaml and
// sim-dual-arm.yaml, which ship for ROS 1 only. An actuator the shipped
// config lacks fails the test.
func ros2Variant(t *testing.T, keep ...string) string {
	t.Helper()
	robots, err := filepath.Abs("../launch/robots")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(robots, "sim-ros2.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string]any
	if err := yaml.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	byName := map[string]map[string]any{}
	for _, a := range cfg["actuators"].([]any) {
		m := a.(map[string]any)
		byName[m["name"].(string)] = m
	}
	if arm, ok := byName["arm"]; ok {
		arm2 := map[string]any{}
		for k, v := range arm {
			arm2[k] = v
		}
		arm2["name"] = "arm2"
		arm2["action"] = "/arm2_controller/follow_joint_trajectory"
		var joints []any
		for _, j := range arm["joints"].([]any) {
			joints = append(joints, "arm2_"+j.(string))
		}
		arm2["joints"] = joints
		byName["arm2"] = arm2
	}
	var acts []any
	for _, n := range keep {
		a, ok := byName[n]
		if !ok {
			t.Fatalf("sim-ros2.yaml has no actuator %s", n)
		}
		acts = append(acts, a)
	}
	cfg["actuators"] = acts
	limits := "joint_limits.yaml"
	if slices.Contains(keep, "arm2") {
		limits = "joint_limits-dual-arm.yaml"
	}
	cfg["limits_file"] = filepath.Join(robots, "..", limits)
	out, err := yaml.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "robot.yaml")
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// actuatorSet is ros1Config, a shipped ROS 1 config, under ROS 1, and its
// ROS 2 counterpart with the actuators keep under ROS 2.
func actuatorSet(t *testing.T, tr transport, ros1Config string, keep ...string) string {
	t.Helper()
	if tr == ros2 {
		return ros2Variant(t, keep...)
	}
	return ros1Config
}
