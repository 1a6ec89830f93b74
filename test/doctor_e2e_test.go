package test

import (
	"encoding/json"
	"errors"
	"os/exec"
	"path/filepath"
	"testing"
)

// doctor runs `actbridge doctor --json` against the world's robot and
// returns the status of each check and the exit status.
func (w *world) doctor(config string) (map[string]string, string, int) {
	w.t.Helper()
	cmd := exec.CommandContext(w.t.Context(), filepath.Join(binDir, "actbridge"), "doctor", "--config", config, "--json", "--timeout", "10s", "--max-clock-skew", "1m")
	cmd.Env = w.env()
	out, err := cmd.Output()
	code, stderr := 0, ""
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code, stderr = exit.ExitCode(), string(exit.Stderr)
	} else if err != nil {
		w.t.Fatal(err)
	}
	var r struct {
		Checks []struct{ Name, Status string }
	}
	if err := json.Unmarshal(out, &r); err != nil {
		w.t.Fatalf("doctor: exit %d: %v\n%s\n%s", code, err, out, stderr)
	}
	st := map[string]string{}
	for _, c := range r.Checks {
		st[c.Name] = c.Status
	}
	return st, string(out) + stderr, code
}

// TestDoctorOverBothTransports: on either transport, the doctor passes
// the sim under its shipped config (exit 0), and fails a config whose arm
// action no controller serves and a second sim serving the same actions
// and publishing the same joint states (exit 1), from the same checks:
// over ROS 1 from the master's graph and parameters.
func TestDoctorOverBothTransports(t *testing.T) {
	eachTransport(t, func(t *testing.T, tr transport) {
		w := newWorld(t, worldOpts{tr: tr, noBridge: true})
		arm := map[transport]string{ros1: "/arm_controller/follow_joint_trajectory", ros2: "/joint_trajectory_controller/follow_joint_trajectory"}[tr]
		st, out, code := w.doctor(simConfig(t, tr, nil))
		if code != 0 || st["arm: "+arm+" served"] != "pass" || st["/joint_states published (arm, gripper)"] != "pass" ||
			st["URDF covers the configured joints"] != "pass" {
			t.Fatalf("healthy: exit %d\n%s", code, out)
		}
		st, out, code = w.doctor(simConfig(t, tr, map[string]string{"action: " + arm: "action: /missing_controller/follow_joint_trajectory"}))
		if code != 1 || st["arm: /missing_controller/follow_joint_trajectory served"] != "fail" || st["gripper: /gripper_controller/gripper_cmd served"] != "pass" {
			t.Fatalf("missing controller: exit %d\n%s", code, out)
		}
		w.startSim("--name", "simrobot2")
		st, out, code = w.doctor(simConfig(t, tr, nil))
		if code != 1 || st["arm: one server and one state publisher"] != "fail" {
			t.Fatalf("two sims: exit %d\n%s", code, out)
		}
	})
}
