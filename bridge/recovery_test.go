package bridge

import (
	"fmt"
	"math"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/safety"
)

// recoveryRig is the rig with the real safety checks on two joints in
// [-2, 2] rad at 1 rad/s, j1 standing at 2.3 (0.3 past its upper limit),
// and the arm's policy the planner's.
func recoveryRig(t *testing.T) *rig {
	t.Helper()
	j := func(n string) safety.JointLimits {
		return safety.JointLimits{Name: n, Type: safety.Revolute,
			MinPosition: safety.Limit{Value: -2, Source: safety.SourceURDF}, MaxPosition: safety.Limit{Value: 2, Source: safety.SourceURDF},
			MaxVelocity: safety.Limit{Value: 1, Source: safety.SourceURDF}, MaxAcceleration: safety.Limit{Value: 10, Source: safety.SourceYAML}}
	}
	lim, err := safety.NewLimits([]safety.JointLimits{j("j1"), j("j2")})
	if err != nil {
		t.Fatal(err)
	}
	r := newRig(t, func(p *Previewer) { p.Arms[0].Guard = SafetyArm{Limits: lim} })
	r.robot.SetJoint("j1", 2.3)
	return r
}

func TestARecoveryPreviewNamesWhatIsOutOfRangeAndOnlyTheOperatorConfirmsIt(t *testing.T) {
	r := recoveryRig(t)
	pv, e := r.call(t, RolePlanner, "arm_move_joints", `{"positions":{"j1":1.9}}`)
	if e != nil {
		t.Fatal(e)
	}
	if pv["recovery"] != true || pv["confirmed_by"] != "operator" {
		t.Fatalf("recovery %v confirmed_by %v", pv["recovery"], pv["confirmed_by"])
	}
	if got := fmt.Sprint(pv["out_of_range"]); got != "[map[by:0.3 joint:j1 limit:2 position:2.3]]" {
		t.Fatalf("out_of_range %s", got)
	}
	// The default duration is the recovery's: 0.4 rad at 0.1 rad/s peak.
	if d := pv["duration_s"].(float64); d < 1.875*0.4/0.1-1e-6 {
		t.Fatalf("duration %g is faster than the recovery fraction allows", d)
	}
	onlyTheOperatorConfirms(t, r, pv["preview_id"].(string))
}

func TestFromOutOfRangeEveryOtherArmMotionIsRefusedAndNothingIsSent(t *testing.T) {
	r := recoveryRig(t)
	for _, tc := range []struct {
		name, tool, args, kind string
	}{
		{"further out", "arm_follow_trajectory", `{"joints":["j1"],"points":[{"positions":[2.5],"velocities":[0],"accelerations":[0],"time_from_start":30}]}`, "recovery_direction"},
		{"slowly further out, under the speed allowance", "arm_follow_trajectory", `{"joints":["j1"],"points":[{"positions":[2.6],"velocities":[0],"accelerations":[0],"time_from_start":600}]}`, "recovery_direction"},
		{"an in-range joint moves", "arm_move_joints", `{"positions":{"j1":1.9,"j2":0.5}}`, "recovery_hold"},
		{"too fast", "arm_move_joints", `{"positions":{"j1":1.9},"duration_s":1}`, "recovery_speed"},
		{"past the far limit", "arm_follow_trajectory", `{"joints":["j1"],"points":[{"positions":[-2.2],"velocities":[0],"accelerations":[0],"time_from_start":100}]}`, "position"},
	} {
		t.Run(tc.name, func(t *testing.T) { refusedAsRecoveryOnly(t, r, tc.tool, tc.args, tc.kind) })
	}
}

func TestInsideTheRangesAMotionKeepsItsPolicyAndNoRecoveryMark(t *testing.T) {
	r := recoveryRig(t)
	r.robot.SetJoint("j1", 1.5)
	pv, e := r.call(t, RolePlanner, "arm_move_joints", `{"positions":{"j1":1.9,"j2":0.5}}`)
	if e != nil {
		t.Fatal(e)
	}
	if _, ok := pv["recovery"]; ok || pv["confirmed_by"] != "planner" {
		t.Fatalf("recovery %v confirmed_by %v", pv["recovery"], pv["confirmed_by"])
	}
}

// fenceRig is the rig with the real base checks, a fence of ±5 m, caps of
// 0.5 m/s and 1 rad/s, and the base at x=6 facing the fence.
func fenceRig(t *testing.T) *rig {
	t.Helper()
	b, err := safety.NewBase(safety.BaseConfig{MaxLinearSpeed: 0.5, MaxAngularSpeed: 1,
		Geofence: safety.Fence{Frame: "odom", MinX: -5, MaxX: 5, MinY: -5, MaxY: 5}})
	if err != nil {
		t.Fatal(err)
	}
	r := newRig(t, func(p *Previewer) { p.Bases[0].Guard = SafetyBase{Base: b} })
	r.robot.SetPose(actuators.Pose2D{Frame: "odom", X: 6, Yaw: math.Pi})
	return r
}

func TestABaseRecoveryDriveNamesTheFenceSideAndOnlyTheOperatorConfirmsIt(t *testing.T) {
	r := fenceRig(t)
	pv, e := r.call(t, RolePlanner, "base_drive", `{"linear":0.05,"duration_s":10}`)
	if e != nil {
		t.Fatal(e)
	}
	if pv["recovery"] != true || pv["confirmed_by"] != "operator" {
		t.Fatalf("recovery %v confirmed_by %v", pv["recovery"], pv["confirmed_by"])
	}
	if got := fmt.Sprint(pv["out_of_range"]); got != "[map[by:1 joint:x limit:5 position:6]]" {
		t.Fatalf("out_of_range %s", got)
	}
	onlyTheOperatorConfirms(t, r, pv["preview_id"].(string))
}

func TestFromOutsideTheFenceEveryOtherBaseMotionIsRefusedAndNothingIsSent(t *testing.T) {
	r := fenceRig(t)
	for _, tc := range []struct {
		name, tool, args, kind string
	}{
		{"away", "base_drive", `{"linear":-0.05,"duration_s":10}`, safety.RuleRecoveryDirection},
		{"too fast", "base_drive", `{"linear":0.3,"duration_s":2}`, safety.RuleRecoverySpeed},
		{"an arc", "base_drive", `{"linear":0.05,"angular":0.05,"duration_s":10}`, safety.RuleRecoveryStraight},
		{"navigate inside", "base_navigate", `{"x":0,"y":0}`, "recovery_drive_only"},
	} {
		t.Run(tc.name, func(t *testing.T) { refusedAsRecoveryOnly(t, r, tc.tool, tc.args, tc.kind) })
	}
}

// refusedAsRecoveryOnly calls tool as the planner and requires the
// recovery_only refusal with a violation of kind first, the out-of-range
// list, and nothing on the wire.
func refusedAsRecoveryOnly(t *testing.T, r *rig, tool, args, kind string) {
	t.Helper()
	_, e := r.call(t, RolePlanner, tool, args)
	if e == nil || e.Code != CodeLimitViolation || e.Rule != "recovery_only" {
		t.Fatalf("%v", e)
	}
	d, _ := e.Details.(map[string]any)
	vs, _ := d["violations"].([]violationJSON)
	if len(vs) == 0 || vs[0].Kind != kind || d["out_of_range"] == nil {
		t.Fatalf("details %+v, want a %s violation", e.Details, kind)
	}
	if n := r.robot.GoalsSent(); n != 0 {
		t.Fatalf("%d goals sent", n)
	}
}

// onlyTheOperatorConfirms requires the planner's confirm of preview id to
// be refused by the operator-only rule with nothing sent, and the
// operator's to send exactly one goal.
func onlyTheOperatorConfirms(t *testing.T, r *rig, id string) {
	t.Helper()
	_, e := r.call(t, RolePlanner, "motion_confirm", `{"preview_id":"`+id+`"}`)
	if e == nil || e.Code != CodePermissionDenied || e.Rule != "operator_confirms" {
		t.Fatalf("planner confirm: %v", e)
	}
	if n := r.robot.GoalsSent(); n != 0 {
		t.Fatalf("%d goals sent on a refused confirm", n)
	}
	out, e := r.call(t, RoleOperator, "motion_confirm", `{"preview_id":"`+id+`"}`)
	if e != nil || out["state"] != "sent" {
		t.Fatalf("operator confirm: %v %v", out, e)
	}
	if n := r.robot.GoalsSent(); n != 1 {
		t.Fatalf("%d goals sent, want 1", n)
	}
}

// A planner's client that declares elicitation and accepts every request
// must not approve a recovery: the operator does, at the console or with
// the operator token. The same client still approves an ordinary
// operator-policy preview by elicitation.
func TestElicitationCannotApproveARecoveryButStillApprovesOperatorPolicy(t *testing.T) {
	for _, operatorPolicy := range []bool{false, true} {
		t.Run(fmt.Sprintf("operator policy %v", operatorPolicy), func(t *testing.T) {
			r := recoveryRig(t)
			r.operator = operatorPolicy
			r.m.Approvals = &Approvals{Key: []byte("approval key"), Denials: r.store, Now: r.clock, Elicit: true}
			var asked atomic.Int32
			cs := connectWith(t, r, answering("accept", &asked, nil), "")
			id := armPreview(t, cs, 1.9)
			for range 2 { // a retry is refused alike, never asked
				_, m := toolCall(t, cs, &mcp.CallToolParams{Name: "motion_confirm", Arguments: map[string]any{"preview_id": id}})
				if m["code"] != "permission_denied" || m["rule"] != "operator_confirms" ||
					!strings.Contains(m["hint"].(string), r.m.ConsoleURL) || !strings.Contains(m["hint"].(string), "operator token") {
					t.Fatalf("planner confirm of a recovery: %v", m)
				}
			}
			if asked.Load() != 0 || r.robot.GoalsSent() != 0 {
				t.Fatalf("asked %d times, %d goals sent; want 0 and 0", asked.Load(), r.robot.GoalsSent())
			}
			if !operatorPolicy {
				return
			}
			r.robot.SetJoint("j1", 1.5) // back in range: an ordinary operator-policy motion
			id = armPreview(t, cs, 1.0)
			res, m := toolCall(t, cs, &mcp.CallToolParams{Name: "motion_confirm", Arguments: map[string]any{"preview_id": id}})
			if res.IsError || m["state"] != "sent" || m["confirmed_via"] != ViaElicitation {
				t.Fatalf("confirm of an operator-policy preview after approval: %v", m)
			}
			if asked.Load() != 1 || r.robot.GoalsSent() != 1 {
				t.Fatalf("asked %d times, %d goals sent; want 1 and 1", asked.Load(), r.robot.GoalsSent())
			}
		})
	}
}
