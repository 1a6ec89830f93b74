package bridge

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/spline"
)

// ArmModel is the arm as the tools know it.
type ArmModel struct {
	Name   string
	Joints []string
	Guard  ArmGuard
	// Planning, when set, asks MoveIt's move_group for pose goals' joint
	// paths (armplan.go).
	Planning *ArmPlanning
	// Frames places a pose given in another frame than the arm's base
	// link (arm_move_pose), from the robot's /tf; nil: the base link only.
	Frames actuators.Frames
	// TFMaxAge is how old that transform may be (0: DefaultTFMaxAge),
	// the robot's one tf_max_age.
	TFMaxAge time.Duration
}

// armJoints lists every arm's joints, arm by arm: joint names are unique
// across actuators, so one schema holds each joint's own range.
func (p *Previewer) armJoints() []string {
	var out []string
	for _, a := range p.Arms {
		out = append(out, a.Joints...)
	}
	return out
}

// ArmMoveJoints previews a point-to-point joint move.
func (p *Previewer) ArmMoveJoints() *Tool {
	props := map[string]*Schema{}
	for _, a := range p.Arms {
		for _, j := range a.Joints {
			lo, hi, limited, _ := a.Guard.Range(j)
			if !limited {
				lo, hi = -100, 100
			}
			props[j] = Num(fmt.Sprintf("Target of %s in rad (or m for prismatic).", j), round6(lo), round6(hi))
		}
	}
	positions := "Joint name → target position. Only these joints move."
	if len(p.Arms) > 1 {
		positions = "Joint name → target position, joints of the named actuator only. Only these joints move."
	}
	t := &Tool{
		Name: "arm_move_joints", Group: "arm", Tier: TierIrreversible, Title: "Preview an arm joint move", TouchesRobot: true,
		Description: Describe("Previews moving arm joints to target positions (a subset is allowed: unnamed joints hold). Computes the trajectory from the current state and checks position, velocity and acceleration limits. Nothing moves: run it with motion_confirm(preview_id).",
			"you want the arm at given joint positions.",
			"Cartesian goals; multi-waypoint paths (use arm_follow_trajectory); the gripper (gripper_move).",
			"none until confirmed; the confirmed motion moves the arm (irreversible).",
			"a preview: preview_id, per joint {joint, from, to, delta, peak_velocity, limit, percent_of_limit}, duration_s, impact, warnings, expires_at, and tool_path {link, frame, start, end, distance_m, lowest, highest, peak_speed} (about 2 KB). Refused with limit_violation (details.violations) if any limit would be broken, the arm's workspace included (a link outside the workspace box or inside a forbidden box, the tool over its speed cap: {link, kind, zone, axis, point, time_s, value, limit}). "+recoveryNote),
		Input: Object("", map[string]*Schema{
			"positions":      {Type: "object", Description: positions, Properties: props, MinLength: nil},
			"duration_s":     Num("Duration of the move in seconds. Default: the shortest that respects velocity and acceleration limits at the current speed scale (at the recovery speed fraction when a joint starts out of range).", 0.1, 120),
			"speed_fraction": Num("Fraction of the allowed speed when duration_s is not given. Default 1.", 0.05, 1),
		}, "positions"),
		Output: previewOut(map[string]*Schema{"joints": {Type: "array", Description: "Per joint impact."}, "targets": {Type: "object", Description: "Final position of every arm joint."}, "tool_path": toolPathSchema}),
		Errors: previewErrors,
		Ready:  p.motionReady,
		Call:   p.armMoveJoints,
	}
	return chooseActuator(t, "arm", namesOf(p.Arms))
}

func (p *Previewer) armMoveJoints(ctx context.Context, c *Call) (any, error) {
	var in struct {
		Positions     map[string]float64 `json:"positions"`
		DurationS     float64            `json:"duration_s"`
		SpeedFraction float64            `json:"speed_fraction"`
	}
	if err := c.Decode(&in); err != nil {
		return nil, err
	}
	arm, aerr := pick(c, p.Arms)
	if aerr != nil {
		return nil, aerr
	}
	if len(in.Positions) == 0 {
		e := FieldError("positions", "at least one joint: "+strings.Join(arm.Joints, ", "), "empty object", "no joint to move")
		return nil, e
	}
	for _, j := range sortedKeys(in.Positions) {
		if !slices.Contains(arm.Joints, j) {
			return nil, notOwnJoint("positions."+j, j, arm.Name, arm.Joints)
		}
	}
	start, startMap, jerr := p.armStart(ctx, arm)
	if jerr != nil {
		return nil, jerr
	}
	to := make([]float64, len(arm.Joints))
	for i, j := range arm.Joints {
		to[i] = start[i].Pos
		if t, ok := in.Positions[j]; ok {
			to[i] = t
		}
	}
	return p.previewPointToPoint(ctx, c, arm, start, startMap, to, in.DurationS, in.SpeedFraction, nil, nil)
}

// armStart is the arm's state a preview starts from: per joint in the
// arm's order, and the positions by name (the preview's start state).
func (p *Previewer) armStart(ctx context.Context, arm *ArmModel) ([]spline.State, map[string]float64, *Error) {
	cur, jerr := p.joints(ctx)
	if jerr != nil {
		return nil, nil, jerr
	}
	start := make([]spline.State, len(arm.Joints))
	startMap := map[string]float64{}
	for i, j := range arm.Joints {
		r, ok := cur[j]
		if !ok {
			return nil, nil, missingJoint(j)
		}
		start[i] = spline.State{Pos: r.Position, Vel: r.Velocity}
		startMap[j] = r.Position
	}
	return start, startMap, nil
}

// previewPointToPoint previews a move from start to the positions to (arm
// order) that takes duration seconds, or when that is 0 the shortest
// duration the limits allow at speedFraction (0: 1) of the speed scale.
func (p *Previewer) previewPointToPoint(ctx context.Context, c *Call, arm *ArmModel, start []spline.State, startMap map[string]float64, to []float64, duration, speedFraction float64, extra map[string]any, link *frameLink) (any, error) {
	if speedFraction == 0 {
		speedFraction = 1
	}
	if duration == 0 {
		from := make([]float64, len(start))
		for i, s := range start {
			from[i] = s.Pos
		}
		duration = arm.Guard.MinDuration(arm.Joints, from, to, speedFraction*p.SpeedScale())
	}
	pt := spline.Point{Positions: to, Velocities: make([]float64, len(to)), Accelerations: make([]float64, len(to)), Time: duration}
	return p.previewTrajectory(ctx, c, arm, start, startMap, []spline.Point{pt}, extra, link)
}

func missingJoint(j string) *Error {
	return StateError(CodeUnavailable, "joint "+j+" missing from /joint_states", "when the robot reports every arm joint", "incomplete robot state")
}

// previewTrajectory checks points from start and issues the preview;
// extra adds to the preview's summary (the pose tools' IK result), and
// link, for a pose given in a frame TF places, is kept for confirm.
func (p *Previewer) previewTrajectory(ctx context.Context, c *Call, arm *ArmModel, start []spline.State, startMap map[string]float64, points []spline.Point, extra map[string]any, link *frameLink) (any, error) {
	chk, err := arm.Guard.Check(arm.Joints, start, points)
	if err != nil {
		return nil, AsError(err)
	}
	chk.Violations = append(chk.Violations, p.StepCaps.armSteps(arm.Joints, start, points)...)
	if len(chk.Violations) > 0 {
		if len(chk.Recovery) > 0 {
			return nil, recoveryError(chk.Recovery, chk.Violations, armRecoveryHint)
		}
		return nil, violationError(c.Tool.Name, chk.Violations)
	}
	moved := 0
	var impacts []JointImpact
	targets := map[string]float64{}
	for _, ji := range chk.Joints {
		targets[ji.Joint] = round6(ji.To)
		if math.Abs(ji.Delta) > 1e-6 {
			moved++
		}
		ji.From, ji.To, ji.Delta = round6(ji.From), round6(ji.To), round6(ji.Delta)
		ji.PeakVelocity, ji.PercentOfLimit = round6(ji.PeakVelocity), math.Round(ji.PercentOfLimit*10)/10
		impacts = append(impacts, ji)
	}
	warnings := append([]string{}, chk.Warnings...)
	if p.LongDuration > 0 && chk.Duration > p.LongDuration {
		warnings = append(warnings, fmt.Sprintf("long motion: %.1f s", chk.Duration))
	}
	g := previewGoal{Goal: actuators.Trajectory{Joints: arm.Joints, Points: points}, Start: startMap, FrameLink: link}
	summary := map[string]any{
		"joints": impacts, "targets": targets, "duration_s": round6(chk.Duration), "warnings": warnings,
		"impact": map[string]any{"joints_moved": moved, "actuators_touched": []string{arm.Name}},
		"plot":   chk.Plot,
		// for the console only, as the plot
		"limit_use": chk.Use,
	}
	if len(chk.Recovery) > 0 {
		summary["recovery"], summary["out_of_range"] = true, chk.Recovery
	}
	if chk.Tool != nil {
		summary["tool_path"] = chk.Tool
	}
	if chk.ToolPlot != nil {
		summary["tool_plot"] = chk.ToolPlot // for the console only, as the plot
	}
	for k, v := range extra {
		summary[k] = v
	}
	return p.issue(ctx, c, arm.Name, g, summary)
}

// ArmFollowTrajectory previews a multi-waypoint joint trajectory.
func (p *Previewer) ArmFollowTrajectory() *Tool {
	jointsDesc := "Joint names, in the order of every point's values; must be all arm joints or a subset."
	if len(p.Arms) > 1 {
		jointsDesc = "Joint names, in the order of every point's values; must be all joints of the named actuator or a subset."
	}
	t := &Tool{
		Name: "arm_follow_trajectory", Group: "arm", Tier: TierIrreversible, Title: "Preview an arm trajectory", TouchesRobot: true,
		Description: Describe("Previews a joint trajectory through timed waypoints, interpolated as joint_trajectory_controller does (cubic with velocities, quintic with accelerations, linear with positions only), and checks every limit along it. Nothing moves: run it with motion_confirm(preview_id).",
			"you need the arm to pass through several configurations with timing.",
			"a single target (arm_move_joints is simpler and picks a safe duration).",
			"none until confirmed; the confirmed motion moves the arm (irreversible).",
			"a preview as for arm_move_joints, tool_path included (about 2 KB whatever the number of points); refused with limit_violation listing every violation (joint, time, value, limit; for the workspace link, point, time and limit). "+recoveryNote),
		Input: Object("", map[string]*Schema{
			"joints": {Type: "array", Description: jointsDesc, MinItems: Int(1), MaxItems: Int(16), Items: Enum("An arm joint.", p.armJoints()...)},
			"points": {Type: "array", Description: "Waypoints in increasing time.", MinItems: Int(1), MaxItems: Int(1000), Items: Object("A waypoint.", map[string]*Schema{
				"positions":       Array("Position per joint, in the order of joints.", Num("rad or m.", -100, 100), 16),
				"velocities":      Array("Velocity per joint. Default: none (then interpolation is linear).", Num("rad/s or m/s.", -100, 100), 16),
				"accelerations":   Array("Acceleration per joint. Default: none.", Num("rad/s² or m/s².", -1000, 1000), 16),
				"time_from_start": Num("Seconds from the start of the motion.", 0.001, 600),
			}, "positions", "time_from_start")},
		}, "joints", "points"),
		Output: previewOut(map[string]*Schema{"joints": {Type: "array", Description: "Per joint impact."}, "tool_path": toolPathSchema}),
		Errors: previewErrors,
		Ready:  p.motionReady,
		Call:   p.armFollowTrajectory,
	}
	return chooseActuator(t, "arm", namesOf(p.Arms))
}

func (p *Previewer) armFollowTrajectory(ctx context.Context, c *Call) (any, error) {
	in, derr := trajectoryInputOf(c.Values)
	if derr != nil {
		return nil, derr
	}
	arm, aerr := pick(c, p.Arms)
	if aerr != nil {
		return nil, aerr
	}
	idx := map[string]int{}
	for i, j := range in.Joints {
		if _, dup := idx[j]; dup {
			e := RuleError(CodeInvalidArgument, "joints_unique", "joints", "joint "+j+" is listed twice")
			e.Expected, e.Actual = "each joint at most once", quote(j)
			return nil, e
		}
		if !slices.Contains(arm.Joints, j) {
			return nil, notOwnJoint("joints["+strconv.Itoa(i)+"]", j, arm.Name, arm.Joints)
		}
		idx[j] = i
	}
	start, startMap, jerr := p.armStart(ctx, arm)
	if jerr != nil {
		return nil, jerr
	}
	n := len(arm.Joints)
	points := make([]spline.Point, len(in.Points))
	prevT := 0.0
	for k, ip := range in.Points {
		f := "points[" + strconv.Itoa(k) + "]"
		for i, arr := range [...][]float64{ip.Positions, ip.Velocities, ip.Accelerations} {
			if arr != nil && len(arr) != len(in.Joints) {
				return nil, FieldError(f+"."+waypointArrays[i], fmt.Sprintf("%d values (one per joint)", len(in.Joints)), fmt.Sprintf("%d values", len(arr)), "length does not match joints")
			}
		}
		if ip.Time <= prevT {
			return nil, FieldError(f+".time_from_start", fmt.Sprintf("greater than %g", prevT), strconv.FormatFloat(ip.Time, 'g', -1, 64), "times must strictly increase")
		}
		prevT = ip.Time
		pt := spline.Point{Positions: make([]float64, n), Time: ip.Time}
		if ip.Velocities != nil {
			pt.Velocities = make([]float64, n)
		}
		if ip.Accelerations != nil {
			pt.Accelerations = make([]float64, n)
		}
		for i, j := range arm.Joints {
			if src, ok := idx[j]; ok {
				pt.Positions[i] = ip.Positions[src]
				if ip.Velocities != nil {
					pt.Velocities[i] = ip.Velocities[src]
				}
				if ip.Accelerations != nil {
					pt.Accelerations[i] = ip.Accelerations[src]
				}
			} else {
				pt.Positions[i] = start[i].Pos // unnamed joints hold
			}
		}
		points[k] = pt
	}
	return p.previewTrajectory(ctx, c, arm, start, startMap, points, nil, nil)
}
