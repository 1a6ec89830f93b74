package bridge

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/safety"
)

// BaseModel is the base as the tools know it.
type BaseModel struct {
	Name string
	// Frame is the odometry's frame; the geofence's is Guard.FenceFrame.
	Frame     string
	MaxDriveS float64
	Guard     BaseGuard
	// Frames links Frame to the fence's frame when they differ (nil:
	// base motions are refused then). TFMaxAge (DefaultTFMaxAge) and
	// MaxTilt (DefaultMaxTilt, rad) bound the link it gives.
	Frames   actuators.Frames
	TFMaxAge time.Duration
	MaxTilt  float64
}

// goalFrames lists the frames a base's goals may be in: its odometry's
// and its fence's.
func (b *BaseModel) goalFrames() []string {
	fs := []string{cleanFrame(b.Frame)}
	if f := cleanFrame(b.Guard.FenceFrame()); f != fs[0] {
		fs = append(fs, f)
	}
	return fs
}

// pose is the named base's odometry.
func (p *Previewer) pose(base string) (actuators.Pose2D, *Error) {
	pose, ok := p.Robot.Odom(base)
	if !ok {
		return actuators.Pose2D{}, StateError(CodeUnavailable, "no odometry received", "when the base publishes odometry", "cannot preview a base motion without its pose")
	}
	return pose, nil
}

// BaseNavigate previews a move_base goal.
func (p *Previewer) BaseNavigate() *Tool {
	names := namesOf(p.Bases)
	frame := Enum("Frame of the goal: the odometry's or the geofence's (checked there through TF). Default "+p.Bases[0].Frame+".", p.Bases[0].goalFrames()...)
	if len(p.Bases) > 1 {
		var frames, defaults []string
		for _, b := range p.Bases {
			for _, f := range b.goalFrames() {
				if !slices.Contains(frames, f) {
					frames = append(frames, f)
				}
			}
			defaults = append(defaults, b.Name+" "+b.Frame)
		}
		frame = Enum("Frame of the goal, one of the named base's: its odometry's or its geofence's. Default: "+strings.Join(defaults, ", ")+".", frames...)
	}
	t := &Tool{
		Name: "base_navigate", Group: "base", Tier: TierIrreversible, Title: "Preview a navigation goal", TouchesRobot: true,
		Description: Describe("Previews sending the mobile base to a pose through move_base; the goal must lie inside the geofence. Nothing moves: run it with motion_confirm(preview_id).",
			"you want the base at a pose in the map/odom frame.",
			"short open-loop nudges (base_drive); arm motions.",
			"none until confirmed; the confirmed motion drives the base (irreversible).",
			"a preview: preview_id, from and to poses, distance_m, duration_s estimate, warnings, expires_at (under 1 KB); with the geofence in another frame than odometry (map), frames: both poses in both frames and the transform's age. Refused with limit_violation outside the geofence (checked in its frame), unavailable when that transform is missing or too old. While the base stands outside the geofence every goal is refused (rule recovery_only): move_base's path and speed cannot be held to the recovery rules, so base_drive leads back."),
		Input: Object("", map[string]*Schema{
			"x":     Num("Goal x in m.", -1000, 1000),
			"y":     Num("Goal y in m.", -1000, 1000),
			"yaw":   Num("Goal heading in rad. Default 0.", -math.Pi, math.Pi),
			"frame": frame,
		}, "x", "y"),
		Output: previewOut(map[string]*Schema{"distance_m": {Type: "number", Description: "Straight-line distance."}}),
		Errors: previewErrors,
		Ready:  p.motionReady,
		Call: func(ctx context.Context, c *Call) (any, error) {
			var in struct {
				X, Y, Yaw float64
				Frame     string
			}
			if err := c.Decode(&in); err != nil {
				return nil, err
			}
			b, berr := pick(c, p.Bases)
			if berr != nil {
				return nil, berr
			}
			goalFrame := b.Frame
			if in.Frame != "" {
				goalFrame = in.Frame
			}
			if !slices.Contains(b.goalFrames(), cleanFrame(goalFrame)) {
				return nil, FieldError("frame", strings.Join(b.goalFrames(), " or ")+" ("+b.Name+"'s frames)", quote(in.Frame), "not one of this base's frames")
			}
			cur, perr := p.pose(b.Name)
			if perr != nil {
				return nil, perr
			}
			fr, ferr := b.frames(p.Now)
			if ferr != nil {
				return nil, ferr
			}
			to := actuators.Pose2D{Frame: goalFrame, X: in.X, Y: in.Y, Yaw: in.Yaw}
			curF, ferr := fr.inFence(b.Guard, b.Frame, cur)
			if ferr != nil {
				return nil, ferr
			}
			toF, ferr := fr.inFence(b.Guard, goalFrame, to)
			if ferr != nil {
				return nil, ferr
			}
			if out := b.Guard.OutsideFence(curF); out != nil {
				// move_base picks its own path and speed: neither can be
				// held to the recovery rules, so only base_drive leads back.
				return nil, recoveryError(out, []safety.Violation{{Joint: "base", Kind: "recovery_drive_only"}}, baseRecoveryHint)
			}
			if vs := b.Guard.CheckGoal(toF.Frame, toF.X, toF.Y); len(vs) > 0 {
				return nil, violationError(c.Tool.Name, vs)
			}
			lin, ang := b.Guard.Caps()
			dist := math.Hypot(toF.X-curF.X, toF.Y-curF.Y)
			if vs := p.StepCaps.baseStep(dist); len(vs) > 0 {
				return nil, violationError(c.Tool.Name, vs)
			}
			turn := math.Abs(math.Remainder(toF.Yaw-curF.Yaw, 2*math.Pi)) + math.Pi/2
			dur := dist/lin + turn/ang
			var inOdom *actuators.Pose2D // the goal moves with the odometry only when given there
			if cleanFrame(goalFrame) == cleanFrame(b.Frame) {
				inOdom = &to
			}
			goal := previewGoal{Goal: actuators.Navigate{Target: to}, Start: fr.start(cur, inOdom)}
			var warn []string
			if p.LargeMotion > 0 && dist > 10*p.LargeMotion {
				warn = append(warn, fmt.Sprintf("long trip: %.1f m", dist))
			}
			summary := map[string]any{
				"from": cur, "to": &to, "distance_m": round6(dist), "duration_s": round6(dur), "warnings": warn,
				"impact": map[string]any{"joints_moved": 0, "actuators_touched": []string{b.Name}},
			}
			if both := fr.show(map[string]actuators.Pose2D{"from": cur, "to": fr.inOdom(toF)},
				map[string]actuators.Pose2D{"from": curF, "to": toF}); both != nil {
				summary["frames"] = both
			}
			return p.issue(ctx, c, b.Name, goal, summary)
		},
	}
	return chooseActuator(t, "base", names)
}

// BaseDrive previews a timed velocity command with a deadman.
func (p *Previewer) BaseDrive() *Tool {
	names := namesOf(p.Bases)
	b := p.Bases[0]
	lin, ang := b.Guard.Caps()
	linear := Num(fmt.Sprintf("Forward speed in m/s (cap %g).", lin), -10, 10)
	angular := Num(fmt.Sprintf("Turn rate in rad/s (cap %g). Default 0.", ang), -10, 10)
	duration := Num(fmt.Sprintf("How long to drive, at most %g s.", b.MaxDriveS), 0.1, b.MaxDriveS)
	if len(p.Bases) > 1 {
		// The longest drive any base allows; each base's own caps are in
		// the text and checked once the call names it.
		var lins, angs, durs []string
		longest := 0.0
		for _, o := range p.Bases {
			l, a := o.Guard.Caps()
			lins, angs = append(lins, fmt.Sprintf("%s %g", o.Name, l)), append(angs, fmt.Sprintf("%s %g", o.Name, a))
			durs = append(durs, fmt.Sprintf("%s %g s", o.Name, o.MaxDriveS))
			longest = math.Max(longest, o.MaxDriveS)
		}
		linear = Num("Forward speed in m/s (caps: "+strings.Join(lins, ", ")+").", -10, 10)
		angular = Num("Turn rate in rad/s (caps: "+strings.Join(angs, ", ")+"). Default 0.", -10, 10)
		duration = Num("How long to drive, at most: "+strings.Join(durs, ", ")+".", 0.1, longest)
	}
	t := &Tool{
		Name: "base_drive", Group: "base", Tier: TierIrreversible, Title: "Preview a timed drive", TouchesRobot: true,
		Description: Describe("Previews driving the base at a linear and angular velocity for a bounded time (cmd_vel, republished with a deadman: the base stops at the end, on cancel, on robot_stop, or if this MCP session ends). Nothing moves: run it with motion_confirm(preview_id).",
			"short open-loop moves: back off, turn in place, creep forward.",
			"going to a pose (base_navigate plans around obstacles); long drives.",
			"none until confirmed; the confirmed motion drives the base (irreversible).",
			"a preview: preview_id, the predicted end pose, duration_s, warnings, expires_at (under 1 KB); refused with limit_violation over the speed caps or if the path leaves the geofence (checked in its frame: frames shows the start and end in both). While the base stands outside the geofence only a recovery is previewed: a turn in place or a straight drive that only brings it closer, at no more than the recovery speed fraction of the caps; the preview says recovery: true and out_of_range [{joint: x|y, position, limit, by}], and an operator confirms it whatever the policy. Anything else is refused with limit_violation, rule recovery_only."),
		Input: Object("", map[string]*Schema{
			"linear":     linear,
			"angular":    angular,
			"duration_s": duration,
		}, "linear", "duration_s"),
		Output: previewOut(map[string]*Schema{"end_pose": {Type: "object", Description: "Predicted pose at the end."}}),
		Errors: previewErrors,
		Ready:  p.motionReady,
		Call: func(ctx context.Context, c *Call) (any, error) {
			var in struct {
				Linear, Angular float64
				DurationS       float64 `json:"duration_s"`
			}
			if err := c.Decode(&in); err != nil {
				return nil, err
			}
			b, berr := pick(c, p.Bases)
			if berr != nil {
				return nil, berr
			}
			if in.DurationS > b.MaxDriveS {
				return nil, FieldError("duration_s", fmt.Sprintf("at most %g (%s)", b.MaxDriveS, b.Name), fmt.Sprint(in.DurationS), "longer than this base may drive")
			}
			cur, perr := p.pose(b.Name)
			if perr != nil {
				return nil, perr
			}
			// The arc is checked where the fence is: a rigid link moves the
			// whole arc with its start.
			fr, ferr := b.frames(p.Now)
			if ferr != nil {
				return nil, ferr
			}
			curF, ferr := fr.inFence(b.Guard, b.Frame, cur)
			if ferr != nil {
				return nil, ferr
			}
			endF, vs := b.Guard.CheckDrive(curF, in.Linear, in.Angular, in.DurationS)
			end := endF
			if fr.link != nil {
				end = fr.inOdom(endF)
			}
			vs = append(vs, p.StepCaps.baseStep(math.Abs(in.Linear)*in.DurationS)...)
			out := b.Guard.OutsideFence(curF)
			if len(vs) > 0 {
				if out != nil {
					return nil, recoveryError(out, vs, baseRecoveryHint)
				}
				return nil, violationError(c.Tool.Name, vs)
			}
			goal := previewGoal{Goal: actuators.Drive{Linear: in.Linear, Angular: in.Angular, Duration: time.Duration(in.DurationS * float64(time.Second))},
				Start: fr.start(cur, &end)}
			summary := map[string]any{
				"from": cur, "end_pose": end, "linear": in.Linear, "angular": in.Angular, "duration_s": in.DurationS, "warnings": []string{},
				"impact": map[string]any{"joints_moved": 0, "actuators_touched": []string{b.Name}},
			}
			if out != nil {
				summary["recovery"], summary["out_of_range"] = true, out
			}
			if both := fr.show(map[string]actuators.Pose2D{"from": cur, "end_pose": end},
				map[string]actuators.Pose2D{"from": curF, "end_pose": endF}); both != nil {
				summary["frames"] = both
			}
			return p.issue(ctx, c, b.Name, goal, summary)
		},
	}
	return chooseActuator(t, "base", names)
}
