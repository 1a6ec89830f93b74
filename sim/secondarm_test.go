package sim

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

func dualArmRobot(t *testing.T) *Robot {
	t.Helper()
	return newTestRobot(t, func(c *Config) { c.URDF, c.SecondArm = DualArmURDF, true })
}

func TestDualArmCellHasTwoSixJointArmsWithPrefixedNamesAndLimitsForEach(t *testing.T) {
	r := dualArmRobot(t)
	arm, arm2 := r.ArmJoints(), r.Arm2Joints()
	if len(arm) != 6 || len(arm2) != 6 {
		t.Fatalf("arms %v and %v, want six joints each", arm, arm2)
	}
	for i, j := range arm2 {
		if j != Arm2JointPrefix+arm[i] {
			t.Errorf("second arm joint %d is %s, want %s", i, j, Arm2JointPrefix+arm[i])
		}
	}
	limits, err := ParseJointLimits(DualArmJointLimits)
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range r.Joints() {
		if !slices.ContainsFunc(limits, func(l JointLimit) bool { return l.Joint == j.Name && l.Key == "max_velocity" }) {
			t.Errorf("joint_limits-dual-arm.yaml has no max_velocity for %s", j.Name)
		}
	}
	if newTestRobot(t).Arm2Joints() != nil {
		t.Error("the default robot has a second arm")
	}
}

func TestEachArmMovesOnlyOnItsOwnGoals(t *testing.T) {
	r := dualArmRobot(t)
	g := oneSecondTo(r.Arm2Joints(), []float64{0.3, -0.2, 0.4, 0.1, -0.1, 0.5})
	r.Arm2Goal(GoalID{ID: "right"}, g)
	if o := runUntilDone(t, r, Arm2, "right", 3*time.Second); o.Status != StatusSucceeded {
		t.Fatalf("second arm goal: %s %s", StatusName(o.Status), o.Text)
	}
	pos := r.JointPositions()
	for i, j := range r.Arm2Joints() {
		if want := g.Trajectory.Points[0].Positions[i]; !near([]float64{pos[j]}, []float64{want}, 1e-6) {
			t.Errorf("%s at %g, want %g", j, pos[j], want)
		}
	}
	if got := r.ArmPositions(); !near(got, uniform(6, 0), 1e-9) {
		t.Errorf("the first arm moved on the second arm's goal: %v", got)
	}
	log := r.Goals()
	if len(log[Arm2].Goals) != 1 || len(log[Arm].Goals) != 0 || log[Arm2].NS != Arm2Action {
		t.Fatalf("goal log: arm %d goals, arm2 %d goals at %s", len(log[Arm].Goals), len(log[Arm2].Goals), log[Arm2].NS)
	}

	// The first arm's controller refuses the second arm's joints.
	r.ArmGoal(GoalID{ID: "wrong"}, oneSecondTo(r.Arm2Joints(), uniform(6, 0.1)))
	if o := runUntilDone(t, r, Arm, "wrong", time.Second); o.Status != StatusRejected {
		t.Fatalf("first arm given the second's joints: %s, want REJECTED", StatusName(o.Status))
	}
}

func TestJointStatesCarryBothArmsThenTheGripper(t *testing.T) {
	r := dualArmRobot(t)
	r.Advance(20 * time.Millisecond)
	var js *JointState
	for _, m := range r.Drain() {
		if s, ok := m.(*JointState); ok {
			js = s
		}
	}
	if js == nil {
		t.Fatal("no joint_states")
	}
	want := append(append(r.ArmJoints(), r.Arm2Joints()...), r.Config().GripperJoint)
	if !slices.Equal(js.Name, want) {
		t.Fatalf("joint_states names %v, want %v", js.Name, want)
	}
}

func TestSecondArmWithoutItsJointsIsRefused(t *testing.T) {
	_, err := New(func() Config { c := DefaultConfig(); c.SecondArm = true; return c }())
	if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), Arm2JointPrefix) {
		t.Fatalf("err %v, want ErrConfig naming %s", err, Arm2JointPrefix)
	}
}

// oneSecondTo is a one-point trajectory over joints, one second long.
func oneSecondTo(joints []string, pos []float64) (g TrajectoryGoal) {
	g.Trajectory.JointNames = joints
	g.Trajectory.Points = append(g.Trajectory.Points, trajectoryPoint(pos, 1))
	return g
}
