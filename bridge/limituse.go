package bridge

import (
	"math"

	"github.com/actbridge/actbridge/safety"
)

// LimitUse is how much of each of a joint's limits a motion uses, in
// percent (100: at the limit); nil where the joint has no such limit. The
// console shows it beside the joint's plot; the planner's preview leaves
// it out.
type LimitUse struct {
	Position     *float64 `json:"position,omitempty"`
	Velocity     *float64 `json:"velocity,omitempty"`
	Acceleration *float64 `json:"acceleration,omitempty"`
}

// PositionUse is how far a motion sweeping [min, max] reaches from the
// centre of the range [lo, hi] towards its nearer end: 0 at the centre,
// 100 at a limit, over 100 outside it.
func PositionUse(lo, hi, min, max float64) float64 {
	half := (hi - lo) / 2
	if !(half > 0) {
		return 100
	}
	mid := lo + half
	return percent(math.Max(math.Abs(min-mid), math.Abs(max-mid)), half)
}

// percent is 100·v/limit rounded to a tenth.
func percent(v, limit float64) float64 { return math.Round(1000*math.Abs(v)/limit) / 10 }

// limitUse is LimitUse per joint of a checked trajectory.
func limitUse(lim *safety.Limits, joints []safety.JointSummary) map[string]LimitUse {
	out := make(map[string]LimitUse, len(joints))
	for _, j := range joints {
		var u LimitUse
		if jl, ok := lim.Joint(j.Joint); ok && jl.HasPosition() {
			p := PositionUse(jl.MinPosition.Value, jl.MaxPosition.Value, j.MinPosition, j.MaxPosition)
			u.Position = &p
		}
		if j.VelocityLimit > 0 {
			v := percent(j.PeakVelocity, j.VelocityLimit)
			u.Velocity = &v
		}
		if j.AccelerationLimit > 0 {
			a := percent(j.PeakAcceleration, j.AccelerationLimit)
			u.Acceleration = &a
		}
		out[j.Joint] = u
	}
	return out
}
