package safety

import (
	"math"
	"slices"
)

// DefaultRecoveryFraction is the share of each velocity limit (and of the
// base's speed caps) a recovery motion may use when the config sets none.
const DefaultRecoveryFraction = 0.1

// Recovery tolerances, both for velocity noise in the start state (previews
// show positions to 6 decimals). A held joint may drift by
// RecoveryHoldTolerance along the interpolated motion, and an out-of-range
// joint may pass its start outward by as much: the same noise moves either
// by the same amount. Apart from that, an out-of-range joint may move
// outward at up to recoveryVelocityTolerance, so that a start velocity of
// noise level still allows a move inward; the position bound, not this
// speed, is what keeps it from getting further out.
const (
	RecoveryHoldTolerance     = 1e-4 // rad or m
	recoveryVelocityTolerance = 1e-3 // rad/s or m/s
)

// Kinds of recovery violations: a motion that starts with a joint outside
// its position range must obey these rules instead of the position limit
// it already breaks.
const (
	// KindRecoveryDirection: an out-of-range joint gets further out than it
	// starts (Value is its furthest position, Limit the start), or it turns
	// away from its range at some point (Value is that velocity, Limit 0).
	KindRecoveryDirection Kind = "recovery_direction"
	// KindRecoveryHold: a joint inside its range moves (Value is the
	// position furthest from its start, Limit the start).
	KindRecoveryHold Kind = "recovery_hold"
	// KindRecoverySpeed: faster than the recovery fraction of the velocity
	// limit (Limit is that signed cap; 0 when the joint has no velocity limit).
	KindRecoverySpeed Kind = "recovery_speed"
)

// OutOfRange is a joint standing outside its position range: Limit is the
// bound it is past and By how far, always positive.
type OutOfRange struct {
	Joint    string  `json:"joint"`
	Position float64 `json:"position"`
	Limit    float64 `json:"limit"`
	By       float64 `json:"by"`
}

// OutOfRange lists the joints whose position lies outside their range,
// within the same tolerance the trajectory check allows; unknown joints
// and mismatched lengths are ignored (CheckTrajectory reports them).
func (l *Limits) OutOfRange(joints []string, positions []float64) []OutOfRange {
	if l == nil {
		return nil
	}
	var out []OutOfRange
	for i, name := range joints {
		k, ok := l.index[name]
		if !ok || i >= len(positions) {
			continue
		}
		if o, ok := outside(&l.joints[k], positions[i]); ok {
			out = append(out, o)
		}
	}
	return out
}

// outside reports whether p is beyond jl's position range by more than the
// check's tolerance.
func outside(jl *JointLimits, p float64) (OutOfRange, bool) {
	if !jl.HasPosition() || math.IsNaN(p) {
		return OutOfRange{}, false
	}
	lo, hi := jl.MinPosition.Value, jl.MaxPosition.Value
	tol := 1e-9 * math.Max(1, math.Max(math.Abs(lo), math.Abs(hi)))
	switch {
	case p > hi+tol:
		return OutOfRange{Joint: jl.Name, Position: p, Limit: hi, By: p - hi}, true
	case p < lo-tol:
		return OutOfRange{Joint: jl.Name, Position: p, Limit: lo, By: lo - p}, true
	}
	return OutOfRange{}, false
}

// recoveryExtent is one joint's velocity range over the whole motion and
// when it reaches its lowest and highest positions.
type recoveryExtent struct{ lo, loAt, hi, hiAt, minAt, maxAt float64 }

// recover replaces the position rule for a motion that starts out of range
// by the one way out real controllers allow: each out-of-range joint never
// gets further out than it starts and moves monotonically toward its range
// (never past its far bound, which the position check still reports), every
// joint inside its range holds, and no joint exceeds fraction of its
// velocity limit. c.ext holds each joint's exact velocity range and the
// times of its position extremes from the spline analysis.
func (c *checker) recover(lims []*JointLimits, fraction float64) {
	out := c.r.Recovery
	isOut := func(name string) (OutOfRange, bool) {
		i := slices.IndexFunc(out, func(o OutOfRange) bool { return o.Joint == name })
		if i < 0 {
			return OutOfRange{}, false
		}
		return out[i], true
	}
	// The bound a joint starts beyond is the rule it is recovering from,
	// not a violation of this motion.
	c.r.Violations = slices.DeleteFunc(c.r.Violations, func(v Violation) bool {
		o, ok := isOut(v.Joint)
		return ok && v.Kind == KindPosition && v.Limit == o.Limit
	})
	for j, jl := range lims {
		sum, e := &c.r.Joints[j], c.ext[j]
		up, down := sum.MaxPosition-sum.From, sum.From-sum.MinPosition
		if o, ok := isOut(jl.Name); ok {
			// Above the range the joint may only go down, below only up; no
			// speed, however slow, may take it past its start.
			switch {
			case o.Position > o.Limit && up > RecoveryHoldTolerance:
				c.add(jl.Name, KindRecoveryDirection, e.maxAt, sum.MaxPosition, sum.From)
			case o.Position < o.Limit && down > RecoveryHoldTolerance:
				c.add(jl.Name, KindRecoveryDirection, e.minAt, sum.MinPosition, sum.From)
			case o.Position > o.Limit && e.hi > recoveryVelocityTolerance:
				c.add(jl.Name, KindRecoveryDirection, e.hiAt, e.hi, 0)
			case o.Position < o.Limit && e.lo < -recoveryVelocityTolerance:
				c.add(jl.Name, KindRecoveryDirection, e.loAt, e.lo, 0)
			}
		} else {
			if math.Max(up, down) > RecoveryHoldTolerance {
				v := sum.MaxPosition
				if down > up {
					v = sum.MinPosition
				}
				c.add(jl.Name, KindRecoveryHold, 0, v, sum.From)
			}
			continue // a held joint's speed is within every cap
		}
		peak, at := e.hi, e.hiAt
		if -e.lo > e.hi {
			peak, at = e.lo, e.loAt
		}
		capV := 0.0
		if jl.MaxVelocity.Set() {
			capV = fraction * jl.MaxVelocity.Value
		}
		if math.Abs(peak) > capV*(1+1e-9)+1e-12 {
			c.add(jl.Name, KindRecoverySpeed, at, peak, math.Copysign(capV, peak))
		}
	}
}

// add records an instantaneous violation.
func (c *checker) add(joint string, k Kind, at, value, limit float64) {
	c.r.Violations = append(c.r.Violations, Violation{Joint: joint, Kind: k, Time: at, Value: value, Limit: limit, Start: at, End: at})
}

// Rules of a base recovery: a drive that starts outside the geofence.
const (
	// RuleRecoverySpeed: over the recovery fraction of a speed cap.
	RuleRecoverySpeed = "recovery_speed"
	// RuleRecoveryDirection: the drive does not only bring the base closer
	// to the fence (Value is the distance at the end, Limit at the start).
	RuleRecoveryDirection = "recovery_direction"
	// RuleRecoveryStraight: from outside, only straight drives and turns in
	// place are allowed; an arc's distance to the fence is not monotone.
	RuleRecoveryStraight = "recovery_straight"
)

// OutsideFence lists, per axis, how far (x, y) lies outside the fence
// (Joint is "x" or "y"); nil inside or on it.
func (b *Base) OutsideFence(x, y float64) []OutOfRange {
	if b == nil {
		return nil
	}
	f := &b.cfg.Geofence
	var out []OutOfRange
	for _, a := range []struct {
		axis      string
		v, lo, hi float64
	}{{"x", x, f.MinX, f.MaxX}, {"y", y, f.MinY, f.MaxY}} {
		switch {
		case a.v > a.hi:
			out = append(out, OutOfRange{Joint: a.axis, Position: a.v, Limit: a.hi, By: a.v - a.hi})
		case a.v < a.lo:
			out = append(out, OutOfRange{Joint: a.axis, Position: a.v, Limit: a.lo, By: a.lo - a.v})
		}
	}
	return out
}

// outside is the vector from the nearest fence point to (x, y); zero inside.
func (b *Base) outside(x, y float64) (gx, gy float64) {
	f := &b.cfg.Geofence
	return x - math.Max(f.MinX, math.Min(f.MaxX, x)), y - math.Max(f.MinY, math.Min(f.MaxY, y))
}

// recoveryDrive checks a drive from start, outside the fence, by the rules
// of the way back: at most the recovery fraction of each cap, a straight
// line or a turn in place, and a distance to the fence that only shrinks.
// Along a straight line that distance is convex, so it never grows iff it
// does not grow at the end; a translation must also end closer.
func (b *Base) recoveryDrive(start, end Pose2D, linear, angular, duration float64) []BaseViolation {
	c := &b.cfg
	var out []BaseViolation
	if lim := c.RecoveryFraction * c.MaxLinearSpeed; math.Abs(linear) > lim {
		out = append(out, BaseViolation{RuleRecoverySpeed, "linear", linear, math.Copysign(lim, linear)})
	}
	if lim := c.RecoveryFraction * c.MaxAngularSpeed; math.Abs(angular) > lim {
		out = append(out, BaseViolation{RuleRecoverySpeed, "angular", angular, math.Copysign(lim, angular)})
	}
	if duration > c.MaxDriveDuration {
		out = append(out, BaseViolation{RuleMaxDuration, "duration", duration, c.MaxDriveDuration})
	}
	if linear == 0 || duration == 0 {
		return out // a turn in place: the distance stays
	}
	if math.Abs(angular*duration) >= 1e-9 {
		return append(out, BaseViolation{RuleRecoveryStraight, "angular", angular, 0})
	}
	d0 := math.Hypot(b.outside(start.X, start.Y))
	gx, gy := b.outside(end.X, end.Y)
	dT := math.Hypot(gx, gy)
	ux, uy := math.Cos(start.Theta), math.Sin(start.Theta)
	if linear < 0 {
		ux, uy = -ux, -uy
	}
	if !(dT < d0) || ux*gx+uy*gy > 1e-9*math.Max(1, dT) {
		out = append(out, BaseViolation{RuleRecoveryDirection, "distance", dT, d0})
	}
	return out
}
