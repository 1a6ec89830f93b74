package ros2face

import (
	"fmt"
	"strings"
	"testing"

	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/ros2/service"
	"github.com/actbridge/actbridge/sim"
)

// Every code the sim's planner answers with is a MoveItErrorCodes
// constant of every distro, so none falls back to FAILURE.
func TestPlannerCodesAreEveryDistrosConstants(t *testing.T) {
	for _, d := range msgs.Distros() {
		set, err := msgs.Load(d)
		if err != nil {
			t.Fatal(err)
		}
		def := set.Definition(typeErrorCodes)
		if def == nil {
			t.Fatalf("%s: no %s", d, typeErrorCodes)
		}
		names := map[string]bool{}
		for _, k := range def.Constants {
			names[k.Name] = true
		}
		for _, c := range []string{sim.PlanSuccess, sim.PlanFailed, sim.PlanInvalidGroup, sim.PlanInvalidGoal, sim.PlanInvalidState,
			sim.PlanInvalidLink, sim.PlanFrameFailure, sim.PlanStartInCollision, sim.PlanGoalInCollision, sim.PlanNoIKSolution, "FAILURE"} {
			if !names[c] {
				t.Errorf("%s: MoveItErrorCodes has no %s", d, c)
			}
		}
	}
}

// planFor answers a GetMotionPlan request given as JSON, on Jazzy, from
// the default sim, with its code's name and message.
func planFor(t *testing.T, body string) (string, string, *cdr.Message) {
	t.Helper()
	set, err := msgs.Load(msgs.Jazzy)
	if err != nil {
		t.Fatal(err)
	}
	types, err := service.ResolveTypes(set, typeGetMotionPlan)
	if err != nil {
		t.Fatal(err)
	}
	r, err := sim.New(sim.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	p := planService{r: r, types: types, codes: map[string]int32{}}
	names := map[int32]string{}
	for _, k := range set.Definition(typeErrorCodes).Constants {
		if v, ok := k.Value.(int32); ok {
			p.codes[k.Name], names[v] = v, k.Name
		}
	}
	req, err := cdr.FromJSON(types.Request, []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := p.answer(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	code, _ := get(rep, "motion_plan_response.error_code.val").(int32)
	return names[code], str(get(rep, "motion_plan_response.error_code.message")), rep
}

// Goal constraints the sim does not plan are refused as
// INVALID_GOAL_CONSTRAINTS with a message saying why, never planned
// for a guess; a sphere is planned.
func TestPlanServiceRefusesGoalsItDoesNotPlan(t *testing.T) {
	sphereAt := func(typ int, dims string) string {
		return `{"link_name": "gripper_base_link", "header": {"frame_id": "base_footprint"}, "constraint_region": {"primitives": [{"type": ` +
			fmt.Sprint(typ) + `, "dimensions": ` + dims + `}], "primitive_poses": [{"position": {"x": 0.5, "z": 0.6}, "orientation": {"w": 1}}]}}`
	}
	many := strings.TrimSuffix(strings.Repeat(`{"joint_constraints": [{"joint_name": "elbow_joint", "position": 0.1}]},`, maxGoalSets+1), ",")
	for name, goals := range map[string]string{
		"none":               ``,
		"a box":              `{"position_constraints": [` + sphereAt(1, "[0.1, 0.1, 0.1]") + `]}`,
		"a sphere, no size":  `{"position_constraints": [` + sphereAt(2, "[]") + `]}`,
		"joints and a pose":  `{"joint_constraints": [{"joint_name": "elbow_joint"}], "position_constraints": [` + sphereAt(2, "[0.01]") + `]}`,
		"orientation alone":  `{"orientation_constraints": [{"link_name": "gripper_base_link", "orientation": {"w": 1}}]}`,
		"another link turns": `{"position_constraints": [` + sphereAt(2, "[0.01]") + `], "orientation_constraints": [{"link_name": "wrist_1_link", "header": {"frame_id": "base_footprint"}, "orientation": {"w": 1}}]}`,
		"too many sets":      many,
	} {
		code, msg, _ := planFor(t, `{"motion_plan_request": {"group_name": "arm", "goal_constraints": [`+goals+`]}}`)
		if code != sim.PlanInvalidGoal || msg == "" {
			t.Errorf("%s: %s %q, want INVALID_GOAL_CONSTRAINTS with a message", name, code, msg)
		}
	}
	code, msg, rep := planFor(t, `{"motion_plan_request": {"group_name": "arm", "goal_constraints": [{"position_constraints": [`+sphereAt(2, "[0.01]")+`]}]}}`)
	pts, _ := get(rep, "motion_plan_response.trajectory.joint_trajectory.points").([]*cdr.Message)
	if code != sim.PlanSuccess || len(pts) < 2 {
		t.Fatalf("a sphere: %s %q, %d points", code, msg, len(pts))
	}
}
