package bridge

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/inflight"
	"github.com/actbridge/actbridge/safety"
	"github.com/actbridge/actbridge/spline"
)

// ArmModel is the arm as the tools know it.
type ArmModel struct {
	Name   string
	Joints []string
	Guard  ArmGuard
}

// GripperModel is the gripper as the tools know it.
type GripperModel struct {
	Name               string
	Joint              string
	Min, Max           float64 // finger position range
	MaxEffort, SpeedMS float64
}

// BaseModel is the base as the tools know it.
type BaseModel struct {
	Name      string
	Frame     string
	MaxDriveS float64
	Guard     BaseGuard
}

// Previewer builds previews: it reads the robot, computes what would move
// and checks every limit; violations refuse the preview; otherwise the
// preview is stored and a signed preview_id returned. Nothing moves.
// Each kind holds any number of actuators, in config order: a kind with
// none has no tools (Tools), one with several names its actuator in an
// argument (choice.go).
type Previewer struct {
	Robot      actuators.Robot
	Store      MotionStore
	Signer     PreviewSigner
	Motions    *Motions
	Arms       []*ArmModel
	Grippers   []*GripperModel
	Bases      []*BaseModel
	TTL        time.Duration
	StaleAfter time.Duration
	SpeedScale func() float64
	Now        func() time.Time
	// LargeMotion and LongDuration trigger warnings.
	LargeMotion  float64
	LongDuration float64
	// StepCaps refuse motions that change too much at once (previews_stepcap.go).
	StepCaps StepCaps
}

// joints reads the robot's joint states by the freshness rule
// (freshJoints).
func (p *Previewer) joints(ctx context.Context) (map[string]actuators.JointReading, *Error) {
	return freshJoints(ctx, p.Robot, p.Now, p.StaleAfter)
}

// stateDigest hashes the start state the preview depends on.
func stateDigest(start map[string]float64) string {
	h := sha256.New()
	for _, k := range sortedKeys(start) {
		fmt.Fprintf(h, "%s=%.4f;", k, start[k])
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// issue stores the preview and returns the planner-facing result, which
// names the tool as the preview's.
func (p *Previewer) issue(ctx context.Context, c *Call, actuator string, goal previewGoal, summary map[string]any) (Result, error) {
	out, err := p.store(ctx, c, actuator, goal, summary)
	if err != nil {
		return Result{}, err
	}
	return Result{Value: out, PreviewOf: c.Tool.Name}, nil
}

func (p *Previewer) store(ctx context.Context, c *Call, actuator string, goal previewGoal, summary map[string]any) (map[string]any, error) {
	if e := p.Motions.unambiguous(actuator); e != nil {
		return nil, e
	}
	goal.Start = roundMap(goal.Start)
	gb, err := json.Marshal(goal)
	if err != nil {
		return nil, Errf(CodeInternal, "goal not encodable: %v", err)
	}
	now := p.Now()
	b := previewBinding{Actuator: actuator, Tool: c.Tool.Name, ArgsDigest: Digest(c.Args), StateDigest: stateDigest(goal.Start),
		Expires: now.Add(p.TTL).Truncate(time.Second).Add(time.Second)}
	id := p.Signer.Sign(&b)
	if len(id) > maxPreviewID {
		return nil, FieldError("(arguments)", fmt.Sprintf("a preview id of at most %d bytes", maxPreviewID),
			fmt.Sprintf("%d bytes, for actuator %s", len(id), clipRunes(actuator, 80)), "the actuator's name is too long to preview")
	}
	requires := p.Motions.Confirmer(actuator)
	if rec, _ := summary["recovery"].(bool); rec {
		requires = RoleOperator // a way out of a limit is the operator's call, whatever the policy
	}
	summary["preview_id"] = id
	summary["tool"] = c.Tool.Name
	summary["actuator"] = actuator
	summary["state_digest"] = b.StateDigest
	summary["expires_at"] = b.Expires.UTC().Format(time.RFC3339)
	summary["confirm_with"] = "motion_confirm"
	summary["confirmed_by"] = string(requires)
	if w, ok := summary["warnings"].([]string); !ok || w == nil {
		summary["warnings"] = []string{}
	}
	sb, _ := json.Marshal(summary)
	if err := p.Store.PutPreview(ctx, inflight.Preview{ID: b.ID, Tool: c.Tool.Name, Actuator: actuator,
		ArgsDigest: b.ArgsDigest, Args: c.Args, Goal: gb, StateDigest: b.StateDigest, Summary: sb,
		Role: string(requires), CreatedAt: now, ExpiresAt: b.Expires}); err != nil {
		return nil, storeUnavailable(err)
	}
	delete(summary, "plot")
	delete(summary, "limit_use")
	delete(summary, "tool_plot")
	return summary, nil
}

func roundMap(m map[string]float64) map[string]float64 {
	out := make(map[string]float64, len(m))
	for k, v := range m {
		out[k] = round6(v)
	}
	return out
}

func round6(f float64) float64 { return math.Round(f*1e6) / 1e6 }

// violationJSON is a violation as a refusal's details show it to the
// planner: its time as time_s, and a point only for a link.
type violationJSON struct {
	Joint string      `json:"joint,omitempty"`
	Link  string      `json:"link,omitempty"`
	Kind  string      `json:"kind"` // position, velocity, acceleration, effort, geofence, speed_cap, step_cap, workspace, forbidden_zone, tool_speed
	Zone  string      `json:"zone,omitempty"`
	Axis  string      `json:"axis,omitempty"`
	Point *[3]float64 `json:"point,omitempty"`
	TimeS float64     `json:"time_s"`
	Value float64     `json:"value"`
	Limit float64     `json:"limit"`
}

func violationsJSON(vs []safety.Violation) []violationJSON {
	out := make([]violationJSON, len(vs))
	for i, v := range vs {
		out[i] = violationJSON{Joint: v.Joint, Link: v.Link, Kind: string(v.Kind), Zone: v.Zone, Axis: v.Axis, TimeS: v.Time, Value: v.Value, Limit: v.Limit}
		if v.Link != "" {
			p := v.Point
			out[i].Point = &p
		}
	}
	return out
}

func violationError(tool string, vs []safety.Violation) *Error {
	parts := make([]string, 0, 3)
	for i, v := range vs {
		if i == 3 {
			parts = append(parts, fmt.Sprintf("and %d more", len(vs)-3))
			break
		}
		who := v.Joint
		if v.Link != "" {
			parts = append(parts, describeLink(v))
			continue
		}
		if who == "" {
			who = "base"
		}
		parts = append(parts, fmt.Sprintf("%s %s %.4g over limit %.4g at t=%.2fs", who, v.Kind, v.Value, v.Limit, v.Time))
	}
	e := RuleError(CodeLimitViolation, "within_limits", "", "motion would break limits: "+strings.Join(parts, "; ")+"; no preview issued, nothing moves")
	e.Retryable = false
	return e.WithDetails(map[string]any{"violations": violationsJSON(vs)}).WithHint("change the targets or make the motion slower (longer duration_s), then preview again")
}

// recoveryNote tells the planner the one way out of a joint limit.
const recoveryNote = "If a joint already stands outside its range, only a recovery is previewed: out-of-range joints move monotonically toward their range (checked along the interpolated motion), every other joint holds, no joint above the recovery speed fraction of its velocity limit; the preview says recovery: true and out_of_range [{joint, position, limit, by}], and an operator confirms it whatever the policy. Anything else is refused with limit_violation, rule recovery_only."

// recoveryError refuses a motion from out of range that is not a recovery:
// the rule is recovery_only, and the details name the joints out of range.
func recoveryError(out []safety.OutOfRange, vs []safety.Violation, hint string) *Error {
	e := violationError("", vs)
	names := make([]string, len(out))
	for i, o := range out {
		names[i] = fmt.Sprintf("%s at %.4g is %.4g past its limit %.4g", o.Joint, o.Position, o.By, o.Limit)
	}
	e.Rule = "recovery_only"
	e.Message = "out of range (" + strings.Join(names, "; ") + "): only a recovery motion is allowed; " + e.Message
	return e.WithDetails(map[string]any{"violations": violationsJSON(vs), "out_of_range": out}).WithHint(hint)
}

// Hints of a refused recovery: what the one way out looks like.
const (
	armRecoveryHint  = "move only the out-of-range joints, monotonically toward their range, hold every other joint, at no more than the recovery speed fraction of the velocity limits (arm_move_joints without duration_s picks it); an operator confirms"
	baseRecoveryHint = "use base_drive: turn in place, then drive straight toward the geofence, at no more than the recovery speed fraction of the caps, ending closer to it; an operator confirms"
)

func previewOut(extra map[string]*Schema) *Schema {
	props := map[string]*Schema{
		"preview_id":   {Type: "string", Description: "Pass to motion_confirm to run exactly this motion. Single use."},
		"tool":         {Type: "string", Description: "The tool that made the preview."},
		"actuator":     {Type: "string", Description: "arm, gripper or base."},
		"duration_s":   {Type: "number", Description: "Planned duration."},
		"warnings":     {Type: "array", Description: "Near-limit, large or long motion warnings."},
		"impact":       {Type: "object", Description: "joints_moved, actuators_touched."},
		"state_digest": {Type: "string", Description: "Digest of the robot state the preview was computed on."},
		"expires_at":   {Type: "string", Description: "RFC 3339 time after which confirm refuses the preview."},
		"confirmed_by": {Type: "string", Description: "Who must confirm: planner or operator."},
		"confirm_with": {Type: "string", Description: "Always motion_confirm."},
		"recovery":     {Type: "boolean", Description: "Present and true when the robot starts outside a limit and this motion is the way back: an operator confirms it, whatever the policy."},
		"out_of_range": {Type: "array", Description: "With recovery: [{joint, position, limit, by}], what stands outside which limit and by how much (for the base: joint is the axis x or y, limit that side of the geofence)."},
	}
	for k, v := range extra {
		props[k] = v
	}
	return &Schema{Type: "object", Open: true, Properties: props,
		Required: []string{"preview_id", "actuator", "duration_s", "warnings", "impact", "expires_at", "state_digest"}}
}

var previewErrors = []Code{CodeInvalidArgument, CodeLimitViolation, CodeNotFound, CodeEstopLatched, CodeUnavailable, CodeAmbiguousServer, CodeInternal}

func (p *Previewer) estopReady(context.Context, *Call) error {
	if latched, ev, reason := p.Motions.EStop(); latched {
		return StateError(CodeEstopLatched, fmt.Sprintf("e-stop latched (event %d: %s)", ev, reason),
			"an operator calls estop_reset for that event", "e-stop is latched: no motion can be previewed")
	}
	return nil
}

// motionReady is a motion preview's resource check: the e-stop, and a
// robot description that still matches the limits.
func (p *Previewer) motionReady(ctx context.Context, c *Call) error {
	if err := p.estopReady(ctx, c); err != nil {
		return err
	}
	if e := p.Motions.Description.Hold(); e != nil {
		return e
	}
	return nil
}

// Tools are the preview tools of the kinds the robot has: the arm tools
// with at least one arm, gripper_move with a gripper, the base tools with
// a base. A kind the robot lacks has no tool that could name it.
func (p *Previewer) Tools() []*Tool {
	var out []*Tool
	if len(p.Arms) > 0 {
		out = append(out, p.ArmMoveJoints(), p.ArmFollowTrajectory())
	}
	if len(p.Grippers) > 0 {
		out = append(out, p.GripperMove())
	}
	if len(p.Bases) > 0 {
		out = append(out, p.BaseNavigate(), p.BaseDrive())
	}
	return out
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
	cur, jerr := p.joints(ctx)
	if jerr != nil {
		return nil, jerr
	}
	from := make([]float64, len(arm.Joints))
	to := make([]float64, len(arm.Joints))
	start := make([]spline.State, len(arm.Joints))
	startMap := map[string]float64{}
	for i, j := range arm.Joints {
		r, ok := cur[j]
		if !ok {
			return nil, missingJoint(j)
		}
		from[i], to[i] = r.Position, r.Position
		start[i] = spline.State{Pos: r.Position, Vel: r.Velocity}
		startMap[j] = r.Position
		if t, ok := in.Positions[j]; ok {
			to[i] = t
		}
	}
	if in.SpeedFraction == 0 {
		in.SpeedFraction = 1
	}
	dur := in.DurationS
	if dur == 0 {
		dur = arm.Guard.MinDuration(arm.Joints, from, to, in.SpeedFraction*p.SpeedScale())
	}
	pt := spline.Point{Positions: to, Velocities: make([]float64, len(to)), Accelerations: make([]float64, len(to)), Time: dur}
	return p.previewTrajectory(ctx, c, arm, start, startMap, []spline.Point{pt})
}

func missingJoint(j string) *Error {
	return StateError(CodeUnavailable, "joint "+j+" missing from /joint_states", "when the robot reports every arm joint", "incomplete robot state")
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func (p *Previewer) previewTrajectory(ctx context.Context, c *Call, arm *ArmModel, start []spline.State, startMap map[string]float64, points []spline.Point) (any, error) {
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
	g := previewGoal{Goal: actuators.Trajectory{Joints: arm.Joints, Points: points}, Start: startMap}
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
	cur, jerr := p.joints(ctx)
	if jerr != nil {
		return nil, jerr
	}
	n := len(arm.Joints)
	start := make([]spline.State, n)
	startMap := map[string]float64{}
	for i, j := range arm.Joints {
		r, ok := cur[j]
		if !ok {
			return nil, missingJoint(j)
		}
		start[i] = spline.State{Pos: r.Position, Vel: r.Velocity}
		startMap[j] = r.Position
	}
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
	return p.previewTrajectory(ctx, c, arm, start, startMap, points)
}
