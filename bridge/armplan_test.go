package bridge

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/kinematics"
	"github.com/actbridge/actbridge/safety"
	"github.com/actbridge/actbridge/spline"
	"github.com/actbridge/actbridge/tf"
)

// plannedRobot is the fake robot with a move_group: plan answers each
// request (kept in asked).
type plannedRobot struct {
	actuators.Robot
	plan  func(actuators.PlanRequest) (actuators.Plan, error)
	mu    sync.Mutex
	asked []actuators.PlanRequest
}

func (r *plannedRobot) Plan(_ context.Context, req actuators.PlanRequest) (actuators.Plan, error) {
	r.mu.Lock()
	r.asked = append(r.asked, req)
	r.mu.Unlock()
	return r.plan(req)
}

// planRig is poseRig with the arm's planning group set and move_group
// answering with plan.
func planRig(t *testing.T, plan func(actuators.PlanRequest) (actuators.Plan, error)) (*rig, *plannedRobot, []string) {
	pr := &plannedRobot{plan: plan}
	var joints []string
	r, _ := poseRig(t, safety.WorkspaceLimits{}, func(p *Previewer) {
		pr.Robot, p.Robot = p.Robot, pr
		p.Arms[0].Planning = &ArmPlanning{Group: "arm", Service: "/plan_kinematic_path", Time: time.Second}
		joints = p.Arms[0].Joints
	})
	return r, pr, joints
}

// moveGroupPlan is a plan from qa to qb over two seconds, through a
// midpoint, as move_group returns one (positions and velocities).
func moveGroupPlan(joints []string, qb []float64) actuators.Plan {
	mid := make([]float64, len(qa))
	for i := range qa {
		mid[i] = (qa[i] + qb[i]) / 2
	}
	zero := make([]float64, len(qa))
	vmid := make([]float64, len(qa))
	for i := range qa {
		vmid[i] = (qb[i] - qa[i]) / 2 * 1.5
	}
	return actuators.Plan{Trajectory: actuators.Trajectory{Joints: joints, Points: []spline.Point{
		{Positions: append([]float64(nil), qa...), Velocities: zero, Time: 0},
		{Positions: mid, Velocities: vmid, Time: 1},
		{Positions: append([]float64(nil), qb...), Velocities: zero, Time: 2},
	}}, PlanningTime: 40 * time.Millisecond, Source: "/move_group on participant 01"}
}

var qb = []float64{0.0, 0.6, 0.9, 0.1, 1.3, 0.4}

// With a move_group, arm_move_pose's joint path is its plan: the preview
// says so and confirm sends exactly the plan's points after its start
// state, once.
func TestMoveGroupsPlanIsPreviewedAndSentAsPlanned(t *testing.T) {
	var joints []string
	r, pr, joints := planRig(t, func(req actuators.PlanRequest) (actuators.Plan, error) {
		return moveGroupPlan(joints, qb), nil
	})
	_, chain := poseRig(t, safety.WorkspaceLimits{})
	goal := toolPoseAt(t, chain, qb)
	pv, e := r.call(t, RolePlanner, "arm_move_pose", poseArgs(goal, ""))
	if e != nil {
		t.Fatal(e)
	}
	ik, _ := pv["ik"].(map[string]any)
	if p, _ := ik["planner"].(string); !strings.HasPrefix(p, "move_group: /move_group") || ik["group"] != "arm" {
		t.Fatalf("preview ik %v", ik)
	}
	pr.mu.Lock()
	req := pr.asked[0]
	pr.mu.Unlock()
	if req.Group != "arm" || req.Pose == nil || req.Pose.Link != "gripper_base_link" || req.Pose.Frame != "base_link" || len(req.Start) != len(qa) || req.Start[2].Position != qa[2] {
		t.Fatalf("asked %+v", req)
	}
	tr := confirmOnce(t, r, pv)
	want := moveGroupPlan(joints, qb).Trajectory
	want.Points = want.Points[1:] // the start state at time 0 is the robot's, not sent
	if len(tr.Points) != len(want.Points) {
		t.Fatalf("%d points sent, the plan had %d", len(tr.Points), len(want.Points))
	}
	for k := range want.Points {
		for i := range joints {
			if tr.Points[k].Positions[i] != want.Points[k].Positions[i] || tr.Points[k].Time != want.Points[k].Time {
				t.Fatalf("point %d sent %+v, planned %+v", k, tr.Points[k], want.Points[k])
			}
		}
	}
}

// Without a move_group the bridge plans itself and says so; a move_group
// that refuses refuses the preview, with MoveIt's reason; a plan past the
// arm's limits is refused by the bridge's own check. Nothing is sent.
func TestPlannerAbsentRefusingOrPastTheLimits(t *testing.T) {
	_, chain := poseRig(t, safety.WorkspaceLimits{})
	goal := toolPoseAt(t, chain, qb)
	t.Run("no move_group", func(t *testing.T) {
		r, _, _ := planRig(t, func(actuators.PlanRequest) (actuators.Plan, error) {
			return actuators.Plan{}, fmt.Errorf("%w: /plan_kinematic_path has no server on the graph", actuators.ErrNoPlanner)
		})
		pv, e := r.call(t, RolePlanner, "arm_move_pose", poseArgs(goal, ""))
		if e != nil {
			t.Fatal(e)
		}
		if p, _ := pv["ik"].(map[string]any)["planner"].(string); !strings.HasPrefix(p, "the bridge's IK") {
			t.Fatalf("planner %q", p)
		}
	})
	t.Run("refused", func(t *testing.T) {
		r, _, _ := planRig(t, func(actuators.PlanRequest) (actuators.Plan, error) {
			return actuators.Plan{}, &actuators.PlanError{Code: -12, Name: "GOAL_IN_COLLISION", Message: "the gripper would hit the table"}
		})
		_, e := r.call(t, RolePlanner, "arm_move_pose", poseArgs(goal, ""))
		if e == nil || e.Code != CodeInvalidArgument || e.Rule != "planner_refused" || !strings.Contains(e.Message, "GOAL_IN_COLLISION") || r.robot.GoalsSent() != 0 {
			t.Fatalf("%+v", e)
		}
	})
	t.Run("too fast", func(t *testing.T) {
		var joints []string
		r, _, js := planRig(t, func(actuators.PlanRequest) (actuators.Plan, error) {
			p := moveGroupPlan(joints, qb)
			for k := range p.Trajectory.Points {
				p.Trajectory.Points[k].Time /= 50 // 40 ms for the whole move
			}
			return p, nil
		})
		joints = js
		_, e := r.call(t, RolePlanner, "arm_move_pose", poseArgs(goal, ""))
		if e == nil || e.Code != CodeLimitViolation || r.robot.GoalsSent() != 0 {
			t.Fatalf("%+v", e)
		}
	})
}

// armFrames places frame "map" at a fixed transform in the base link, as
// of at.
type armFrames struct {
	tr    tf.Transform
	at    time.Time
	err   error
	asked time.Duration // the maxAge of the last lookup
}

func (f *armFrames) Transform(target, source string, maxAge time.Duration) (tf.Transform, time.Time, error) {
	f.asked = maxAge
	if f.err != nil {
		return tf.Transform{}, time.Time{}, f.err
	}
	if source != "map" || target != "base_link" {
		return tf.Transform{}, time.Time{}, &tf.Error{Err: tf.ErrUnknownFrame, Frame: source}
	}
	return f.tr, f.at, nil
}

// A pose given in a frame /tf places (map) is moved into the base link
// through the transform, position and orientation; the preview shows the
// goal as given; a stale transform or an unknown frame refuses it.
func TestAPoseInAFrameTFPlacesIsMovedIntoTheBaseLink(t *testing.T) {
	_, chain := poseRig(t, safety.WorkspaceLimits{})
	goal := toolPoseAt(t, chain, qb) // in base_link
	inBase := tf.Transform{Translation: [3]float64{1, -0.5, 0.2}, Rotation: [4]float64{0, 0, math.Sin(0.4), math.Cos(0.4)}}
	g := inBase.Inverse().Mul(tf.Transform{Translation: goal.Position, Rotation: goal.Orientation}) // the goal in map
	var frames armFrames
	r, c := poseRig(t, safety.WorkspaceLimits{}, func(p *Previewer) { p.Arms[0].Frames = &frames })
	frames = armFrames{tr: inBase, at: r.clock()}
	args := poseArgs(kinematics.Pose{Position: g.Translation, Orientation: g.Rotation}, `,"frame":"map"`)
	pv, e := r.call(t, RolePlanner, "arm_move_pose", args)
	if e != nil {
		t.Fatal(e)
	}
	if given, _ := pv["ik"].(map[string]any)["given"].(map[string]any); given == nil || given["frame"] != "map" {
		t.Fatalf("preview ik %v", pv["ik"])
	}
	tr := confirmOnce(t, r, pv)
	if dp, da := poseDistance(endPose(t, c, tr), goal); dp > 1e-6 || da > 1e-6 {
		t.Fatalf("the sent trajectory ends %g m and %g rad from the goal placed through TF", dp, da)
	}

	frames.err = &tf.Error{Err: tf.ErrStale, Frame: "map", Detail: "2s old"}
	if _, e := r.call(t, RolePlanner, "arm_move_pose", args); e == nil || e.Code != CodeUnavailable || e.Rule != ruleTFMaxAge {
		t.Fatalf("stale transform: %+v", e)
	}
	frames.err = nil
	other := poseArgs(kinematics.Pose{Position: g.Translation, Orientation: g.Rotation}, `,"frame":"camera"`)
	if _, e := r.call(t, RolePlanner, "arm_move_pose", other); e == nil || e.Code != CodeUnavailable || e.Rule != ruleTFLookup {
		t.Fatalf("unknown frame: %+v", e)
	}
	if r.robot.GoalsSent() != 1 {
		t.Fatalf("%d goals sent, want only the confirmed one", r.robot.GoalsSent())
	}
}

// The arm's TF lookups take the robot's tf_max_age (ArmModel.TFMaxAge),
// DefaultTFMaxAge when it is unset.
func TestAnArmPoseTakesTheConfiguredTFMaxAge(t *testing.T) {
	for _, tc := range []struct {
		set, want time.Duration
	}{{0, DefaultTFMaxAge}, {250 * time.Millisecond, 250 * time.Millisecond}, {5 * time.Second, 5 * time.Second}} {
		var frames armFrames
		r, chain := poseRig(t, safety.WorkspaceLimits{}, func(p *Previewer) { p.Arms[0].Frames, p.Arms[0].TFMaxAge = &frames, tc.set })
		frames = armFrames{tr: tf.Identity, at: r.clock()}
		goal := toolPoseAt(t, chain, qb)
		if _, e := r.call(t, RolePlanner, "arm_move_pose", poseArgs(goal, `,"frame":"map"`)); e != nil {
			t.Fatal(e)
		}
		if frames.asked != tc.want {
			t.Errorf("tf_max_age %v: the lookup asked for at most %v old, want %v", tc.set, frames.asked, tc.want)
		}
	}
}

// A pose given in map was solved for where the pose was in the base link:
// when map moved or turned before confirm (the mobile base under the arm
// drove, localisation jumped) so that the pose itself moved past
// FrameTolerance, the preview is stale and nothing is sent; the pose, not
// map's origin, is what counts (a turn about a far origin moves it by the
// turn times that distance; a base turning a hair in place barely moves
// it). A transform confirm cannot read refuses with the preview standing.
func TestAFrameThatMovedBetweenPreviewAndConfirmStalesTheArmPosePreview(t *testing.T) {
	turn := func(rad float64) tf.Transform {
		return tf.Transform{Rotation: [4]float64{0, 0, math.Sin(rad / 2), math.Cos(rad / 2)}}
	}
	shift := func(x, y, z float64) tf.Transform {
		return tf.Transform{Translation: [3]float64{x, y, z}, Rotation: tf.Identity.Rotation}
	}
	far := shift(-6, -6, 0) // map's origin in the base link, 8.5 m away
	for _, c := range []struct {
		name  string
		then  tf.Transform
		now   func(then, goal tf.Transform) tf.Transform // goal: the pose in map
		stale bool
	}{
		{"unmoved", far, func(then, _ tf.Transform) tf.Transform { return then }, false},
		{"moved 1 cm", far, func(then, _ tf.Transform) tf.Transform { return shift(0.01, 0, 0).Mul(then) }, false},
		{"moved 3 cm", far, func(then, _ tf.Transform) tf.Transform { return shift(0, 0.03, 0).Mul(then) }, true},
		{"map turned 0.019 rad about its far origin", far, func(then, _ tf.Transform) tf.Transform { return then.Mul(turn(0.019)) }, true},
		{"the base turned 0.003 rad in place", far, func(then, _ tf.Transform) tf.Transform { return turn(0.003).Mul(then) }, false},
		{"turned 0.05 rad about the pose", far, func(then, g tf.Transform) tf.Transform {
			p := g.Translation
			return then.Mul(shift(p[0], p[1], p[2])).Mul(turn(0.05)).Mul(shift(-p[0], -p[1], -p[2]))
		}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, frames, goal, confirm := mapPosePreview(t, c.then)
			frames.tr = c.now(c.then, goal)
			_, e := r.call(t, RolePlanner, "motion_confirm", confirm)
			wantStaleOrSent(t, r, e, c.stale, "given in map")
		})
	}
	t.Run("transform lost", func(t *testing.T) {
		r, frames, _, confirm := mapPosePreview(t, tf.Identity)
		frames.err = &tf.Error{Err: tf.ErrStale, Frame: "map", Detail: "3s old"}
		if _, e := r.call(t, RolePlanner, "motion_confirm", confirm); e == nil || e.Code != CodeUnavailable || e.Rule != ruleTFMaxAge || r.robot.GoalsSent() != 0 {
			t.Fatalf("%+v, %d goals; want unavailable (tf_max_age), nothing sent", e, r.robot.GoalsSent())
		}
		frames.err = nil
		if _, e := r.call(t, RolePlanner, "motion_confirm", confirm); e != nil || r.robot.GoalsSent() != 1 {
			t.Fatalf("%+v, %d goals; the preview should have stood", e, r.robot.GoalsSent())
		}
	})
}

// mapPosePreview previews an arm pose given in map, map's pose in the base
// link being inBase; it returns the pose as given in map and the
// confirm's arguments.
func mapPosePreview(t *testing.T, inBase tf.Transform) (*rig, *armFrames, tf.Transform, string) {
	t.Helper()
	frames := &armFrames{}
	r, chain := poseRig(t, safety.WorkspaceLimits{}, func(p *Previewer) { p.Arms[0].Frames = frames })
	*frames = armFrames{tr: inBase, at: r.clock()}
	g := toolPoseAt(t, chain, qb)
	inMap := inBase.Inverse().Mul(tf.Transform{Translation: g.Position, Rotation: g.Orientation})
	pv, e := r.call(t, RolePlanner, "arm_move_pose", poseArgs(kinematics.Pose{Position: inMap.Translation, Orientation: inMap.Rotation}, `,"frame":"map"`))
	if e != nil {
		t.Fatal(e)
	}
	return r, frames, inMap, `{"preview_id":"` + pv["preview_id"].(string) + `"}`
}
