package sim

import (
	"math"
	"reflect"
	"testing"
	"time"
)

// besideTable is a table in front of the robot that an arm swinging low
// from its left to its right sweeps through.
var besideTable = Box{Min: [3]float64{0.45, -0.3, 0}, Max: [3]float64{0.9, 0.3, 0.35}}

var (
	lowLeft  = []float64{1.4, 1.3, 0.9, 0, 0, 0}
	lowRight = []float64{-1.4, 1.3, 0.9, 0, 0, 0}
)

func jointGoals(r *Robot, q []float64) []JointGoal {
	var out []JointGoal
	for i, n := range r.ArmJoints() {
		out = append(out, JointGoal{Name: n, Position: q[i]})
	}
	return out
}

func startAt(r *Robot, q []float64) map[string]float64 {
	out := map[string]float64{}
	for i, n := range r.ArmJoints() {
		out[n] = q[i]
	}
	return out
}

// run executes a trajectory on the arm from where it stands and returns
// how it ended.
func run(t *testing.T, r *Robot, id string, tr Trajectory) GoalOutcome {
	t.Helper()
	r.ArmGoal(GoalID{ID: id}, TrajectoryGoal{Trajectory: tr})
	return runUntilDone(t, r, Arm, id, tr.Points[len(tr.Points)-1].TimeFromStart+5*time.Second)
}

// TestPlanJointGoalEndsThereWithinTheScaledVelocityLimits: a joint goal's
// trajectory starts at the start state, ends at rest at the goal, and
// moves no joint faster than its URDF limit times the scaling, between
// samples as at them.
func TestPlanJointGoalEndsThereWithinTheScaledVelocityLimits(t *testing.T) {
	r := newTestRobot(t)
	goal := []float64{0.5, -0.4, 1.2, 0.3, -1, 2}
	res := r.Plan(PlanRequest{Group: ArmGroup, Joints: jointGoals(r, goal), VelocityScaling: 0.5})
	if res.Code != PlanSuccess {
		t.Fatalf("%s: %s", res.Code, res.Message)
	}
	pts := res.Trajectory.Points
	if !near(pts[0].Positions, make([]float64, 6), 1e-12) || !near(pts[len(pts)-1].Positions, goal, 1e-12) ||
		!near(pts[len(pts)-1].Velocities, make([]float64, 6), 1e-12) {
		t.Fatalf("from %v to %v (v %v)", pts[0].Positions, pts[len(pts)-1].Positions, pts[len(pts)-1].Velocities)
	}
	joints := r.Joints()
	for k := 1; k < len(pts); k++ {
		dt := (pts[k].TimeFromStart - pts[k-1].TimeFromStart).Seconds()
		if !(dt > 0) {
			t.Fatalf("point %d: time does not increase", k)
		}
		for i := range 6 {
			limit := joints[i].Velocity * 0.5 * (1 + 1e-9)
			if math.Abs(pts[k].Velocities[i]) > limit || math.Abs(pts[k].Positions[i]-pts[k-1].Positions[i])/dt > limit {
				t.Fatalf("point %d: %s at %g rad/s, limit %g", k, joints[i].Name, pts[k].Velocities[i], limit)
			}
		}
	}
	if o := run(t, r, "p", res.Trajectory); o.Status != StatusSucceeded {
		t.Fatalf("the plan ran %s: %s", StatusName(o.Status), o.Text)
	}
}

// TestPlanAvoidsTheTableThatTheStraightPathHits: from low on the left to
// low on the right, the straight joint-space path sweeps through the
// table (its run is in the collision log); the plan goes round it, and
// running it leaves the log empty.
func TestPlanAvoidsTheTableThatTheStraightPathHits(t *testing.T) {
	straight := newTestRobot(t, func(c *Config) { c.Table = &besideTable; c.ArmInitial = lowLeft })
	tr := traj(straight, 4, lowRight)
	if run(t, straight, "s", tr.Trajectory); straight.Collisions().Contacts == 0 {
		t.Fatal("the straight path does not touch the table: the test proves nothing")
	}
	r := newTestRobot(t, func(c *Config) { c.Table = &besideTable; c.ArmInitial = lowLeft })
	res := r.Plan(PlanRequest{Group: ArmGroup, Joints: jointGoals(r, lowRight)})
	if res.Code != PlanSuccess {
		t.Fatalf("%s: %s", res.Code, res.Message)
	}
	if o := run(t, r, "p", res.Trajectory); o.Status != StatusSucceeded {
		t.Fatalf("the plan ran %s: %s", StatusName(o.Status), o.Text)
	}
	if l := r.Collisions(); l.Contacts != 0 {
		t.Fatalf("the plan touched the table: %+v", l.Collisions)
	}
	if got := r.ArmPositions(); !near(got, lowRight, 0.02) {
		t.Fatalf("arm at %v, want %v", got, lowRight)
	}
}

// TestPlanPoseGoalPutsTheLinkOnTheTarget: a pose goal in map, odom (with
// drift) or a link frame ends, by the sim's FK, within the sphere and
// the orientation tolerance.
func TestPlanPoseGoalPutsTheLinkOnTheTarget(t *testing.T) {
	down := &Quaternion{X: 0, Y: 1, Z: 0, W: 0} // tool z along world −z
	for _, frame := range []string{"", "base_link", MapFrame, OdomFrame} {
		t.Run(frame, func(t *testing.T) {
			r := newTestRobot(t, func(c *Config) {
				c.BaseInitial = Pose2D{X: 1, Y: -0.5, Yaw: 0.3}
				c.OdomDrift = Pose2D{X: 0.05, Yaw: 0.02}
			})
			r.Advance(2 * time.Second)
			target := Point3{X: 0.6, Y: 0.1, Z: 0.5}
			// The target in map, for the check.
			world := vec3{target.X, target.Y, target.Z}
			name := frame
			if name == "" {
				name = BaseFrame
			}
			switch frame {
			case OdomFrame:
				world = planar(r.OdomInMap()).then(transform{r: identity(), p: world}).p
			case MapFrame:
			default:
				p, rot, _ := r.LinkPose(name)
				world = transform{r: rot, p: p}.then(transform{r: identity(), p: world}).p
			}
			g := &PoseGoal{Link: "gripper_base_link", Frame: frame, Position: target, Radius: 0.01}
			if frame != OdomFrame && frame != MapFrame {
				g.Orientation, g.AxisTolerance = down, [3]float64{0.05, 0.05, 0.05}
			}
			res := r.Plan(PlanRequest{Group: ArmGroup, Pose: g})
			if res.Code != PlanSuccess {
				t.Fatalf("%s: %s", res.Code, res.Message)
			}
			if o := run(t, r, "p", res.Trajectory); o.Status != StatusSucceeded {
				t.Fatalf("the plan ran %s: %s", StatusName(o.Status), o.Text)
			}
			last := res.Trajectory.Points[len(res.Trajectory.Points)-1].Positions
			q := r.fillPositions(map[string]float64{})
			for i, n := range r.ArmJoints() {
				q[n] = last[i]
			}
			l := r.model.linkPoses(r.MapPose(), q)["gripper_base_link"]
			if d := l.p.sub(world).norm(); d > 0.01 {
				t.Fatalf("link %v, %g m from the target %v", l.p, d, world)
			}
			if g.Orientation != nil {
				_, frameRot, _ := r.LinkPose(name)
				want := mat3(frameRot).mul(quatMatrix(0, 1, 0, 0))
				if a := want.transpose().mul(l.r).rotationVector().norm(); a > 0.05*math.Sqrt(3) {
					t.Fatalf("tool %g rad off the orientation", a)
				}
			}
		})
	}
}

// TestPlanRefusesWithMoveItsCodes: an unknown group, a goal inside the
// table, out of reach, beyond a joint's limits or in an unknown frame,
// and a start state touching the table are each refused with MoveIt's
// code for it.
func TestPlanRefusesWithMoveItsCodes(t *testing.T) {
	r := newTestRobot(t, func(c *Config) { c.Table = &besideTable })
	inTable := &PoseGoal{Link: "gripper_base_link", Frame: BaseFrame, Position: Point3{X: 0.7, Z: 0.1}, Radius: 0.01}
	for _, tt := range []struct {
		name string
		req  PlanRequest
		want []string
	}{
		{"unknown group", PlanRequest{Group: "manipulator", Joints: jointGoals(r, lowRight)}, []string{PlanInvalidGroup}},
		{"pose in the table", PlanRequest{Group: ArmGroup, Pose: inTable}, []string{PlanGoalInCollision, PlanNoIKSolution}},
		{"joints in the table", PlanRequest{Group: ArmGroup, Joints: jointGoals(r, []float64{0, 1.3, 0.9, 0, 0, 0})}, []string{PlanGoalInCollision}},
		{"out of reach", PlanRequest{Group: ArmGroup, Pose: &PoseGoal{Link: "gripper_base_link", Frame: BaseFrame, Position: Point3{X: 3}, Radius: 0.01}}, []string{PlanNoIKSolution}},
		{"beyond a limit", PlanRequest{Group: ArmGroup, Joints: []JointGoal{{Name: "elbow_joint", Position: 3}}}, []string{PlanInvalidGoal}},
		{"unknown joint", PlanRequest{Group: ArmGroup, Joints: []JointGoal{{Name: "knee_joint"}}}, []string{PlanInvalidGoal}},
		{"NaN", PlanRequest{Group: ArmGroup, Joints: []JointGoal{{Name: "elbow_joint", Position: math.NaN()}}}, []string{PlanInvalidGoal}},
		{"unknown frame", PlanRequest{Group: ArmGroup, Pose: &PoseGoal{Link: "gripper_base_link", Frame: "camera", Radius: 0.01}}, []string{PlanFrameFailure}},
		{"unknown link", PlanRequest{Group: ArmGroup, Pose: &PoseGoal{Link: "hand", Radius: 0.01}}, []string{PlanInvalidLink}},
		{"no goal", PlanRequest{Group: ArmGroup}, []string{PlanInvalidGoal}},
		{"start in the table", PlanRequest{Group: ArmGroup, Start: startAt(r, []float64{0, 1.3, 0.9, 0, 0, 0}), Joints: jointGoals(r, lowRight)}, []string{PlanStartInCollision}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := r.Plan(tt.req)
			ok := false
			for _, w := range tt.want {
				ok = ok || res.Code == w
			}
			if !ok || res.Message == "" || len(res.Trajectory.Points) != 0 {
				t.Fatalf("%s (%q), want one of %v", res.Code, res.Message, tt.want)
			}
		})
	}
}

// TestPlanIsDeterministic: the same request from the same state gets the
// same trajectory, via points and IK restarts included.
func TestPlanIsDeterministic(t *testing.T) {
	r := newTestRobot(t, func(c *Config) { c.Table = &besideTable })
	for _, req := range []PlanRequest{
		{Group: ArmGroup, Start: startAt(r, lowLeft), Joints: jointGoals(r, lowRight)},
		{Group: ArmGroup, Pose: &PoseGoal{Link: "gripper_base_link", Position: Point3{X: -0.5, Y: 0.4, Z: 0.6}, Radius: 0.005}},
	} {
		a, b := r.Plan(req), r.Plan(req)
		if a.Code != PlanSuccess || !reflect.DeepEqual(a.Trajectory, b.Trajectory) {
			t.Fatalf("%s / %s: two plans differ", a.Code, b.Code)
		}
	}
}

// TestPlanBoundsWhatARequestCanAsk: a start state far out, a velocity
// scaling that would make the motion last for ages, and a continuous
// joint's (wrist_3_joint's) goal many turns away are refused or taken the short way, never
// a runaway loop or allocation.
func TestPlanBoundsWhatARequestCanAsk(t *testing.T) {
	r := newTestRobot(t)
	if res := r.Plan(PlanRequest{Group: ArmGroup, Start: map[string]float64{"wrist_3_joint": 1e300}, Joints: jointGoals(r, lowRight)}); res.Code != PlanInvalidState {
		t.Errorf("start 1e300: %s %s", res.Code, res.Message)
	}
	if res := r.Plan(PlanRequest{Group: ArmGroup, Joints: jointGoals(r, lowRight), VelocityScaling: 1e-300}); res.Code != PlanFailed {
		t.Errorf("scaling 1e-300: %s %s", res.Code, res.Message)
	}
	res := r.Plan(PlanRequest{Group: ArmGroup, Joints: jointGoals(r, lowRight), VelocityScaling: 1e-3})
	if res.Code != PlanSuccess || len(res.Trajectory.Points) > 2*maxSamples+1 {
		t.Errorf("scaling 1e-3: %s, %d points", res.Code, len(res.Trajectory.Points))
	}
	res = r.Plan(PlanRequest{Group: ArmGroup, Joints: []JointGoal{{Name: "wrist_3_joint", Position: 1e12 + 0.5}}})
	if res.Code != PlanSuccess {
		t.Fatalf("continuous goal 1e12+0.5: %s %s", res.Code, res.Message)
	}
	last := res.Trajectory.Points[len(res.Trajectory.Points)-1].Positions[5]
	if res.Code != PlanSuccess || math.Abs(last) > math.Pi || math.Abs(math.Remainder(last-(1e12+0.5), 2*math.Pi)) > 1e-3 {
		t.Errorf("continuous goal 1e12+0.5: %s, ends at %g", res.Code, last)
	}
}

// TestPlanServesTheSecondArmAsItsOwnGroup: with a second arm, the group
// "arm2" plans its joints and leaves the first arm's alone; without one,
// "arm2" is no group.
func TestPlanServesTheSecondArmAsItsOwnGroup(t *testing.T) {
	if res := newTestRobot(t).Plan(PlanRequest{Group: Arm2, Joints: []JointGoal{{Name: "arm2_elbow_joint", Position: 1}}}); res.Code != PlanInvalidGroup {
		t.Fatalf("arm2 on one arm: %s", res.Code)
	}
	r := newTestRobot(t, func(c *Config) { c.SecondArm, c.URDF = true, DualArmURDF })
	res := r.Plan(PlanRequest{Group: Arm2, Joints: []JointGoal{{Name: "arm2_elbow_joint", Position: 1}}})
	if res.Code != PlanSuccess || !reflect.DeepEqual(res.Trajectory.JointNames, r.Arm2Joints()) {
		t.Fatalf("%s %q: joints %v", res.Code, res.Message, res.Trajectory.JointNames)
	}
	if res := r.Plan(PlanRequest{Group: ArmGroup, Joints: []JointGoal{{Name: "arm2_elbow_joint", Position: 1}}}); res.Code != PlanInvalidGoal {
		t.Fatalf("the second arm's joint in the first arm's group: %s", res.Code)
	}
}
