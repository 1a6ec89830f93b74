package ros2sim

import (
	"encoding/json"
	"strings"
	"testing"
)

// doctorRun runs `actbridge doctor --json` with config on domain and
// returns its checks by name and the exit status.
func doctorRun(t *testing.T, domain int, config string, args ...string) (map[string]doctorCheck, string, int) {
	t.Helper()
	out, errOut, code := actbridgeCLI(t, domain, append([]string{"doctor", "--config", config, "--json"}, args...)...)
	var r struct {
		Checks []doctorCheck
		Failed int
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("doctor: exit %d, %v\nstdout:\n%s\nstderr:\n%s", code, err, out, errOut)
	}
	checks := map[string]doctorCheck{}
	for _, c := range r.Checks {
		checks[c.Name] = c
	}
	return checks, out + errOut, code
}

type doctorCheck struct{ Name, Status, Detail, Fix string }

// editConfig is ros2Config on domain with each old string replaced by new.
func editConfig(t *testing.T, domain int, oldNew ...string) string {
	t.Helper()
	return presetConfig(t, "sim-ros2.yaml", domain, oldNew...)
}

// expectCheck fails the test unless the check ran with status, its
// detail and fix containing the strings given.
func expectCheck(t *testing.T, checks map[string]doctorCheck, out, name, status, detail, fix string) {
	t.Helper()
	c, ok := checks[name]
	if !ok || c.Status != status || !strings.Contains(c.Detail, detail) || !strings.Contains(c.Fix, fix) {
		t.Fatalf("check %q: %+v (ran: %v), want %s with detail %q and fix %q\n%s", name, c, ok, status, detail, fix, out)
	}
}

const (
	armServed = "arm: /joint_trajectory_controller/follow_joint_trajectory served"
	armOne    = "arm: one server and one state publisher"
	armHash   = "arm: /joint_trajectory_controller/follow_joint_trajectory type hash (jazzy definitions)"
)

// TestDoctorPassesAHealthyRobotAndExitsZero: against the sim and the
// shipped sim-ros2.yaml every check passes or does not apply, and the
// exit status is 0. (The clock bound is wide: the sim's stamps are its
// simulated time, which falls behind wall time on a loaded host.)
func TestDoctorPassesAHealthyRobotAndExitsZero(t *testing.T) {
	const domain = 111
	startSim(t, domain)
	checks, out, code := doctorRun(t, domain, ros2Config(t, domain), "--timeout", "20s", "--max-clock-skew", "1m")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	for _, name := range []string{"robot graph reachable", armServed, armOne, armHash,
		"arm: /joint_trajectory_controller/follow_joint_trajectory type control_msgs/action/FollowJointTrajectory", "gripper: /gripper_controller/gripper_cmd served",
		"base: /navigate_to_pose served", "/joint_states published (arm, gripper)", "/joint_states type sensor_msgs/msg/JointState",
		"/joint_states QoS compatible", "/diff_drive_controller/odom QoS compatible", "/diff_drive_controller/cmd_vel QoS compatible",
		"robot description read", "URDF covers the configured joints", "/joint_states stamps within 1m0s of this machine's clock"} {
		expectCheck(t, checks, out, name, "pass", "", "")
	}
}

// TestDoctorNamesEachFaultAndItsFix: the faults a real robot shows first
// each fail their check with the fix, and the exit status is 1: a
// robot of another distro (its FollowJointTrajectory hashes are
// Kilted's: set distro; its gripper serves another action type), a
// missing controller, two servers of the arm's
// action and two joint_states publishers (name server_node or
// state_node), and a QoS the publisher cannot offer (change qos).
func TestDoctorNamesEachFaultAndItsFix(t *testing.T) {
	t.Run("wrong distro", func(t *testing.T) {
		const domain = 112
		startSim(t, domain, "--distro", "kilted")
		checks, out, code := doctorRun(t, domain, ros2Config(t, domain), "--timeout", "20s", "--max-clock-skew", "1m")
		expectCheck(t, checks, out, armHash, "fail", "control_msgs/action/FollowJointTrajectory_FeedbackMessage", "set distro: kilted")
		// Kilted's gripper controller serves the parallel gripper's action.
		expectCheck(t, checks, out, "gripper: /gripper_controller/gripper_cmd type control_msgs/action/GripperCommand", "fail",
			"/gripper_controller serves control_msgs/action/ParallelGripperCommand", "action_type")
		if code != 1 {
			t.Fatalf("exit %d\n%s", code, out)
		}
	})
	t.Run("missing controller", func(t *testing.T) {
		const domain = 113
		startSim(t, domain)
		cfg := editConfig(t, domain, "action: /joint_trajectory_controller/follow_joint_trajectory", "action: /arm_controller/follow_joint_trajectory")
		checks, out, code := doctorRun(t, domain, cfg, "--timeout", "3s", "--max-clock-skew", "1m")
		expectCheck(t, checks, out, "arm: /arm_controller/follow_joint_trajectory served", "fail", "no action server", "start the controller that serves /arm_controller/follow_joint_trajectory")
		expectCheck(t, checks, out, "gripper: /gripper_controller/gripper_cmd served", "pass", "", "")
		if code != 1 {
			t.Fatalf("exit %d\n%s", code, out)
		}
	})
	t.Run("two servers", func(t *testing.T) {
		const domain = 114
		startSim(t, domain)
		startSim(t, domain, "--name", "simrobot2")
		checks, out, code := doctorRun(t, domain, ros2Config(t, domain), "--timeout", "20s", "--max-clock-skew", "1m")
		expectCheck(t, checks, out, armOne, "fail", "/joint_trajectory_controller", "server_node")
		if code != 1 {
			t.Fatalf("exit %d\n%s", code, out)
		}
	})
	t.Run("QoS mismatch", func(t *testing.T) {
		const domain = 115
		startSim(t, domain)
		cfg := editConfig(t, domain, "joint_states: {profile: sensor_data, depth: 1}", "joint_states: {profile: sensor_data, durability: transient_local}")
		checks, out, code := doctorRun(t, domain, cfg, "--timeout", "20s", "--max-clock-skew", "1m")
		expectCheck(t, checks, out, "/joint_states QoS compatible", "fail", "durability: offered volatile, requested transient_local", "change qos.joint_states")
		if code != 1 {
			t.Fatalf("exit %d\n%s", code, out)
		}
	})
}
