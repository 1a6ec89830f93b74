package ros2sim

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/ros2"
	"github.com/actbridge/actbridge/sim"
	"github.com/actbridge/actbridge/test/simcheck"
)

// The table of these tests, in front of the robot where an arm swinging
// low from its left to its right would sweep through it, and that swing.
var (
	planTable = sim.Box{Min: [3]float64{0.45, -0.3, 0}, Max: [3]float64{0.9, 0.3, 0.35}}
	lowLeft   = []float64{1.4, 1.3, 0.9, 0, 0, 0}
	lowRight  = []float64{-1.4, 1.3, 0.9, 0, 0, 0}
	home      = make([]float64, 6)
)

const planTableFlag = "0.45,-0.3,0,0.9,0.3,0.35"

// planReq asks group for a plan from the arm's joints at start (the
// bridge always sends the state it reads).
func planReq(group string, start []float64) actuators.PlanRequest {
	req := actuators.PlanRequest{Service: "/plan_kinematic_path", Group: group, VelocityScaling: 0.5}
	for i, n := range armJoints {
		req.Start = append(req.Start, actuators.JointReading{Name: n, Position: start[i]})
	}
	return req
}

// planOn asks r for a plan once the sim's planning service is on the
// graph (discovery may lag the robot's own endpoints).
func planOn(ctx context.Context, r *ros2.Robot, req actuators.PlanRequest) (actuators.Plan, error) {
	for {
		p, err := r.Plan(ctx, req)
		if !errors.Is(err, actuators.ErrNoPlanner) {
			return p, err
		}
		select {
		case <-ctx.Done():
			return p, err
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func lastPositions(p actuators.Plan) []float64 {
	return p.Trajectory.Points[len(p.Trajectory.Points)-1].Positions
}

// TestPlanKinematicPathAnswersTheBridgesPlanner: the sim's
// /plan_kinematic_path, asked by the bridge's ros2.Robot.Plan, plans a
// joint goal to the goal and a pose goal to where the bridge's own
// kinematics puts the gripper on the target, and refuses a pose inside
// the table and an unknown group with MoveIt's codes (and, from Jazzy
// on, a message).
func TestPlanKinematicPathAnswersTheBridgesPlanner(t *testing.T) {
	for i, d := range []msgs.Distro{msgs.Humble, msgs.Jazzy, msgs.Lyrical} {
		t.Run(string(d), func(t *testing.T) {
			domain := 120 + i
			p := startSim(t, domain, "--distro", string(d), "--table", planTableFlag)
			r := openRobot(t, d, domain)
			ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
			defer cancel()

			goal := []float64{0.5, -0.4, 1.2, 0.3, -1, 2}
			req := planReq("arm", home)
			req.Joints, req.Goal = armJoints, goal
			plan, err := planOn(ctx, r, req)
			if err != nil {
				t.Fatalf("joint goal: %v\nsim:\n%s", err, p.Output())
			}
			for i, q := range lastPositions(plan) {
				if math.Abs(q-goal[i]) > 1e-9 {
					t.Fatalf("joint goal: ends at %v, want %v", lastPositions(plan), goal)
				}
			}

			target := [3]float64{0.6, 0.1, 0.6}
			req = planReq("arm", home)
			req.Pose = &actuators.PoseGoal{Link: simcheck.Tool, Frame: sim.BaseFrame, Position: target,
				Orientation: [4]float64{0, 1, 0, 0}, PositionTolerance: 0.01, AngleTolerance: 0.05}
			if plan, err = r.Plan(ctx, req); err != nil {
				t.Fatalf("pose goal: %v", err)
			}
			tool := simcheck.ToolPose(t, lastPositions(plan))
			dot := math.Abs(tool.Orientation[1]) // with (0, 1, 0, 0)
			if d := math.Hypot(math.Hypot(tool.Position[0]-target[0], tool.Position[1]-target[1]), tool.Position[2]-target[2]); d > 0.01 ||
				2*math.Acos(math.Min(1, dot)) > 0.05*math.Sqrt(3) {
				t.Fatalf("pose goal: the bridge's kinematics puts the tool at %v, %g m from %v", tool, d, target)
			}

			req.Pose = &actuators.PoseGoal{Link: simcheck.Tool, Frame: sim.BaseFrame, Position: [3]float64{0.7, 0, 0.1}, PositionTolerance: 0.01}
			refused(ctx, t, d, r.Plan, req, "GOAL_IN_COLLISION", "NO_IK_SOLUTION")
			req = planReq("manipulator", home)
			req.Joints, req.Goal = armJoints, goal
			refused(ctx, t, d, r.Plan, req, "INVALID_GROUP_NAME")
		})
	}
}

func refused(ctx context.Context, t *testing.T, d msgs.Distro, plan func(context.Context, actuators.PlanRequest) (actuators.Plan, error), req actuators.PlanRequest, codes ...string) {
	t.Helper()
	_, err := plan(ctx, req)
	var pe *actuators.PlanError
	if !errors.As(err, &pe) {
		t.Fatalf("%+v: %v, want a refusal", req, err)
	}
	ok := false
	for _, c := range codes {
		ok = ok || pe.Name == c
	}
	if !ok || (pe.Message == "") != (d == msgs.Humble) {
		t.Fatalf("refused with %s (%d) %q, want one of %v", pe.Name, pe.Code, pe.Message, codes)
	}
}

// TestPlanKinematicPathGoesRoundTheTable: from low on the left to low on
// the right, the plan the sim serves runs clear of the table by the
// sim's collision check: replayed on a sim with the same table, its
// collision log stays empty, where the straight swing touches it.
func TestPlanKinematicPathGoesRoundTheTable(t *testing.T) {
	const domain = 125
	d := msgs.Jazzy
	p := startSim(t, domain, "--distro", string(d), "--table", planTableFlag,
		"--initial-positions", "shoulder_pan_joint=1.4,shoulder_lift_joint=1.3,elbow_joint=0.9")
	r := openRobot(t, d, domain)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	req := planReq("arm", lowLeft)
	req.Joints, req.Goal = armJoints, lowRight
	plan, err := planOn(ctx, r, req)
	if err != nil {
		t.Fatalf("%v\nsim:\n%s", err, p.Output())
	}
	replay := func(points []sim.TrajectoryPoint) sim.CollisionLog {
		cfg := sim.DefaultConfig()
		cfg.Table, cfg.ArmInitial = &planTable, lowLeft
		s, err := sim.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		s.ArmGoal(sim.GoalID{ID: "replay"}, sim.TrajectoryGoal{Trajectory: sim.Trajectory{JointNames: armJoints, Points: points}})
		s.Advance(points[len(points)-1].TimeFromStart + 2*time.Second)
		if o, _ := s.Goal(sim.Arm, "replay"); o.Status != sim.StatusSucceeded {
			t.Fatalf("replay: %s %s", sim.StatusName(o.Status), o.Text)
		}
		return s.Collisions()
	}
	var points []sim.TrajectoryPoint
	for _, pt := range plan.Trajectory.Points {
		points = append(points, sim.TrajectoryPoint{Positions: pt.Positions, Velocities: pt.Velocities,
			TimeFromStart: time.Duration(pt.Time * float64(time.Second))})
	}
	if l := replay(points); l.Contacts != 0 {
		t.Fatalf("the plan touches the table: %+v", l.Collisions)
	}
	straight := []sim.TrajectoryPoint{{Positions: lowRight, TimeFromStart: 4 * time.Second}}
	if l := replay(straight); l.Contacts == 0 {
		t.Fatal("the straight swing misses the table: the test proves nothing")
	}
}
