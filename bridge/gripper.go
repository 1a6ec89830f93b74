package bridge

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/actbridge/actbridge/actuators"
)

// GripperModel is the gripper as the tools know it.
type GripperModel struct {
	Name               string
	Joint              string
	Min, Max           float64 // finger position range
	MaxEffort, SpeedMS float64
}

// GripperMove previews moving the gripper fingers.
func (p *Previewer) GripperMove() *Tool {
	names := namesOf(p.Grippers)
	g := p.Grippers[0]
	position := Num(fmt.Sprintf("Finger position in m: %g is closed, %g fully open.", g.Min, g.Max), g.Min, g.Max)
	effort := Num(fmt.Sprintf("Effort cap in N. Default %g.", g.MaxEffort), 0, g.MaxEffort)
	if len(p.Grippers) > 1 {
		// One schema for every gripper: the widest bounds, each gripper's
		// own in the description and checked once the call names it.
		lo, hi, eff := g.Min, g.Max, g.MaxEffort
		var ranges, efforts []string
		for _, o := range p.Grippers {
			lo, hi, eff = math.Min(lo, o.Min), math.Max(hi, o.Max), math.Max(eff, o.MaxEffort)
			ranges = append(ranges, fmt.Sprintf("%s %g closed to %g open", o.Name, o.Min, o.Max))
			efforts = append(efforts, fmt.Sprintf("%s %g", o.Name, o.MaxEffort))
		}
		position = Num("Finger position in m: "+strings.Join(ranges, "; ")+".", lo, hi)
		effort = Num("Effort cap in N, at most the gripper's maximum, the default: "+strings.Join(efforts, ", ")+".", 0, eff)
	}
	t := &Tool{
		Name: "gripper_move", Group: "gripper", Tier: TierIrreversible, Title: "Preview a gripper move", TouchesRobot: true,
		Description: Describe("Previews opening or closing the gripper to a finger position with an effort cap. Nothing moves: run it with motion_confirm(preview_id).",
			"you want to open the hand, close it on an object, or release one.",
			"moving the arm or base.",
			"none until confirmed; the confirmed motion moves the fingers and may squeeze an object (irreversible).",
			"a preview: preview_id, from, to, max_effort, duration_s, warnings, expires_at (under 1 KB)."),
		Input: Object("", map[string]*Schema{
			"position":   position,
			"max_effort": effort,
		}, "position"),
		Output: previewOut(map[string]*Schema{"from": {Type: "number", Description: "Current finger position."}, "to": {Type: "number", Description: "Target."}}),
		Errors: previewErrors,
		Ready:  p.motionReady,
		Call: func(ctx context.Context, c *Call) (any, error) {
			var in struct {
				Position  float64  `json:"position"`
				MaxEffort *float64 `json:"max_effort"`
			}
			if err := c.Decode(&in); err != nil {
				return nil, err
			}
			g, gerr := pick(c, p.Grippers)
			if gerr != nil {
				return nil, gerr
			}
			eff := g.MaxEffort
			if in.MaxEffort != nil {
				eff = *in.MaxEffort
			}
			if in.Position < g.Min || in.Position > g.Max {
				return nil, FieldError("position", fmt.Sprintf("%g to %g (%s)", g.Min, g.Max, g.Name), fmt.Sprint(in.Position), "outside this gripper's finger range")
			}
			if eff > g.MaxEffort {
				return nil, FieldError("max_effort", fmt.Sprintf("0 to %g (%s)", g.MaxEffort, g.Name), fmt.Sprint(eff), "over this gripper's maximum effort")
			}
			cur, jerr := p.joints(ctx)
			if jerr != nil {
				return nil, jerr
			}
			r, ok := cur[g.Joint]
			if !ok {
				return nil, StateError(CodeUnavailable, "joint "+g.Joint+" missing from /joint_states", "when the gripper reports its state", "no gripper state")
			}
			delta := in.Position - r.Position
			dur := math.Abs(delta)/g.SpeedMS + 0.2
			var warn []string
			if eff > 0.95*g.MaxEffort {
				warn = append(warn, fmt.Sprintf("effort %.1f N is within 5%% of the gripper's maximum", eff))
			}
			use := PositionUse(g.Min, g.Max, math.Min(r.Position, in.Position), math.Max(r.Position, in.Position))
			goal := previewGoal{Goal: actuators.GripperCommand{Position: in.Position, MaxEffort: eff}, Start: map[string]float64{g.Joint: r.Position}}
			return p.issue(ctx, c, g.Name, goal, map[string]any{
				"from": round6(r.Position), "to": in.Position, "max_effort": eff, "duration_s": round6(dur), "warnings": warn,
				"joints": []JointImpact{{Joint: g.Joint, From: round6(r.Position), To: in.Position, Delta: round6(delta), PeakVelocity: g.SpeedMS, Limit: g.SpeedMS, PercentOfLimit: 100}},
				"impact": map[string]any{"joints_moved": boolInt(math.Abs(delta) > 1e-6), "actuators_touched": []string{g.Name}},
				// for the console only: the fingers move at one speed, so only their range is a limit
				"limit_use": map[string]LimitUse{g.Joint: {Position: &use}},
			})
		},
	}
	return chooseActuator(t, "gripper", names)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
