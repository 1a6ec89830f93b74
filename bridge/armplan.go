package bridge

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/spline"
	"github.com/actbridge/actbridge/tf"
)

// ArmPlanning names the MoveIt move_group that plans an arm's pose goals
// (config planning): its planning group, service, node and time.
type ArmPlanning struct {
	Group, Service, Node string
	Time                 time.Duration
}

// A pose goal asked of move_group is met within these: the tool's origin
// within a 1 mm sphere, each axis within 0.01 rad.
const (
	planPositionTolerance = 0.001
	planAngleTolerance    = 0.01
)

// planPose asks the arm's move_group for a collision-aware joint path to
// goal and previews exactly that trajectory, checked by the arm's joint
// and workspace limits like any other; handled is false when the arm has
// no planning group or no move_group is on the graph, and the bridge plans
// itself (ik says why). A move_group that refuses, or a plan that does not
// fit, refuses the preview: the bridge's own IK knows no obstacles.
func (p *Previewer) planPose(ctx context.Context, c *Call, s *poseStart, goal tf.Transform, in poseInput, ik map[string]any) (any, bool, error) {
	pl := s.arm.Planning
	if pl == nil {
		return nil, false, nil
	}
	planner, ok := p.Robot.(actuators.Planner)
	if !ok {
		ik["planner"] = "the bridge's IK: this transport reaches no move_group"
		return nil, false, nil
	}
	start := make([]actuators.JointReading, len(s.start))
	for i, j := range s.arm.Joints {
		start[i] = actuators.JointReading{Name: j, Position: s.start[i].Pos}
	}
	scale := in.SpeedFraction
	if scale <= 0 {
		scale = actuators.DefaultScaling
	}
	req := actuators.PlanRequest{Service: pl.Service, Node: pl.Node, Group: pl.Group, Start: start,
		Pose: &actuators.PoseGoal{Link: s.chain.Tool(), Frame: s.chain.Base(), Position: [3]float64(goal.Translation),
			Orientation: [4]float64(goal.Rotation), PositionTolerance: planPositionTolerance, AngleTolerance: planAngleTolerance},
		Time: pl.Time, VelocityScaling: scale, AccelerationScaling: scale}
	plan, err := planner.Plan(ctx, req)
	var pe *actuators.PlanError
	switch {
	case errors.Is(err, actuators.ErrNoPlanner):
		ik["planner"] = "the bridge's IK: " + clipRunes(err.Error(), 200)
		return nil, false, nil
	case errors.As(err, &pe):
		e := RuleError(CodeInvalidArgument, "planner_refused", "position", fmt.Sprintf("move_group (group %s) found no plan: %s; no preview issued, nothing moves", pl.Group, pe.Error()))
		e.Expected, e.Actual = "a pose move_group can reach without collision", fmt.Sprintf("%s (%d)", pe.Name, pe.Code)
		e.Retryable = pe.Name == "PLANNING_FAILED" || pe.Name == "TIMED_OUT"
		return nil, true, e.WithDetails(map[string]any{"moveit_error": pe.Name, "code": pe.Code, "message": pe.Message}).
			WithHint("move the target away from obstacles or the robot's own links, or leave orientation out, then preview again")
	case errors.Is(err, actuators.ErrAmbiguousServer):
		return nil, true, ambiguousError(pl.Service, err.Error())
	case err != nil:
		return nil, true, StateError(CodeUnavailable, clipRunes(err.Error(), 300), "when move_group answers", "asking move_group for a plan failed; no preview issued")
	}
	points, err := armPoints(s, plan.Trajectory)
	if err != nil {
		return nil, true, StateError(CodeUnavailable, err.Error(), "when move_group plans for this arm's joints", "move_group's plan does not fit the arm; no preview issued")
	}
	ik["planner"] = "move_group: " + plan.Source
	ik["group"], ik["planning_time_s"], ik["points"] = pl.Group, round6(plan.PlanningTime.Seconds()), len(points)
	if in.DurationS > 0 {
		ik["timing"] = "move_group's, at velocity scaling " + fmt.Sprint(scale) + ": duration_s does not apply to a planned path"
	}
	out, err := p.previewTrajectory(ctx, c, s.arm, s.start, s.startMap, points, map[string]any{"ik": ik}, s.link())
	return out, true, err
}

// armPoints spreads a plan over the arm's joints, in the arm's order: a
// joint the plan leaves out holds where it starts. Velocities and
// accelerations come along only when the plan gives them for every point.
// MoveIt's first point is the start state at time 0 (the transport checked
// it is where the robot is); a goal starts from the robot's state anyway,
// and the bridge's trajectories hold only points after it, so it is left
// out: every later point is sent as planned.
func armPoints(s *poseStart, tr actuators.Trajectory) ([]spline.Point, error) {
	if len(tr.Points) > 0 && tr.Points[0].Time == 0 {
		tr.Points = tr.Points[1:]
	}
	if len(tr.Points) == 0 {
		return nil, fmt.Errorf("the plan holds no point after its start")
	}
	idx := make([]int, len(s.arm.Joints))
	for i, j := range s.arm.Joints {
		idx[i] = slices.Index(tr.Joints, j)
	}
	for _, j := range tr.Joints {
		if !slices.Contains(s.arm.Joints, j) {
			return nil, fmt.Errorf("the plan moves %s, which is not a joint of %s", j, s.arm.Name)
		}
	}
	all := func(get func(spline.Point) []float64) bool {
		for _, q := range tr.Points {
			if len(get(q)) != len(tr.Joints) {
				return false
			}
		}
		return true
	}
	withVel := all(func(q spline.Point) []float64 { return q.Velocities })
	withAcc := all(func(q spline.Point) []float64 { return q.Accelerations })
	out := make([]spline.Point, len(tr.Points))
	for k, q := range tr.Points {
		pt := spline.Point{Positions: make([]float64, len(idx)), Time: q.Time}
		if withVel {
			pt.Velocities = make([]float64, len(idx))
		}
		if withAcc {
			pt.Accelerations = make([]float64, len(idx))
		}
		for i, at := range idx {
			if at < 0 {
				pt.Positions[i] = s.start[i].Pos
				continue
			}
			pt.Positions[i] = q.Positions[at]
			if withVel {
				pt.Velocities[i] = q.Velocities[at]
			}
			if withAcc {
				pt.Accelerations[i] = q.Accelerations[at]
			}
		}
		out[k] = pt
	}
	return out, nil
}
