package ros2

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/ros2/graph"
	"github.com/actbridge/actbridge/spline"
)

// GetMotionPlan is the service type move_group serves as
// /plan_kinematic_path.
const GetMotionPlan = "moveit_msgs/srv/GetMotionPlan"

const (
	// moveitSuccess is MoveItErrorCodes.SUCCESS.
	moveitSuccess = 1
	// defaultPlanTime is how long move_group may plan when the request
	// says nothing; the call waits that long and a little more.
	defaultPlanTime = 5 * time.Second
	planReplyMargin = 5 * time.Second
	// jointGoalTolerance is each joint's tolerance in a joint goal, rad
	// or m: the trajectory ends where it was asked to.
	jointGoalTolerance = 1e-4
	// maxPlanPoints bounds the trajectory accepted from a planner.
	maxPlanPoints = 100_000
)

// Plan asks the one server of req.Service (req.Node's when named) for a
// plan: ErrNoPlanner when there is none, ErrAmbiguousServer when there
// are several, a *PlanError when MoveIt refuses, and the trajectory,
// checked for shape (names, lengths, finite values, increasing times, a
// single-DOF plan), when it answers.
func (r *Robot) Plan(ctx context.Context, req actuators.PlanRequest) (actuators.Plan, error) {
	cat, err := r.access.types(r.Distro())
	if err != nil {
		return actuators.Plan{}, err
	}
	types, ok := cat.types[GetMotionPlan]
	if !ok {
		return actuators.Plan{}, fmt.Errorf("%w: %s is not in %s's set", actuators.ErrUnsupportedType, GetMotionPlan, r.Distro())
	}
	body, err := planRequestJSON(req)
	if err != nil {
		return actuators.Plan{}, err
	}
	msg, err := cdr.FromJSON(types.Request, body)
	if err != nil {
		return actuators.Plan{}, fmt.Errorf("%w: %v", actuators.ErrInvalidArgument, err)
	}
	planTime := req.Time
	if planTime <= 0 {
		planTime = defaultPlanTime
	}
	timeout := planTime + planReplyMargin
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	g := r.rctx.Graph()
	srv := slices.IndexFunc(g.Services, func(s graph.Service) bool { return s.Name == req.Service && len(s.Servers) > 0 })
	if srv < 0 {
		return actuators.Plan{}, fmt.Errorf("%w: %s has no server on the graph", actuators.ErrNoPlanner, req.Service)
	}
	s := g.Services[srv]
	if !slices.Contains(s.Types, GetMotionPlan) || len(s.Types) != 1 {
		return actuators.Plan{}, fmt.Errorf("%w: %s is served as %v, not %s", actuators.ErrNoPlanner, req.Service, s.Types, GetMotionPlan)
	}
	server, found, err := pick("servers of "+req.Service, sources(s.Servers), req.Node)
	if err != nil {
		return actuators.Plan{}, err
	}
	if !found {
		return actuators.Plan{}, fmt.Errorf("%w: no server of %s is node %s", actuators.ErrNoPlanner, req.Service, req.Node)
	}
	rep, err := r.exchange(ctx, req.Service, server, types, msg, timeout)
	if err != nil {
		return actuators.Plan{}, err
	}
	p, err := planFrom(rep, cat.moveitCodes)
	if err == nil {
		err = planFits(p.Trajectory, req)
	}
	if err != nil {
		return actuators.Plan{}, fmt.Errorf("%s: %w", req.Service, err)
	}
	for _, src := range sources(s.Servers) {
		if src.participant == server {
			p.Source = src.String()
		}
	}
	return p, nil
}

// planRequestJSON is req as a GetMotionPlan request in the JSON form
// cdr.FromJSON reads; fields left out are zero, as MoveIt expects of
// what a request does not use.
func planRequestJSON(req actuators.PlanRequest) ([]byte, error) {
	bad := func(format string, args ...any) ([]byte, error) {
		return nil, fmt.Errorf("%w: plan request: "+format, append([]any{actuators.ErrInvalidArgument}, args...)...)
	}
	if req.Group == "" || req.Service == "" {
		return bad("a planning group and a service are needed")
	}
	type obj = map[string]any
	var goal obj
	switch {
	case req.Pose != nil && len(req.Joints) > 0:
		return bad("a joint goal or a pose goal, not both")
	case req.Pose != nil:
		p := req.Pose
		if p.Link == "" || p.Frame == "" || !(p.PositionTolerance > 0) {
			return bad("a pose goal needs a link, a frame and a position tolerance > 0")
		}
		goal = obj{"name": "pose", "position_constraints": []obj{{
			"header":    obj{"frame_id": p.Frame},
			"link_name": p.Link,
			"constraint_region": obj{
				"primitives":      []obj{{"type": 2, "dimensions": []float64{p.PositionTolerance}}}, // SPHERE, radius
				"primitive_poses": []obj{{"position": xyz(p.Position), "orientation": obj{"w": 1.0}}},
			},
			"weight": 1.0,
		}}}
		if p.Orientation != [4]float64{} {
			if !(p.AngleTolerance > 0) {
				return bad("an orientation goal needs an angle tolerance > 0")
			}
			q := p.Orientation
			goal["orientation_constraints"] = []obj{{
				"header":                    obj{"frame_id": p.Frame},
				"orientation":               obj{"x": q[0], "y": q[1], "z": q[2], "w": q[3]},
				"link_name":                 p.Link,
				"absolute_x_axis_tolerance": p.AngleTolerance,
				"absolute_y_axis_tolerance": p.AngleTolerance,
				"absolute_z_axis_tolerance": p.AngleTolerance,
				"weight":                    1.0,
			}}
		}
	case len(req.Joints) > 0 && len(req.Joints) == len(req.Goal):
		var jc []obj
		for i, j := range req.Joints {
			jc = append(jc, obj{"joint_name": j, "position": req.Goal[i], "tolerance_above": jointGoalTolerance, "tolerance_below": jointGoalTolerance, "weight": 1.0})
		}
		goal = obj{"name": "joints", "joint_constraints": jc}
	default:
		return bad("a goal: %d joints with %d positions, or a pose", len(req.Joints), len(req.Goal))
	}
	names, pos := []string{}, []float64{} // empty lists, not JSON null
	for _, j := range req.Start {
		names, pos = append(names, j.Name), append(pos, j.Position)
	}
	scale := func(s float64) float64 {
		if s <= 0 || s > 1 || math.IsNaN(s) {
			return actuators.DefaultScaling
		}
		return s
	}
	attempts := req.Attempts
	if attempts <= 0 {
		attempts = 1
	}
	planTime := req.Time
	if planTime <= 0 {
		planTime = defaultPlanTime
	}
	mpr := obj{
		"start_state":                     obj{"joint_state": obj{"name": names, "position": pos}},
		"goal_constraints":                []obj{goal},
		"pipeline_id":                     req.Pipeline,
		"planner_id":                      req.PlannerID,
		"group_name":                      req.Group,
		"num_planning_attempts":           attempts,
		"allowed_planning_time":           planTime.Seconds(),
		"max_velocity_scaling_factor":     scale(req.VelocityScaling),
		"max_acceleration_scaling_factor": scale(req.AccelerationScaling),
	}
	return json.Marshal(obj{"motion_plan_request": mpr})
}

func xyz(p [3]float64) map[string]any { return map[string]any{"x": p[0], "y": p[1], "z": p[2]} }

// startTolerance is how far (rad or m) a plan's first point may lie from
// the start state the request gave.
const startTolerance = 1e-3

// planFits checks a plan against its request: it moves only joints of the
// start state, every joint of a joint goal, and starts where the request
// said the robot is. It is still only a candidate: the bridge's own
// limits and preview decide whether it may be sent.
func planFits(tr actuators.Trajectory, req actuators.PlanRequest) error {
	start := map[string]float64{}
	for _, j := range req.Start {
		start[j.Name] = j.Position
	}
	for _, j := range req.Joints {
		if !slices.Contains(tr.Joints, j) {
			return fmt.Errorf("the plan does not move goal joint %s", j)
		}
	}
	for i, j := range tr.Joints {
		at, ok := start[j]
		if !ok {
			return fmt.Errorf("the plan moves %s, which is not in the start state (another group?)", j)
		}
		if d := math.Abs(tr.Points[0].Positions[i] - at); d > startTolerance {
			return fmt.Errorf("the plan starts %s at %.4g, %.2g from where the robot is (%.4g)", j, tr.Points[0].Positions[i], d, at)
		}
	}
	return nil
}

// planFrom reads a GetMotionPlan response: MoveIt's refusal as a
// *PlanError, or the joint trajectory checked for shape.
func planFrom(rep *cdr.Message, names map[int32]string) (actuators.Plan, error) {
	res, _ := rep.Get("motion_plan_response").(*cdr.Message)
	if res == nil {
		return actuators.Plan{}, fmt.Errorf("the response has no motion_plan_response")
	}
	var code int32
	var message string
	if ec, _ := res.Get("error_code").(*cdr.Message); ec != nil {
		code, _ = ec.Get("val").(int32)
		message, _ = ec.Get("message").(string) // Jazzy and later
	}
	if code != moveitSuccess {
		name := names[code]
		if name == "" {
			name = "UNKNOWN"
		}
		return actuators.Plan{}, &actuators.PlanError{Code: code, Name: name, Message: message}
	}
	planning, _ := res.Get("planning_time").(float64)
	rt, _ := res.Get("trajectory").(*cdr.Message)
	if rt == nil {
		return actuators.Plan{}, fmt.Errorf("the response has no trajectory")
	}
	if md, _ := rt.Get("multi_dof_joint_trajectory").(*cdr.Message); md != nil {
		if pts, _ := md.Get("points").([]*cdr.Message); len(pts) > 0 {
			return actuators.Plan{}, fmt.Errorf("the plan moves multi-DOF joints, which an arm's FollowJointTrajectory cannot carry")
		}
	}
	jt, _ := rt.Get("joint_trajectory").(*cdr.Message)
	if jt == nil {
		return actuators.Plan{}, fmt.Errorf("the response has no joint trajectory")
	}
	joints, _ := jt.Get("joint_names").([]string)
	pts, _ := jt.Get("points").([]*cdr.Message)
	switch {
	case len(joints) == 0 || len(pts) == 0:
		return actuators.Plan{}, fmt.Errorf("the plan is empty: %d joints, %d points", len(joints), len(pts))
	case len(pts) > maxPlanPoints:
		return actuators.Plan{}, fmt.Errorf("the plan has %d points, at most %d", len(pts), maxPlanPoints)
	}
	seen := map[string]bool{}
	for _, j := range joints {
		if j == "" || seen[j] {
			return actuators.Plan{}, fmt.Errorf("the plan names joint %q twice or empty", j)
		}
		seen[j] = true
	}
	out := make([]spline.Point, len(pts))
	prev := math.Inf(-1)
	for i, p := range pts {
		pos, _ := p.Get("positions").([]float64)
		vel, _ := p.Get("velocities").([]float64)
		acc, _ := p.Get("accelerations").([]float64)
		for name, xs := range map[string][]float64{"positions": pos, "velocities": vel, "accelerations": acc} {
			if len(xs) != len(joints) && (name == "positions" || len(xs) != 0) {
				return actuators.Plan{}, fmt.Errorf("point %d: %d %s for %d joints", i, len(xs), name, len(joints))
			}
			for _, x := range xs {
				if math.IsNaN(x) || math.IsInf(x, 0) {
					return actuators.Plan{}, fmt.Errorf("point %d: %s holds %v", i, name, x)
				}
			}
		}
		t := durationOf(p.Get("time_from_start"))
		if !(t > prev) || t < 0 {
			return actuators.Plan{}, fmt.Errorf("point %d: time %g s is not after the previous point's %g s", i, t, prev)
		}
		prev = t
		out[i] = spline.Point{Positions: pos, Velocities: vel, Accelerations: acc, Time: t}
	}
	return actuators.Plan{
		Trajectory:   actuators.Trajectory{Joints: joints, Points: out},
		PlanningTime: time.Duration(planning * float64(time.Second)),
	}, nil
}
