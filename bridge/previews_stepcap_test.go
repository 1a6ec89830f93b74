package bridge

import (
	"testing"
	"time"
)

func TestStepCapsRefuseTooLargeMotionsAndSendNothing(t *testing.T) {
	r := newRig(t)
	pv := &Previewer{Robot: r.robot, Store: r.store, Signer: r.m.Signer, Motions: r.m, TTL: time.Minute, StaleAfter: time.Second,
		SpeedScale: func() float64 { return 1 }, Now: r.clock,
		Arms:     []*ArmModel{{Name: "arm", Joints: []string{"j1", "j2"}, Guard: fakeArm{}}},
		Bases:    []*BaseModel{{Name: "base", Frame: "odom", MaxDriveS: 10, Guard: fakeBase{}}},
		StepCaps: StepCaps{MaxJointChange: 1.0, MaxBaseTravel: 2.0}}
	reg := NewRegistry()
	reg.MustAdd(pv.ArmMoveJoints(), pv.ArmFollowTrajectory(), pv.BaseNavigate(), pv.BaseDrive())
	r.p = NewPipeline(reg, PipelineDeps{})
	for _, c := range []struct{ tool, args string }{
		{"arm_move_joints", `{"positions":{"j1":1.5},"duration_s":5}`},
		{"arm_follow_trajectory", `{"joints":["j2"],"points":[{"positions":[1.2],"time_from_start":3},{"positions":[0.1],"time_from_start":6}]}`},
		{"base_navigate", `{"x":3,"y":0}`},
		{"base_drive", `{"linear":0.5,"duration_s":5}`},
	} {
		_, err := r.call(t, RolePlanner, c.tool, c.args)
		if err == nil || err.Code != CodeLimitViolation {
			t.Fatalf("%s %s: %v", c.tool, c.args, err)
		}
		vs := err.Details.(map[string]any)["violations"].([]violationJSON)
		if vs[len(vs)-1].Kind != "step_cap" {
			t.Fatalf("%s: %+v", c.tool, vs)
		}
	}
	for _, c := range []struct{ tool, args string }{
		{"arm_move_joints", `{"positions":{"j1":0.9},"duration_s":5}`},
		{"base_navigate", `{"x":1.5,"y":0}`},
		{"base_drive", `{"linear":0.3,"duration_s":5}`},
	} {
		if _, err := r.call(t, RolePlanner, c.tool, c.args); err != nil {
			t.Fatalf("%s within the caps: %v", c.tool, err)
		}
	}
	if r.robot.GoalsSent() != 0 {
		t.Fatal("previews sent goals")
	}
}
