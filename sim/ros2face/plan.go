package ros2face

import (
	"context"
	"fmt"

	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/ros2/service"
	"github.com/actbridge/actbridge/sim"
)

// move_group's planning service, answered by the sim's own planner
// (sim.Robot.Plan) for the group sim.ArmGroup.
const (
	ServicePlan       = "/plan_kinematic_path"
	typeGetMotionPlan = "moveit_msgs/srv/GetMotionPlan"
	typeErrorCodes    = "moveit_msgs/msg/MoveItErrorCodes"
	// sphere is shape_msgs/SolidPrimitive's SPHERE; dimensions[0] is its radius.
	sphere = 2
	// maxGoalSets bounds the goal constraint sets one request is planned for.
	maxGoalSets = 16
)

// servePlanner starts /plan_kinematic_path on the move_group node.
func (f *face) servePlanner() error {
	n, err := f.node("move_group")
	if err != nil {
		return err
	}
	types, err := service.ResolveTypes(f.set, typeGetMotionPlan)
	if err != nil {
		return err
	}
	codes := map[string]int32{}
	if d := f.set.Definition(typeErrorCodes); d != nil {
		for _, k := range d.Constants {
			if v, ok := k.Value.(int32); ok {
				codes[k.Name] = v
			}
		}
	}
	p := planService{r: f.r, types: types, codes: codes}
	full, err := resolve(n, ServicePlan)
	if err != nil {
		return err
	}
	srv, err := service.NewServer(f.ctx.Participant(), types, full, p.answer, service.Options{Endpoints: n.Announce})
	if err != nil {
		return fmt.Errorf("%s: %w", ServicePlan, err)
	}
	f.servers = append(f.servers, srv)
	return nil
}

type planService struct {
	r     *sim.Robot
	types service.Types
	codes map[string]int32 // MoveItErrorCodes' constants, the distro's values
}

// answer plans for each goal constraint set in turn until one succeeds,
// as move_group does, and answers with the last refusal otherwise.
func (p planService) answer(_ context.Context, req *cdr.Message) (*cdr.Message, error) {
	mpr, _ := req.Get("motion_plan_request").(*cdr.Message)
	rep := cdr.Zero(p.types.Response)
	res := sim.PlanResult{Code: sim.PlanInvalidGoal, Message: "no goal constraints"}
	var pr sim.PlanRequest
	if mpr == nil {
		res.Message = "no motion_plan_request"
	} else {
		pr = planRequest(mpr)
		goals, _ := mpr.Get("goal_constraints").([]*cdr.Message)
		if len(goals) > maxGoalSets {
			res.Message = fmt.Sprintf("%d goal constraint sets, the sim plans for at most %d", len(goals), maxGoalSets)
			goals = nil
		}
		for _, g := range goals {
			req := pr
			if res = goalOf(g, &req); res.Code != "" {
				continue
			}
			if res = p.r.Plan(req); res.Code == sim.PlanSuccess {
				break
			}
		}
	}
	fl := fields{m: rep}
	out := "motion_plan_response."
	fl.set(out+"group_name", pr.Group)
	code, ok := p.codes[res.Code]
	if !ok {
		code = p.codes["FAILURE"]
		res.Message = res.Code + ": " + res.Message
	}
	fl.set(out+"error_code.val", code)
	if get(rep, out+"error_code.message") != nil { // Jazzy and later
		fl.set(out+"error_code.message", res.Message)
		fl.set(out+"error_code.source", "simrobot")
	}
	fl.set(out+"planning_time", res.PlanningTime.Seconds())
	if res.Code == sim.PlanSuccess {
		jointTrajectory(&fl, out+"trajectory.joint_trajectory", res.Trajectory)
		fl.set(out+"trajectory.joint_trajectory.header.frame_id", sim.BaseFrame)
		start := res.Trajectory.Points[0].Positions
		fl.set(out+"trajectory_start.joint_state.name", res.Trajectory.JointNames)
		fl.set(out+"trajectory_start.joint_state.position", start)
	}
	return rep, fl.err
}

// planRequest reads what every goal of a request shares.
func planRequest(m *cdr.Message) sim.PlanRequest {
	pr := sim.PlanRequest{Group: str(m.Get("group_name")), VelocityScaling: num(m.Get("max_velocity_scaling_factor")),
		Start: map[string]float64{}}
	names, _ := get(m, "start_state.joint_state.name").([]string)
	pos, _ := get(m, "start_state.joint_state.position").([]float64)
	for i, n := range names {
		if i < len(pos) {
			pr.Start[n] = pos[i]
		}
	}
	return pr
}

// goalOf reads one moveit_msgs/Constraints into req: joint constraints,
// or one position constraint (a sphere) with at most one orientation
// constraint on the same link and frame. Anything else is refused.
func goalOf(g *cdr.Message, req *sim.PlanRequest) sim.PlanResult {
	bad := func(format string, args ...any) sim.PlanResult {
		return sim.PlanResult{Code: sim.PlanInvalidGoal, Message: fmt.Sprintf(format, args...)}
	}
	joints, _ := g.Get("joint_constraints").([]*cdr.Message)
	pos, _ := g.Get("position_constraints").([]*cdr.Message)
	ori, _ := g.Get("orientation_constraints").([]*cdr.Message)
	if vis, _ := g.Get("visibility_constraints").([]*cdr.Message); len(vis) > 0 {
		return bad("the sim plans no visibility constraints")
	}
	switch {
	case len(joints) > 0 && len(pos)+len(ori) > 0:
		return bad("joint constraints with pose constraints: the sim plans one kind of goal")
	case len(joints) > 0:
		for _, j := range joints {
			req.Joints = append(req.Joints, sim.JointGoal{Name: str(j.Get("joint_name")), Position: num(j.Get("position"))})
		}
		return sim.PlanResult{}
	case len(pos) != 1 || len(ori) > 1:
		return bad("a pose goal is one position constraint and at most one orientation constraint, got %d and %d", len(pos), len(ori))
	}
	pc := pos[0]
	prims, _ := get(pc, "constraint_region.primitives").([]*cdr.Message)
	poses, _ := get(pc, "constraint_region.primitive_poses").([]*cdr.Message)
	if len(prims) != 1 || len(poses) != 1 {
		return bad("the position constraint's region must be one primitive with its pose")
	}
	dims, _ := prims[0].Get("dimensions").([]float64)
	if t, _ := prims[0].Get("type").(uint8); t != sphere || len(dims) < 1 {
		return bad("the position constraint's region must be a SPHERE with its radius")
	}
	pg := &sim.PoseGoal{Link: str(pc.Get("link_name")), Frame: str(get(pc, "header.frame_id")), Radius: dims[0],
		Position: sim.Point3{X: num(get(poses[0], "position.x")), Y: num(get(poses[0], "position.y")), Z: num(get(poses[0], "position.z"))}}
	if len(ori) == 1 {
		oc := ori[0]
		if str(oc.Get("link_name")) != pg.Link || str(get(oc, "header.frame_id")) != pg.Frame {
			return bad("the orientation constraint must name the position constraint's link and frame")
		}
		pg.Orientation = &sim.Quaternion{X: num(get(oc, "orientation.x")), Y: num(get(oc, "orientation.y")),
			Z: num(get(oc, "orientation.z")), W: num(get(oc, "orientation.w"))}
		pg.AxisTolerance = [3]float64{num(oc.Get("absolute_x_axis_tolerance")), num(oc.Get("absolute_y_axis_tolerance")),
			num(oc.Get("absolute_z_axis_tolerance"))}
	}
	req.Pose = pg
	return sim.PlanResult{}
}

// jointTrajectory sets a trajectory_msgs/JointTrajectory at path.
func jointTrajectory(fl *fields, path string, tr sim.Trajectory) {
	jt, _ := get(fl.m, path).(*cdr.Message)
	if jt == nil {
		fl.err = fmt.Errorf("%w: %s has no %s", ErrMessage, fl.m.Type.Name(), path)
		return
	}
	pts := cdr.MakeSlice(jt.Type.Field(jt.Type.FieldIndex("points")).Type, len(tr.Points)).([]*cdr.Message)
	for i, p := range tr.Points {
		pf := fields{m: pts[i]}
		point(&pf, "", p)
		if pf.err != nil {
			fl.err = pf.err
			return
		}
	}
	fl.set(path+".joint_names", tr.JointNames)
	fl.set(path+".points", pts)
}
