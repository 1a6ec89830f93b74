package bridge

import (
	"strings"
	"testing"
)

// TestAmbiguousServerRefusesPreviewAndConfirmNamingTheServers: while the
// transport finds more than one server of the arm's action (or publisher
// of its state), a preview is refused ambiguous_server, and so is the
// confirm of a preview made before the second one appeared; the refusal
// names them, is not retryable, and nothing reaches the robot.
func TestAmbiguousServerRefusesPreviewAndConfirmNamingTheServers(t *testing.T) {
	r := newRig(t)
	id := preview(t, r, "arm_move_joints", `{"positions":{"j2":-0.5}}`)
	const who = "servers of /arm/follow_joint_trajectory: /a/jtc on participant 01; /b/jtc on participant 02"
	r.robot.SetAmbiguous("arm", who)
	for _, c := range []struct{ tool, args string }{
		{"arm_move_joints", `{"positions":{"j2":-0.4}}`},
		{"motion_confirm", `{"preview_id":"` + id + `"}`},
	} {
		_, e := r.call(t, RolePlanner, c.tool, c.args)
		if e == nil || e.Code != CodeAmbiguousServer || e.Retryable || !strings.Contains(e.Message, "/b/jtc on participant 02") {
			t.Fatalf("%s: %+v, want ambiguous_server naming both servers", c.tool, e)
		}
	}
	if n := r.robot.GoalsSent(); n != 0 {
		t.Fatalf("%d goals reached the robot", n)
	}
	// Other actuators are not refused.
	if _, e := r.call(t, RolePlanner, "gripper_move", `{"position":0.02}`); e != nil {
		t.Fatalf("gripper preview refused: %+v", e)
	}
	r.robot.SetAmbiguous("arm", "")
	if _, e := r.call(t, RolePlanner, "motion_confirm", `{"preview_id":"`+id+`"}`); e != nil {
		t.Fatalf("confirm once one server is left: %+v", e)
	}
	if n := r.robot.GoalsSent(); n != 1 {
		t.Fatalf("%d goals reached the robot, want 1", n)
	}
}
