package test

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"gopkg.in/yaml.v3"
)

// ros2Config writes launch/robots/sim-ros2.yaml, changed by edits (and
// its limits file named by an absolute path), to a temporary file.
func ros2Config(t *testing.T, edits ...func(t *testing.T, cfg map[string]any)) string {
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
	cfg["limits_file"] = filepath.Join(robots, "..", "joint_limits.yaml")
	for _, e := range edits {
		e(t, cfg)
	}
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

// keepActuators keeps only the actuators named (in that order; "arm2" is
// the second arm of `simrobot --second-arm`, behind its own controller,
// with the dual-arm limits): the ROS 2 counterparts of sim-arm-only.yaml,
// sim-base-only.yaml and sim-dual-arm.yaml, which ship for ROS 1 only. An
// actuator the shipped config lacks fails the test.
func keepActuators(keep ...string) func(*testing.T, map[string]any) {
	return func(t *testing.T, cfg map[string]any) {
		byName := map[string]map[string]any{}
		for _, a := range cfg["actuators"].([]any) {
			m := a.(map[string]any)
			byName[m["name"].(string)] = m
		}
		if arm, ok := byName["arm"]; ok {
			arm2 := maps.Clone(arm)
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
		if slices.Contains(keep, "arm2") {
			cfg["limits_file"] = filepath.Join(filepath.Dir(cfg["limits_file"].(string)), "joint_limits-dual-arm.yaml")
		}
	}
}

// actuatorSet is ros1Config, a shipped ROS 1 config, under ROS 1, and its
// ROS 2 counterpart with the actuators keep under ROS 2.
func actuatorSet(t *testing.T, tr transport, ros1Config string, keep ...string) string {
	t.Helper()
	if tr == ros2 {
		return ros2Config(t, keepActuators(keep...))
	}
	return ros1Config
}

// readService is a read-tier service of the sim that the shipped config
// of each transport allows.
var readService = map[transport]string{ros1: "/simrobot/status", ros2: "/simrobot/goals"}
