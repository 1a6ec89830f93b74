package bridge

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/actbridge/actbridge/kinematics"
	"github.com/actbridge/actbridge/safety"
	"github.com/actbridge/actbridge/spline"
	"github.com/actbridge/actbridge/tf"
)

// Cartesian goals (issue 36): the bridge solves IK from the arm's current
// joints, builds a joint trajectory and previews it as arm_follow_trajectory
// does; motion_confirm sends exactly that trajectory.

// Path kinds of the pose tools: interpolate in joint space, or move the
// tool on a straight line.
const (
	pathJoint = "joint"
	pathLine  = "line"
)

// A line path is solved at steps no longer than these, each IK seeded by
// the step before; a joint that moves more than lineJointJump in one step
// has flipped branch, and the line is refused there.
const (
	lineStepM     = 0.005
	lineStepRad   = math.Pi / 180
	lineJointJump = 0.2 // rad, or m for a prismatic joint
	lineMaxSteps  = 1000
)

// KinematicArm is an ArmGuard that knows the arm's kinematic chain: the
// pose tools solve IK on it.
type KinematicArm interface {
	// KinematicChain is the chain (nil without a kinematic model) and the
	// tool's speed cap in m/s (0: none).
	KinematicChain() (*kinematics.Chain, float64)
}

// KinematicChain is the chain the workspace limits are bound to.
func (s SafetyArm) KinematicChain() (*kinematics.Chain, float64) {
	w := s.Opts.Workspace
	if w == nil {
		return nil, 0
	}
	return w.Chain(), w.Limits().ToolSpeedMax
}

func armChain(a *ArmModel) (*kinematics.Chain, float64) {
	if k, ok := a.Guard.(KinematicArm); ok {
		return k.KinematicChain()
	}
	return nil, 0
}

// poseArms is whether any arm has a kinematic chain: the pose tools exist
// only then.
func (p *Previewer) poseArms() bool {
	for _, a := range p.Arms {
		if c, _ := armChain(a); c != nil {
			return true
		}
	}
	return false
}

// chainLinks lists the arms' base links (and with tool, their tool links),
// for the descriptions.
func (p *Previewer) chainLinks(tool bool) string {
	var out []string
	for _, a := range p.Arms {
		if c, _ := armChain(a); c != nil {
			if !slices.Contains(out, c.Base()) {
				out = append(out, c.Base())
			}
			if tool && !slices.Contains(out, c.Tool()) {
				out = append(out, c.Tool())
			}
		}
	}
	return strings.Join(out, ", ")
}

// poseTiming are the inputs both pose tools share.
func poseTiming(props map[string]*Schema) map[string]*Schema {
	props["path"] = &Schema{Type: "string", Enum: []string{pathJoint, pathLine}, Default: pathJoint,
		Description: "joint: the joints move together from start to the IK solution (the tool's path is curved, shown in tool_path). line: the tool moves on a straight line (orientation slerped), solved at steps of at most 5 mm and 1°; refused where IK fails or a joint would jump. Default joint."}
	props["duration_s"] = Num("Duration of the move in seconds. Default: the shortest that respects the joints' velocity and acceleration limits and the tool speed cap at speed_fraction of the current speed scale.", 0.1, 120)
	props["speed_fraction"] = Num("Fraction of the allowed speed when duration_s is not given. Default 1.", 0.05, 1)
	return props
}

const poseResult = "a preview as for arm_follow_trajectory: preview_id, joints, duration_s, tool_path {link, frame, start, end, distance_m, lowest, highest, peak_speed}, and ik {frame, link, path, target {position, orientation}, solution (joint → rad or m), position_error_m, orientation_error_rad; for a line also steps, step_m, step_rad, max_joint_step}. Refused with invalid_argument rule reachable (details.closest: the closest reachable pose and its joints, and for a line the step) when no joint positions within limits reach the pose, rule line_continuous when a line would flip a joint's branch, limit_violation as for arm_follow_trajectory (a link inside a forbidden box: {link, kind, zone, point, time_s}). "

// poseTool is a pose tool's declaration: what both share, around its own
// name, description and goal properties (the timing ones are added).
func (p *Previewer) poseTool(name, title, description string, goal map[string]*Schema, call func(context.Context, *Call) (any, error), required ...string) *Tool {
	t := &Tool{
		Name: name, Group: "arm", Tier: TierIrreversible, Title: title, TouchesRobot: true, Description: description,
		Input:  Object("", poseTiming(goal), required...),
		Output: previewOut(map[string]*Schema{"joints": {Type: "array", Description: "Per joint impact."}, "tool_path": toolPathSchema, "ik": ikSchema}),
		Errors: previewErrors,
		Ready:  p.motionReady,
		Call:   call,
	}
	return chooseActuator(t, "arm", namesOf(p.Arms))
}

// ArmMovePose previews moving the tool to a pose.
func (p *Previewer) ArmMovePose() *Tool {
	return p.poseTool("arm_move_pose", "Preview a tool pose move",
		Describe("Previews moving the arm's tool link to a pose (position in metres, orientation a unit quaternion x, y, z, w) in the arm's base link frame. The bridge solves inverse kinematics from the current joints within the joint limits (deterministic), builds the joint trajectory and checks every limit and the workspace along it; for an arm with a MoveIt planning group and move_group running, path joint is move_group's collision-aware plan, checked the same way (ik.planner in the preview says which planned it). Nothing moves: run it with motion_confirm(preview_id).",
			"you know where the tool should be (a grasp or place pose from perception, a point above the table).",
			"displacements from where the tool is (arm_move_relative); known joint targets (arm_move_joints); frames /tf does not place, or whose transform is over 1 s old (refused); the gripper (gripper_move).",
			"none until confirmed; the confirmed motion moves the arm (irreversible).",
			poseResult+recoveryNote),
		map[string]*Schema{
			"position":    {Type: "array", Description: "Target position of the tool link [x, y, z] in metres, in frame.", Items: Num("metres.", -10, 10), MinItems: Int(3), MaxItems: Int(3)},
			"orientation": {Type: "array", Description: "Target orientation of the tool link [x, y, z, w], a unit quaternion in frame. Default: the tool's current orientation.", Items: Num("quaternion component.", -1, 1), MinItems: Int(4), MaxItems: Int(4)},
			"frame":       Str("Frame of position and orientation: the arm's base link ("+p.chainLinks(false)+"), or, where the robot's /tf is read, any frame it places relative to that link (map, odom, a camera's); the preview shows the goal as given and in the base link. Default: the base link.", 256),
		}, p.armMovePose, "position")
}

// ArmMoveRelative previews moving the tool by a displacement.
func (p *Previewer) ArmMoveRelative() *Tool {
	return p.poseTool("arm_move_relative", "Preview a relative tool move",
		Describe("Previews moving the arm's tool link by a displacement from where it is now: a translation in metres and a rotation (roll, pitch, yaw in rad about the frame's fixed x, y, z axes, about the tool's origin), in the arm's base link frame or the tool link's own frame. Solved, built and checked as arm_move_pose. Nothing moves: run it with motion_confirm(preview_id).",
			"\"10 cm up\", \"5 cm towards x\", \"approach 3 cm along the tool's z\", \"turn the wrist 90°\".",
			"absolute poses (arm_move_pose); known joint targets (arm_move_joints); the gripper (gripper_move).",
			"none until confirmed; the confirmed motion moves the arm (irreversible).",
			poseResult+recoveryNote),
		map[string]*Schema{
			"translation":  {Type: "array", Description: "Displacement [dx, dy, dz] in metres along frame's axes. Default [0, 0, 0].", Items: Num("metres.", -2, 2), MinItems: Int(3), MaxItems: Int(3)},
			"rotation_rpy": {Type: "array", Description: "Rotation [roll, pitch, yaw] in rad about frame's fixed x, y, z axes (applied roll first), about the tool's origin. Default [0, 0, 0].", Items: Num("rad.", -math.Pi, math.Pi), MinItems: Int(3), MaxItems: Int(3)},
			"frame":        Str("Frame the displacement is expressed in: the arm's base link or its tool link ("+p.chainLinks(true)+"). Default: the base link.", 256),
		}, p.armMoveRelative)
}

var ikSchema = &Schema{Type: "object", Description: "The inverse kinematics behind the trajectory: frame, link, path, target {position, orientation} in the base link, solution (joint → rad or m), position_error_m, orientation_error_rad (the largest over a line's steps), and for a line steps, step_m, step_rad, max_joint_step."}

// poseInput is what both pose tools decode.
type poseInput struct {
	Position      []float64 `json:"position"`
	Orientation   []float64 `json:"orientation"`
	Translation   []float64 `json:"translation"`
	RotationRPY   []float64 `json:"rotation_rpy"`
	Frame         string    `json:"frame"`
	Path          string    `json:"path"`
	DurationS     float64   `json:"duration_s"`
	SpeedFraction float64   `json:"speed_fraction"`
}

// poseStart is an arm's state for a pose tool: the arm's start, the
// chain's joints in the arm's order and the tool pose there.
type poseStart struct {
	arm      *ArmModel
	chain    *kinematics.Chain
	capMS    float64
	start    []spline.State
	startMap map[string]float64
	index    []int // chain joint → index in arm.Joints
	// goalField is the argument a refused goal names: position, or
	// translation for a relative move.
	goalField string
	seed      []float64
	tool      tf.Transform
	// inBase is the pose's frame in the base link when it was given in
	// another frame TF places (nil: given in the base link), and tfAge
	// how old that transform was.
	inBase  *tf.Transform
	inFrame string // the frame inBase places
	// inFramePos is the goal's position as given in inFrame, and
	// inFrameOriented whether its orientation was given there too.
	inFramePos      kinematics.Vec3
	inFrameOriented bool
	tfAge           time.Duration
	given           map[string]any // the goal as given, for the preview
}

// link is the given frame's pose in the base link for confirm to read
// again (nil: the pose was in the base or tool link, which TF does not
// move).
func (s *poseStart) link() *frameLink {
	if s.inBase == nil {
		return nil
	}
	return &frameLink{Frame: s.inFrame, Base: s.chain.Base(), Translation: s.inBase.Translation, Rotation: s.inBase.Rotation,
		Position: s.inFramePos, Oriented: s.inFrameOriented}
}

// armTransform reads frame's pose in arm's base link from TF, at most
// the arm's TFMaxAge old, and how old it is; outcome says what a refusal
// leaves undone.
func armTransform(arm *ArmModel, base, frame string, now func() time.Time, outcome string) (tf.Transform, time.Duration, *Error) {
	maxAge := arm.TFMaxAge
	if maxAge <= 0 {
		maxAge = DefaultTFMaxAge
	}
	tr, at, err := arm.Frames.Transform(base, frame, maxAge)
	if err != nil {
		rule := ruleTFLookup
		if errors.Is(err, tf.ErrStale) {
			rule = ruleTFMaxAge
		}
		e := StateError(CodeUnavailable, "transform "+frame+"→"+base+" unavailable",
			fmt.Sprintf("when TF places %s in %s, at most %v old", frame, base, maxAge),
			fmt.Sprintf("cannot place a pose given in %q in the arm's base link: %v; %s, nothing moves", frame, err, outcome))
		e.Rule = rule
		return tf.Transform{}, 0, e.WithHint("give the pose in " + base + ", or a frame the robot's /tf publishes")
	}
	var age time.Duration
	if !at.IsZero() {
		age = max(0, now().Sub(at))
	}
	return tr, age, nil
}

// poseStart decodes a pose tool's arguments, checks their frame (the
// base link; for a relative move the tool link too) and reads where the
// arm is.
func (p *Previewer) poseStart(ctx context.Context, c *Call, relative bool) (*poseStart, poseInput, error) {
	var in poseInput
	if err := c.Decode(&in); err != nil {
		return nil, in, err
	}
	arm, aerr := pick(c, p.Arms)
	if aerr != nil {
		return nil, in, aerr
	}
	ch, capMS := armChain(arm)
	if ch == nil {
		return nil, in, RuleError(CodeInvalidArgument, "kinematic_model", ActuatorArg,
			"arm "+arm.Name+" has no kinematic model (its joints make no chain of the URDF): pose goals need one; use arm_move_joints")
	}
	var inBase *tf.Transform // the given frame's pose in the base link, for a frame TF places
	var age time.Duration
	switch {
	case in.Frame == "" || in.Frame == ch.Base() || relative && in.Frame == ch.Tool():
	case relative:
		return nil, in, FieldError("frame", ch.Base()+" or "+ch.Tool(), quote(in.Frame),
			"a relative move is expressed in the arm's base link or its tool link")
	case arm.Frames == nil:
		return nil, in, FieldError("frame", ch.Base()+" (the arm's base link)", quote(in.Frame),
			"only the arm's base link is a pose frame here: this robot's transforms are not read").
			WithHint("express the pose in " + ch.Base() + ", or use arm_move_relative in the tool frame")
	default:
		tr, a, err := armTransform(arm, ch.Base(), cleanFrame(in.Frame), p.Now, "no preview issued")
		if err != nil {
			return nil, in, err
		}
		inBase, age = &tr, a
	}
	start, startMap, jerr := p.armStart(ctx, arm)
	if jerr != nil {
		return nil, in, jerr
	}
	s := &poseStart{arm: arm, chain: ch, capMS: capMS, start: start, startMap: startMap, goalField: "position", inBase: inBase, tfAge: age}
	if inBase != nil {
		s.inFrame = cleanFrame(in.Frame)
	}
	if relative {
		s.goalField = "translation"
	}
	for _, j := range ch.Joints() {
		i := slices.Index(arm.Joints, j)
		if i < 0 { // the config refuses such a chain; never trust it here
			return nil, in, Errf(CodeInternal, "joint %s of the chain is not one of arm %s's joints", j, arm.Name)
		}
		s.index = append(s.index, i)
		s.seed = append(s.seed, start[i].Pos)
	}
	d := ch.NewData()
	if err := ch.FK(d, s.seed); err != nil {
		return nil, in, Errf(CodeInternal, "tool pose at the current joints: %v", err)
	}
	tp := d.ToolPose()
	s.tool = tf.Transform{Translation: tp.Position, Rotation: tp.Orientation}
	return s, in, nil
}

func (p *Previewer) armMovePose(ctx context.Context, c *Call) (any, error) {
	s, in, err := p.poseStart(ctx, c, false)
	if err != nil {
		return nil, err
	}
	if len(in.Position) != 3 {
		return nil, FieldError("position", "3 numbers [x, y, z] in metres", fmt.Sprintf("%d numbers", len(in.Position)), "position needs x, y and z")
	}
	goal := tf.Transform{Translation: kinematics.Vec3(in.Position), Rotation: s.tool.Rotation}
	var given map[string]any
	if s.inBase != nil {
		// The position (and orientation) are the frame's: into the base
		// link; left out, the orientation stays the tool's own.
		given = map[string]any{"frame": cleanFrame(in.Frame), "position": round6v(goal.Translation), "transform_age_s": round6(s.tfAge.Seconds())}
		s.inFramePos = goal.Translation
		goal.Translation = s.inBase.Apply(goal.Translation)
	}
	if in.Orientation != nil {
		q, qerr := unitQuat("orientation", in.Orientation)
		if qerr != nil {
			return nil, qerr
		}
		goal.Rotation = q
		if s.inBase != nil {
			given["orientation"] = round6q(q)
			s.inFrameOriented = true
			goal.Rotation = s.inBase.Mul(tf.Transform{Rotation: q}).Rotation
		}
	}
	s.given = given
	return p.previewPose(ctx, c, s, goal, in)
}

func (p *Previewer) armMoveRelative(ctx context.Context, c *Call) (any, error) {
	s, in, err := p.poseStart(ctx, c, true)
	if err != nil {
		return nil, err
	}
	var d kinematics.Vec3
	var rpy [3]float64
	for _, f := range []struct {
		name string
		v    []float64
		to   *[3]float64
	}{{"translation", in.Translation, (*[3]float64)(&d)}, {"rotation_rpy", in.RotationRPY, &rpy}} {
		if f.v != nil && len(f.v) != 3 {
			return nil, FieldError(f.name, "3 numbers", fmt.Sprintf("%d numbers", len(f.v)), f.name+" needs three values")
		}
		if f.v != nil {
			*f.to = [3]float64(f.v)
		}
	}
	move := tf.Transform{Translation: d, Rotation: rpyQuat(rpy)}
	var goal tf.Transform
	switch in.Frame {
	case "", s.chain.Base():
		// Translate along the base's axes; rotate about them, at the tool.
		t := s.tool.Translation
		goal = tf.Transform{Translation: kinematics.Vec3{t[0] + d[0], t[1] + d[1], t[2] + d[2]},
			Rotation: tf.Transform{Rotation: move.Rotation}.Mul(tf.Transform{Rotation: s.tool.Rotation}).Rotation}
	default: // the tool link (poseStart refused any other)
		goal = s.tool.Mul(move)
	}
	return p.previewPose(ctx, c, s, goal, in)
}

// unitQuat checks a quaternion the planner gave: unit within 1e-3 (IK's
// rule), normalised.
func unitQuat(field string, v []float64) (kinematics.Quat, *Error) {
	if len(v) != 4 {
		return kinematics.Quat{}, FieldError(field, "4 numbers [x, y, z, w]", fmt.Sprintf("%d numbers", len(v)), "a quaternion has four components")
	}
	n := math.Sqrt(v[0]*v[0] + v[1]*v[1] + v[2]*v[2] + v[3]*v[3])
	if math.Abs(n-1) > 1e-3 {
		return kinematics.Quat{}, FieldError(field, "a unit quaternion (norm within 1e-3 of 1)", fmt.Sprintf("norm %.6g", n), "orientation is not a unit quaternion")
	}
	return kinematics.Quat{v[0] / n, v[1] / n, v[2] / n, v[3] / n}, nil
}

// rpyQuat is URDF's rpy as a quaternion: Rz(yaw)·Ry(pitch)·Rx(roll).
func rpyQuat(rpy [3]float64) kinematics.Quat {
	r := tf.Identity
	for axis := 2; axis >= 0; axis-- {
		var q kinematics.Quat
		q[axis], q[3] = math.Sin(rpy[axis]/2), math.Cos(rpy[axis]/2)
		r = r.Mul(tf.Transform{Rotation: q})
	}
	return r.Rotation
}

// angleBetween is the rotation angle from a to b (rad).
func angleBetween(a, b kinematics.Quat) float64 {
	d := tf.Transform{Rotation: a}.Inverse().Mul(tf.Transform{Rotation: b}).Rotation
	v := math.Sqrt(d[0]*d[0] + d[1]*d[1] + d[2]*d[2])
	return 2 * math.Atan2(v, math.Abs(d[3]))
}

func distance(a, b kinematics.Vec3) float64 {
	return math.Sqrt(sq(a[0]-b[0]) + sq(a[1]-b[1]) + sq(a[2]-b[2]))
}

func sq(x float64) float64 { return x * x }

// previewPose solves the goal (the tool's pose in the base link) along the
// path the call asks for and previews the joint trajectory.
func (p *Previewer) previewPose(ctx context.Context, c *Call, s *poseStart, goal tf.Transform, in poseInput) (any, error) {
	ik := map[string]any{"frame": s.chain.Base(), "link": s.chain.Tool(), "path": pathJoint,
		"target": map[string]any{"position": round6v(goal.Translation), "orientation": round6q(goal.Rotation)}}
	if s.given != nil {
		ik["given"] = s.given
	}
	if in.Path == pathLine {
		ik["planner"] = "the bridge's IK"
		if s.arm.Planning != nil {
			ik["planner"] = "the bridge's IK on a straight line: move_group plans joint paths only, so this path is checked by the arm's limits and workspace alone, not for collisions move_group knows of"
		}
		return p.previewLine(ctx, c, s, goal, in, ik)
	}
	if out, handled, err := p.planPose(ctx, c, s, goal, in, ik); handled {
		return out, err
	}
	if _, asked := ik["planner"]; !asked {
		ik["planner"] = "the bridge's IK"
	}
	d := s.chain.NewData()
	sol, err := s.chain.IK(d, kinematics.Goal{Pose: goal.Pose()}, s.seed)
	if err != nil {
		return nil, ikError(err, s.goalField, -1, kinematics.Pose{})
	}
	to := make([]float64, len(s.start))
	for i := range s.start {
		to[i] = s.start[i].Pos
	}
	for k, i := range s.index {
		to[i] = sol.Joints[k]
	}
	ik["solution"] = s.solution(sol.Joints)
	ik["position_error_m"], ik["orientation_error_rad"] = sol.PositionError, sol.OrientationError
	return p.previewPointToPoint(ctx, c, s.arm, s.start, s.startMap, to, in.DurationS, in.SpeedFraction, map[string]any{"ik": ik}, s.link())
}

func (s *poseStart) solution(q []float64) map[string]float64 {
	out := map[string]float64{}
	for k, j := range s.chain.Joints() {
		out[j] = round6(q[k])
	}
	return out
}

func round6q(q kinematics.Quat) [4]float64 {
	return [4]float64{round6(q[0]), round6(q[1]), round6(q[2]), round6(q[3])}
}

// ikError turns IK's refusal into the planner's: unreachable names the
// closest pose (and, on a line, the step and its target pose).
func ikError(err error, field string, step int, at kinematics.Pose) *Error {
	var ue *kinematics.UnreachableError
	if !errors.As(err, &ue) {
		e := FieldError(field, "a finite pose within reach of the base", clipRunes(err.Error(), 200), "inverse kinematics refused the goal")
		return e
	}
	cl := ue.Closest
	closest := map[string]any{"position": round6v(cl.Pose.Position), "orientation": round6q(cl.Pose.Orientation),
		"joints": cl.Joints, "position_error_m": round6(cl.PositionError), "orientation_error_rad": round6(cl.OrientationError)}
	details := map[string]any{"closest": closest}
	where := ""
	if step >= 0 {
		details["step"], details["step_pose"] = step, map[string]any{"position": round6v(at.Position), "orientation": round6q(at.Orientation)}
		where = fmt.Sprintf(" at step %d of the line, (%.3f, %.3f, %.3f) m", step, at.Position[0], at.Position[1], at.Position[2])
	}
	e := RuleError(CodeInvalidArgument, "reachable", field, fmt.Sprintf("no joint positions within the limits put the tool at the pose%s; the closest reachable pose is (%.4f, %.4f, %.4f) m, %.4g m and %.4g rad away; no preview issued, nothing moves",
		where, cl.Pose.Position[0], cl.Pose.Position[1], cl.Pose.Position[2], cl.PositionError, cl.OrientationError))
	e.Expected = "a pose the arm reaches within its joint limits"
	e.Actual = fmt.Sprintf("closest reachable position [%.4f, %.4f, %.4f] m, %.4g m and %.4g rad away", cl.Pose.Position[0], cl.Pose.Position[1], cl.Pose.Position[2], cl.PositionError, cl.OrientationError)
	return e.WithDetails(details).WithHint("move the target toward the closest reachable pose, or leave orientation out, then preview again")
}

// previewLine solves a straight line to goal at fine steps and previews
// the trajectory through them, timed by a minimum-jerk profile.
func (p *Previewer) previewLine(ctx context.Context, c *Call, s *poseStart, goal tf.Transform, in poseInput, ik map[string]any) (any, error) {
	length := distance(s.tool.Translation, goal.Translation)
	angle := angleBetween(s.tool.Rotation, goal.Rotation)
	n := max(1, int(math.Ceil(length/lineStepM-1e-9)), int(math.Ceil(angle/lineStepRad-1e-9)))
	if n > lineMaxSteps {
		return nil, FieldError(s.goalField, fmt.Sprintf("a line of at most %d steps (%.1f m, %.0f°)", lineMaxSteps, lineMaxSteps*lineStepM, lineMaxSteps*lineStepRad*180/math.Pi),
			fmt.Sprintf("%.3f m and %.1f°: %d steps", length, angle*180/math.Pi, n), "the line is too long to solve at fine steps")
	}
	d := s.chain.NewData()
	qs := make([][]float64, n+1)
	qs[0] = s.seed
	maxPos, maxOri, maxStep := 0.0, 0.0, 0.0
	for k := 1; k <= n; k++ {
		at := tf.Interpolate(s.tool, goal, float64(k)/float64(n)).Pose()
		sol, err := s.chain.IK(d, kinematics.Goal{Pose: at}, qs[k-1])
		if err != nil {
			return nil, ikError(err, "path", k, at)
		}
		for j, q := range sol.Joints {
			jump := math.Abs(q - qs[k-1][j])
			if jump > lineJointJump {
				joint := s.chain.Joints()[j]
				e := RuleError(CodeInvalidArgument, "line_continuous", "path", fmt.Sprintf("the straight line needs %s to jump %.3f (from %.4f to %.4f) at step %d of %d, (%.3f, %.3f, %.3f) m: the arm would flip its configuration there; no preview issued, nothing moves",
					joint, jump, qs[k-1][j], q, k, n, at.Position[0], at.Position[1], at.Position[2]))
				e.Expected, e.Actual = fmt.Sprintf("every joint moving at most %g per %g mm step", lineJointJump, lineStepM*1000), fmt.Sprintf("%s moving %.3f at step %d", joint, jump, k)
				return nil, e.WithDetails(map[string]any{"step": k, "steps": n, "joint": joint, "from": round6(qs[k-1][j]), "to": round6(q),
					"step_pose": map[string]any{"position": round6v(at.Position), "orientation": round6q(at.Orientation)}}).
					WithHint("use path joint, or split the move at another intermediate pose")
			}
			maxStep = max(maxStep, jump)
		}
		maxPos, maxOri = max(maxPos, sol.PositionError), max(maxOri, sol.OrientationError)
		qs[k] = append([]float64(nil), sol.Joints...)
	}
	points := s.lineTrajectory(qs, p.lineDuration(s, qs, length, in))
	ik["path"], ik["steps"], ik["step_m"], ik["step_rad"], ik["max_joint_step"] = pathLine, n, round6(length/float64(n)), round6(angle/float64(n)), round6(maxStep)
	ik["solution"] = s.solution(qs[n])
	ik["position_error_m"], ik["orientation_error_rad"] = maxPos, maxOri
	return p.previewTrajectory(ctx, c, s.arm, s.start, s.startMap, points, map[string]any{"ik": ik}, s.link())
}

// Minimum-jerk time scaling s(τ) = 10τ³ − 15τ⁴ + 6τ⁵: at rest at both
// ends; its peak ds/dτ is 1.875 and its peak d²s/dτ² 5.7735.
func minJerk(t float64) float64 { return t * t * t * (10 + t*(-15+6*t)) }
func minJerkRate(t float64) float64 {
	return 30 * t * t * (1 + t*(-2+t))
}

const (
	minJerkPeakRate  = 1.875
	minJerkPeakAccel = 5.7735
)

// minJerkInverse is τ with minJerk(τ) = s, by bisection (deterministic).
func minJerkInverse(s float64) float64 {
	lo, hi := 0.0, 1.0
	for range 60 {
		mid := (lo + hi) / 2
		if minJerk(mid) < s {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// lineDuration is the asked duration, or the shortest whose profile keeps
// every joint within speed_fraction of its velocity and acceleration
// limits (at the speed scale) and the tool under its speed cap.
func (p *Previewer) lineDuration(s *poseStart, qs [][]float64, length float64, in poseInput) float64 {
	if in.DurationS > 0 {
		return in.DurationS
	}
	f := in.SpeedFraction
	if f == 0 {
		f = 1
	}
	f *= p.SpeedScale()
	limits := map[string]JointLimits{}
	for _, jl := range s.arm.Guard.Describe() {
		limits[jl.Name] = jl
	}
	n := float64(len(qs) - 1)
	dur := safety.MinMoveDuration
	for j, name := range s.chain.Joints() {
		grad := 0.0 // the largest |dq/ds| over the steps
		for k := 1; k < len(qs); k++ {
			grad = max(grad, math.Abs(qs[k][j]-qs[k-1][j])*n)
		}
		jl := limits[name]
		if jl.MaxVelocity > 0 {
			dur = max(dur, minJerkPeakRate*grad/(f*jl.MaxVelocity))
		}
		if jl.MaxAcceleration != nil && *jl.MaxAcceleration > 0 {
			dur = max(dur, math.Sqrt(minJerkPeakAccel*grad/(f**jl.MaxAcceleration)))
		}
	}
	if s.capMS > 0 {
		dur = max(dur, minJerkPeakRate*length/(f*s.capMS))
	}
	// The cubic between steps and the path's curvature add a little.
	return math.Ceil(dur*1.15*1000) / 1000
}

// lineTrajectory times the line's joint positions qs (step 0 is the start)
// over duration: step k at the time the profile reaches k/n, with the
// velocity the profile gives there.
func (s *poseStart) lineTrajectory(qs [][]float64, duration float64) []spline.Point {
	n := len(qs) - 1
	points := make([]spline.Point, n)
	for k := 1; k <= n; k++ {
		tau := minJerkInverse(float64(k) / float64(n))
		if k == n {
			tau = 1
		}
		rate := minJerkRate(tau) / duration // ds/dt
		pt := spline.Point{Positions: make([]float64, len(s.start)), Velocities: make([]float64, len(s.start)), Time: tau * duration}
		for i := range s.start {
			pt.Positions[i] = s.start[i].Pos // joints off the chain hold
		}
		for j, i := range s.index {
			pt.Positions[i] = qs[k][j]
			if k < n {
				pt.Velocities[i] = (qs[k+1][j] - qs[k-1][j]) * float64(n) / 2 * rate
			}
		}
		points[k-1] = pt
	}
	return points
}
