package bridge

import (
	"errors"
	"fmt"
	"math"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/safety"
	"github.com/actbridge/actbridge/spline"
)

// SafetyArm adapts the safety package's limits to ArmGuard.
type SafetyArm struct {
	Limits *safety.Limits
	Opts   safety.CheckOptions
	// PlotSamples is how many samples per joint the console plot gets.
	PlotSamples int
}

// Range reports a joint's position range.
func (s SafetyArm) Range(joint string) (float64, float64, bool, bool) {
	j, ok := s.Limits.Joint(joint)
	if !ok {
		return 0, 0, false, false
	}
	if !j.HasPosition() {
		return 0, 0, false, true
	}
	return j.MinPosition.Value, j.MaxPosition.Value, true, true
}

// MinDuration is the shortest safe duration of a point-to-point move; from
// a joint out of range, at no more than the recovery fraction.
func (s SafetyArm) MinDuration(joints []string, from, to []float64, scale float64) float64 {
	if f := s.recoveryFraction(); scale > f && len(s.Limits.OutOfRange(joints, from)) > 0 {
		scale = f
	}
	d, err := s.Limits.MinDuration(joints, from, to, scale)
	if err != nil || math.IsNaN(d) || math.IsInf(d, 0) {
		return safety.MinMoveDuration
	}
	return d
}

// recoveryFraction is the configured recovery fraction, defaulted as the
// trajectory check defaults it.
func (s SafetyArm) recoveryFraction() float64 {
	if f := s.Opts.RecoveryFraction; f > 0 && f <= 1 {
		return f
	}
	return safety.DefaultRecoveryFraction
}

// Describe lists the joints with their limits.
func (s SafetyArm) Describe() []JointLimits {
	var out []JointLimits
	for _, n := range s.Limits.Names() {
		j, _ := s.Limits.Joint(n)
		jl := JointLimits{Name: n, Type: string(j.Type), MaxVelocity: j.MaxVelocity.Value, MaxEffort: j.MaxEffort.Value, Source: string(j.MaxVelocity.Source)}
		if j.HasPosition() {
			lo, hi := j.MinPosition.Value, j.MaxPosition.Value
			jl.Lower, jl.Upper = &lo, &hi
		}
		if j.MaxAcceleration.Set() {
			a := j.MaxAcceleration.Value
			jl.MaxAcceleration = &a
		}
		out = append(out, jl)
	}
	return out
}

// Check runs the full trajectory check and converts the report.
func (s SafetyArm) Check(joints []string, start []spline.State, points []spline.Point) (ArmCheck, error) {
	r, err := s.Limits.CheckTrajectory(joints, start, points, s.Opts)
	if err != nil {
		e := RuleError(CodeInvalidArgument, "trajectory_valid", "points", err.Error())
		var ie *safety.InputError
		if errors.As(err, &ie) {
			e.Field, e.Expected, e.Actual = ie.Field, ie.Expected, ie.Actual
		}
		return ArmCheck{}, e
	}
	out := ArmCheck{Duration: r.Duration}
	for _, o := range r.Recovery {
		o.Position, o.By = round6(o.Position), round6(o.By)
		out.Recovery = append(out.Recovery, o)
	}
	for _, v := range r.Violations {
		v.Time, v.Value = round6(v.Time), round6(v.Value)
		if v.Link != "" {
			v.Point = round6v(v.Point)
		}
		out.Violations = append(out.Violations, v)
	}
	if r.Tool != nil {
		t := r.Tool.Rounded()
		out.Tool = &t
	}
	for _, j := range r.Joints {
		out.Joints = append(out.Joints, JointImpact{Joint: j.Joint, From: j.From, To: j.To, Delta: j.Delta,
			PeakVelocity: math.Abs(j.PeakVelocity), Limit: j.VelocityLimit, PercentOfLimit: j.PercentOfLimit})
	}
	for _, w := range r.Warnings {
		who := w.Joint
		if who == "" {
			who = "motion"
		}
		out.Warnings = append(out.Warnings, fmt.Sprintf("%s: %s (%.4g against %.4g at t=%.2fs)", who, w.Kind, w.Value, w.Limit, w.Time))
	}
	out.Use = limitUse(s.Limits, r.Joints)
	if r.Trajectory != nil && s.PlotSamples > 1 {
		out.Plot = map[string][][2]float64{}
		st := make([]spline.State, len(joints))
		tp := s.newToolPlot(joints)
		for k := 0; k < s.PlotSamples; k++ {
			t := r.Duration * float64(k) / float64(s.PlotSamples-1)
			r.Trajectory.At(t, st)
			for i, j := range joints {
				out.Plot[j] = append(out.Plot[j], [2]float64{round6(t), round6(st[i].Pos)})
			}
			tp.add(st)
		}
		out.ToolPlot = tp.plot
	}
	return out, nil
}

// SafetyBase adapts the safety package's base checks to BaseGuard.
type SafetyBase struct{ Base *safety.Base }

// Caps returns the speed caps.
func (s SafetyBase) Caps() (float64, float64) {
	c := s.Base.Config()
	return c.MaxLinearSpeed, c.MaxAngularSpeed
}

// baseViolations are the base's broken rules as violations: the value a
// rule is about (x, y, linear, ...) stands where a joint would.
func baseViolations(vs []safety.BaseViolation) []safety.Violation {
	out := make([]safety.Violation, 0, len(vs))
	for _, v := range vs {
		out = append(out, safety.Violation{Joint: v.Field, Kind: safety.Kind(v.Rule), Value: v.Value, Limit: v.Limit})
	}
	return out
}

// CheckGoal refuses goals outside the geofence.
func (s SafetyBase) CheckGoal(frame string, x, y float64) []safety.Violation {
	vs, err := s.Base.CheckBaseGoal(frame, x, y)
	if err != nil {
		return []safety.Violation{{Kind: safety.Kind("invalid_goal: " + err.Error())}}
	}
	return baseViolations(vs)
}

// CheckDrive refuses twists over the caps or leaving the fence.
func (s SafetyBase) CheckDrive(start actuators.Pose2D, linear, angular, duration float64) (actuators.Pose2D, []safety.Violation) {
	end, vs, err := s.Base.CheckDrive(start.Frame, safety.Pose2D{X: start.X, Y: start.Y, Theta: start.Yaw}, linear, angular, duration)
	if err != nil {
		return start, []safety.Violation{{Kind: safety.Kind("invalid_drive: " + err.Error())}}
	}
	return actuators.Pose2D{Frame: start.Frame, X: round6(end.X), Y: round6(end.Y), Yaw: round6(end.Theta)}, baseViolations(vs)
}

// OutsideFence says how far the pose lies outside the fence, per axis.
func (s SafetyBase) OutsideFence(p actuators.Pose2D) []safety.OutOfRange {
	var out []safety.OutOfRange
	for _, o := range s.Base.OutsideFence(p.X, p.Y) {
		o.Position, o.By = round6(o.Position), round6(o.By)
		out = append(out, o)
	}
	return out
}

// FenceFrame is the frame the geofence is declared in.
func (s SafetyBase) FenceFrame() string { return s.Base.Config().Geofence.Frame }

// InFence maps a pose into the fence's frame (safety.Base.InFence).
func (s SafetyBase) InFence(frame string, p actuators.Pose2D, link *safety.FrameLink) (actuators.Pose2D, error) {
	q, err := s.Base.InFence(frame, safety.Pose2D{X: p.X, Y: p.Y, Theta: p.Yaw}, link)
	if err != nil {
		return actuators.Pose2D{}, err
	}
	return actuators.Pose2D{Frame: s.FenceFrame(), X: q.X, Y: q.Y, Yaw: q.Theta}, nil
}
