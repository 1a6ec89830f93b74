package ros2face

import (
	"testing"

	"github.com/actbridge/actbridge/msgs/ros2"
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
