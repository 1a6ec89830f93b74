package safety

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/actbridge/actbridge/spline"
)

// Bounds on a trajectory request. Values beyond them are not robot motions;
// rejecting them keeps every polynomial in the analysis finite.
const (
	maxAbsValue = 1e6  // rad, m, per s, per s²
	maxTime     = 1e6  // s
	minSegment  = 1e-6 // s between consecutive points
)

// DefaultMaxPoints bounds the points of one trajectory unless CheckOptions
// says otherwise: ten minutes at 100 Hz is 60,000.
const DefaultMaxPoints = 100000

// Kind is what a violation exceeds.
type Kind string

// Violation kinds. Effort is not checked: there is no dynamics model.
const (
	KindPosition     Kind = "position"
	KindVelocity     Kind = "velocity"
	KindAcceleration Kind = "acceleration"
	KindJerk         Kind = "jerk"
	// KindVelocityStep is a jump in commanded velocity (linear segments, a
	// non-zero final velocity) on a joint with an acceleration limit: the
	// acceleration there is unbounded.
	KindVelocityStep Kind = "velocity_step"
)

// Violation is one stretch of time during which one joint exceeds one limit.
// Limit is the bound crossed, signed (−max_velocity for the lower side);
// Value is the worst value, at Time; Start..End is the whole stretch.
//
// A workspace violation (workspace.go) names the Link instead of a joint,
// the Point (base link frame, metres) at its worst sample, the forbidden
// Zone if any, and the Axis whose face it crosses: Value is the point's
// coordinate on that axis and Limit the face's (for tool_speed: m/s).
type Violation struct {
	Joint string     `json:"joint,omitempty"`
	Link  string     `json:"link,omitempty"`
	Kind  Kind       `json:"kind"`
	Zone  string     `json:"zone,omitempty"`
	Axis  string     `json:"axis,omitempty"`
	Point [3]float64 `json:"point,omitzero"`
	Time  float64    `json:"time"`
	Value float64    `json:"value"`
	Limit float64    `json:"limit"`
	Start float64    `json:"start"`
	End   float64    `json:"end"`
}

// WarningKind is what a warning is about.
type WarningKind string

// Warning kinds.
const (
	WarnNearPositionLimit     WarningKind = "near_position_limit"
	WarnNearVelocityLimit     WarningKind = "near_velocity_limit"
	WarnNearAccelerationLimit WarningKind = "near_acceleration_limit"
	WarnLargeMotion           WarningKind = "large_motion"
	WarnLongDuration          WarningKind = "long_duration"
	WarnVelocityStep          WarningKind = "velocity_step" // on a joint without acceleration limit
)

// Warning is something within limits that a human should still see.
// Limit is the limit or the configured threshold.
type Warning struct {
	Joint string      `json:"joint,omitempty"`
	Kind  WarningKind `json:"kind"`
	Time  float64     `json:"time"`
	Value float64     `json:"value"`
	Limit float64     `json:"limit"`
}

// JointSummary describes one joint's motion for a preview. Limits are 0
// when the joint has none.
type JointSummary struct {
	Joint             string  `json:"joint"`
	From              float64 `json:"from"`
	To                float64 `json:"to"` // after the controller's wraparound
	Delta             float64 `json:"delta"`
	MinPosition       float64 `json:"min_position"` // swept range
	MaxPosition       float64 `json:"max_position"`
	PeakVelocity      float64 `json:"peak_velocity"` // signed, largest magnitude
	VelocityLimit     float64 `json:"velocity_limit"`
	PercentOfLimit    float64 `json:"percent_of_limit"` // of the velocity limit
	PeakAcceleration  float64 `json:"peak_acceleration"`
	AccelerationLimit float64 `json:"acceleration_limit"`
}

// Report is the result of CheckTrajectory. OK means no violation; warnings
// do not block.
type Report struct {
	Duration   float64        `json:"duration"`
	Violations []Violation    `json:"violations"`
	Joints     []JointSummary `json:"joints"`
	Warnings   []Warning      `json:"warnings"`
	// Recovery lists the joints that start outside their position range; when
	// it is not empty the recovery rules (recovery.go) replaced those ranges.
	Recovery   []OutOfRange       `json:"recovery,omitempty"`
	Trajectory *spline.Trajectory `json:"-"` // what was checked, for sampling previews
	// Tool is the tool link's path when CheckOptions.Workspace is set.
	Tool *ToolPath `json:"tool,omitempty"`
}

// OK reports whether the trajectory stays within every limit.
func (r *Report) OK() bool { return len(r.Violations) == 0 }

// CheckOptions tunes warnings and bounds; a zero (or invalid) field means
// its default.
type CheckOptions struct {
	NearLimitFraction    float64 // warn within this fraction of a limit; default 0.05
	LargeMotion          float64 // rad, rotary joints; default π/2
	LargeMotionPrismatic float64 // m; default 0.25
	LongDuration         float64 // s; default 30
	MaxPoints            int     // default DefaultMaxPoints
	// RecoveryFraction caps every joint's speed, as a share of its velocity
	// limit, in a motion that starts out of range; default DefaultRecoveryFraction.
	RecoveryFraction float64
	// Workspace, when set, checks the arm's Cartesian limits on the same
	// spline and reports the tool's path; the trajectory must name every
	// movable joint of its chain.
	Workspace *Workspace
}

func (o CheckOptions) withDefaults() CheckOptions {
	def := func(v *float64, d float64) {
		if !(*v > 0) || math.IsInf(*v, 0) {
			*v = d
		}
	}
	def(&o.NearLimitFraction, 0.05)
	def(&o.LargeMotion, math.Pi/2)
	def(&o.LargeMotionPrismatic, 0.25)
	def(&o.LongDuration, 30)
	if !(o.RecoveryFraction > 0 && o.RecoveryFraction <= 1) {
		o.RecoveryFraction = DefaultRecoveryFraction
	}
	if o.MaxPoints <= 0 {
		o.MaxPoints = DefaultMaxPoints
	}
	return o
}

// CheckTrajectory interpolates the trajectory exactly as the controller will
// (spline, with wraparound on continuous joints) and reports every violation
// of position, velocity, acceleration and jerk limits, per joint summaries
// and warnings. A motion that starts with a joint outside its position range
// is checked as a recovery instead (Report.Recovery, recovery.go). Malformed
// input (unknown or repeated joints, mismatched lengths, NaN/Inf, times not
// increasing) is an *InputError, not a violation.
func (l *Limits) CheckTrajectory(joints []string, start []spline.State, points []spline.Point, opt CheckOptions) (*Report, error) {
	opt = opt.withDefaults()
	lims, err := l.resolve(joints)
	if err != nil {
		return nil, err
	}
	if err := validateMotion(joints, start, points, opt.MaxPoints); err != nil {
		return nil, err
	}
	var wrap []bool
	for j, jl := range lims {
		if jl.Wraps() {
			if wrap == nil {
				wrap = make([]bool, len(lims))
			}
			wrap[j] = true
		}
	}
	tr, err := spline.NewWraparound(start, points, wrap)
	if err != nil {
		return nil, fromSplineError(err, joints)
	}
	c := checker{
		r: &Report{Duration: tr.Duration(), Joints: make([]JointSummary, len(joints)), Trajectory: tr,
			Violations: []Violation{}, Warnings: []Warning{}}, // [] rather than null in JSON
		tr:  tr,
		opt: opt,
	}
	for j, jl := range lims {
		if o, out := outside(jl, start[j].Pos); out {
			c.r.Recovery = append(c.r.Recovery, o)
		}
	}
	if c.r.Recovery != nil {
		c.ext = make([]recoveryExtent, len(lims))
	}
	var order []int
	if w := opt.Workspace; w != nil {
		if order, err = w.order(joints); err != nil {
			return nil, err
		}
		c.vmax = make([]float64, tr.Segments()*len(joints))
	}
	for j, jl := range lims {
		c.joint(j, jl, start[j])
	}
	if order != nil {
		joint := len(c.r.Violations)
		if err := c.workspace(opt.Workspace, order, c.vmax); err != nil && joint == 0 {
			return nil, err // too fast to follow, and nothing else refuses it
		}
	}
	if c.r.Recovery != nil {
		c.recover(lims, opt.RecoveryFraction)
	}
	if c.r.Duration > opt.LongDuration {
		c.r.Warnings = append(c.r.Warnings, Warning{Kind: WarnLongDuration, Time: c.r.Duration, Value: c.r.Duration, Limit: opt.LongDuration})
	}
	slices.SortStableFunc(c.r.Violations, func(a, b Violation) int { return cmp.Compare(a.Start, b.Start) })
	return c.r, nil
}

// resolve maps joint names to their limits, rejecting unknown, mimic and
// repeated names.
func (l *Limits) resolve(joints []string) ([]*JointLimits, error) {
	if l == nil {
		return nil, fmt.Errorf("limits: not loaded: %w", ErrInvalidConfig)
	}
	if len(joints) == 0 {
		return nil, &InputError{Field: "joints", Expected: "at least one joint", Actual: "none", Err: ErrEmpty}
	}
	if len(joints) > len(l.joints) {
		return nil, &InputError{Field: "joints", Expected: fmt.Sprintf("at most %d joints", len(l.joints)),
			Actual: strconv.Itoa(len(joints)), Err: ErrTooLarge}
	}
	lims := make([]*JointLimits, len(joints))
	for i, name := range joints {
		field := func() string { return "joints[" + strconv.Itoa(i) + "]" }
		k, ok := l.index[name]
		if !ok {
			return nil, &InputError{Field: field(), Joint: clip(name, 100), Expected: "a movable joint of this robot", Actual: quoteName(name), Err: ErrUnknownJoint}
		}
		if l.joints[k].Mimic != "" {
			return nil, &InputError{Field: field(), Joint: name, Expected: "joint " + quoteName(l.joints[k].Mimic) + " instead", Err: ErrMimicJoint}
		}
		lims[i] = &l.joints[k]
	}
	// Duplicates: pairwise for arm-sized lists, a map beyond.
	if len(lims) <= 32 {
		for i := range lims {
			for p := range lims[:i] {
				if lims[p] == lims[i] {
					return nil, duplicate(joints, p, i)
				}
			}
		}
	} else {
		seen := make(map[*JointLimits]int, len(lims))
		for i, jl := range lims {
			if p, dup := seen[jl]; dup {
				return nil, duplicate(joints, p, i)
			}
			seen[jl] = i
		}
	}
	return lims, nil
}

func duplicate(joints []string, first, again int) error {
	return &InputError{Field: "joints[" + strconv.Itoa(again) + "]", Joint: joints[again], Expected: "each joint once",
		Actual: "also at joints[" + strconv.Itoa(first) + "]", Err: ErrDuplicateJoint}
}

// validateMotion checks shapes and magnitudes with field names the planner
// can act on; spline would catch most of it too, without joint names.
func validateMotion(joints []string, start []spline.State, points []spline.Point, maxPoints int) error {
	J := len(joints)
	if len(start) != J {
		return &InputError{Field: "start", Expected: fmt.Sprintf("%d states, one per joint", J), Actual: strconv.Itoa(len(start)), Err: ErrLength}
	}
	for j, s := range start {
		for _, v := range [3]float64{s.Pos, s.Vel, s.Acc} {
			if badValue(v) {
				return checkValue(v, "start["+strconv.Itoa(j)+"]", joints[j])
			}
		}
	}
	if len(points) == 0 {
		return &InputError{Field: "points", Expected: "at least one point", Actual: "none", Err: ErrEmpty}
	}
	if len(points) > maxPoints {
		return &InputError{Field: "points", Expected: fmt.Sprintf("at most %d points", maxPoints), Actual: strconv.Itoa(len(points)), Err: ErrTooLarge}
	}
	prev := 0.0
	for i := range points {
		p := &points[i]
		for _, f := range [3]struct {
			name string
			v    []float64
			opt  bool
		}{{"positions", p.Positions, false}, {"velocities", p.Velocities, true}, {"accelerations", p.Accelerations, true}} {
			if len(f.v) != J && (!f.opt || len(f.v) != 0) {
				exp := strconv.Itoa(J) + " values, one per joint"
				if f.opt {
					exp += ", or none"
				}
				return &InputError{Field: pointField(i) + f.name, Expected: exp, Actual: strconv.Itoa(len(f.v)), Err: ErrLength}
			}
			for j, v := range f.v {
				if badValue(v) {
					return checkValue(v, pointField(i)+f.name+"["+strconv.Itoa(j)+"]", joints[j])
				}
			}
		}
		t := p.Time
		switch {
		case math.IsNaN(t) || math.IsInf(t, 0):
			return &InputError{Field: pointField(i) + "time_from_start", Expected: "a finite number", Actual: fmtFloat(t), Err: ErrNotFinite}
		case !(t > prev):
			return &InputError{Field: pointField(i) + "time_from_start", Expected: "more than " + fmtFloat(prev), Actual: fmtFloat(t), Err: ErrTimeOrder}
		case t-prev < minSegment:
			return &InputError{Field: pointField(i) + "time_from_start", Expected: fmt.Sprintf("at least %g s after the previous point", minSegment), Actual: fmtFloat(t), Err: ErrTimeOrder}
		case t > maxTime:
			return &InputError{Field: pointField(i) + "time_from_start", Expected: fmt.Sprintf("at most %g s", maxTime), Actual: fmtFloat(t), Err: ErrOutOfRange}
		}
		prev = t
	}
	return nil
}

// pointField is "points[i].", built only for error messages.
func pointField(i int) string { return "points[" + strconv.Itoa(i) + "]." }

// badValue is true for NaN, ±Inf and magnitudes beyond maxAbsValue.
func badValue(v float64) bool { return !(math.Abs(v) <= maxAbsValue) }

func checkValue(v float64, field, joint string) error {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return &InputError{Field: field, Joint: joint, Expected: "a finite number", Actual: fmtFloat(v), Err: ErrNotFinite}
	case math.Abs(v) > maxAbsValue:
		return &InputError{Field: field, Joint: joint, Expected: fmt.Sprintf("magnitude at most %g", float64(maxAbsValue)), Actual: fmtFloat(v), Err: ErrOutOfRange}
	}
	return nil
}

// fromSplineError names the joint of a spline error.
func fromSplineError(err error, joints []string) error {
	var se *spline.Error
	if !errors.As(err, &se) {
		return err
	}
	ie := &InputError{Field: se.Field, Err: se.Err}
	if se.Point >= 0 {
		ie.Field = "points[" + strconv.Itoa(se.Point) + "]." + se.Field
	}
	if se.Joint >= 0 && se.Joint < len(joints) {
		ie.Field += "[" + strconv.Itoa(se.Joint) + "]"
		ie.Joint = joints[se.Joint]
	}
	return ie
}

// checker accumulates one report.
type checker struct {
	r   *Report
	tr  *spline.Trajectory
	opt CheckOptions
	ext []recoveryExtent // per joint, only when recovering
	// vmax[i·J+j] is joint j's peak |velocity| on segment i, only when the
	// workspace is checked.
	vmax []float64
}

// pending is a violation that reached the end of a segment and may continue
// into the next one.
type pending struct {
	v      Violation
	active bool
}

const (
	kPos = iota
	kVel
	kAcc
	kJerk
	nKinds
)

func kindOf(k int) Kind {
	switch k {
	case kPos:
		return KindPosition
	case kVel:
		return KindVelocity
	case kAcc:
		return KindAcceleration
	}
	return KindJerk
}

// bound is one checked limit of one joint.
type bound struct {
	lo, hi, tol float64
	on          bool
}

func symmetric(l Limit) bound {
	return bound{lo: -l.Value, hi: l.Value, tol: 1e-9 * math.Max(1, l.Value), on: l.Set()}
}

func (c *checker) joint(j int, jl *JointLimits, st spline.State) {
	var bounds [nKinds]bound
	if jl.HasPosition() {
		lo, hi := jl.MinPosition.Value, jl.MaxPosition.Value
		bounds[kPos] = bound{lo: lo, hi: hi, tol: 1e-9 * math.Max(1, math.Max(math.Abs(lo), math.Abs(hi))), on: true}
	}
	bounds[kVel] = symmetric(jl.MaxVelocity)
	bounds[kAcc] = symmetric(jl.MaxAcceleration)
	bounds[kJerk] = symmetric(jl.MaxJerk)

	var (
		open     [nKinds][2]pending
		violated [nKinds]bool
		sum      = JointSummary{Joint: jl.Name, From: st.Pos, MinPosition: st.Pos, MaxPosition: st.Pos}
		minAt    float64
		maxAt    float64
		vAt, aAt float64
		vPrev    = st.Vel
		stepTol  = 1e-9 * math.Max(1, jl.MaxVelocity.Value)
		nseg     = c.tr.Segments()
		exs      [6]excursion
		lastEndP float64
	)
	step := func(at, dv float64) {
		if math.Abs(dv) <= stepTol {
			return
		}
		if jl.MaxAcceleration.Set() {
			violated[kAcc] = true
			c.r.Violations = append(c.r.Violations, Violation{Joint: jl.Name, Kind: KindVelocityStep, Time: at, Value: dv, Start: at, End: at})
		} else {
			c.r.Warnings = append(c.r.Warnings, Warning{Joint: jl.Name, Kind: WarnVelocityStep, Time: at, Value: dv})
		}
	}
	var an analysis // reused: it is large, and quick or full overwrite what is read
	for i := 0; i < nseg; i++ {
		seg := c.tr.Segment(i, j)
		T, t0 := seg.Duration, seg.Start
		an.exact = false
		an.quick(&seg.Coef, T, bounds[kJerk].on)
		if !an.exact || an.beyond(&bounds) {
			an.full(&seg.Coef, T, bounds[kJerk].on)
		}

		step(t0, an.v0-vPrev)
		vPrev = an.vT
		lastEndP = an.pT

		ext := &an.ext
		if c.vmax != nil {
			c.vmax[i*len(c.r.Joints)+j] = math.Max(-ext[kVel].lo, ext[kVel].hi)
		}
		if c.ext != nil {
			v, e := &c.ext[j], ext[kVel]
			if i == 0 || e.lo < v.lo {
				v.lo, v.loAt = e.lo, t0+e.loAt
			}
			if i == 0 || e.hi > v.hi {
				v.hi, v.hiAt = e.hi, t0+e.hiAt
			}
		}
		if e := ext[kPos]; e.lo < sum.MinPosition {
			sum.MinPosition, minAt = e.lo, t0+e.loAt
		}
		if e := ext[kPos]; e.hi > sum.MaxPosition {
			sum.MaxPosition, maxAt = e.hi, t0+e.hiAt
		}
		if e := ext[kVel]; -e.lo > math.Abs(sum.PeakVelocity) || e.hi > math.Abs(sum.PeakVelocity) {
			if e.hi >= -e.lo {
				sum.PeakVelocity, vAt = e.hi, t0+e.hiAt
			} else {
				sum.PeakVelocity, vAt = e.lo, t0+e.loAt
			}
		}
		if e := ext[kAcc]; -e.lo > math.Abs(sum.PeakAcceleration) || e.hi > math.Abs(sum.PeakAcceleration) {
			if e.hi >= -e.lo {
				sum.PeakAcceleration, aAt = e.hi, t0+e.hiAt
			} else {
				sum.PeakAcceleration, aAt = e.lo, t0+e.loAt
			}
		}

		for k := range nKinds {
			b := &bounds[k]
			if !b.on {
				continue
			}
			var found []excursion
			if ext[k].hi > b.hi+b.tol || ext[k].lo < b.lo-b.tol {
				found = an.prof[k].excursions(&an.poly[k], &an.poly[k+1], b.lo, b.hi, b.tol, &exs)
			}
			if len(found) == 0 && !open[k][0].active && !open[k][1].active {
				continue
			}
			for s, side := range [2]int8{1, -1} {
				c.merge(&open[k][s], found, side, jl.Name, kindOf(k), b, t0, T, &violated[k])
			}
		}
	}
	step(c.r.Duration, 0-vPrev)
	for k := range open {
		for s := range open[k] {
			c.flush(&open[k][s])
		}
	}

	if c.ext != nil {
		c.ext[j].minAt, c.ext[j].maxAt = minAt, maxAt
	}
	sum.To = lastEndP
	sum.Delta = sum.To - sum.From
	sum.VelocityLimit = limitValue(jl.MaxVelocity)
	sum.AccelerationLimit = limitValue(jl.MaxAcceleration)
	if sum.VelocityLimit > 0 {
		sum.PercentOfLimit = 100 * math.Abs(sum.PeakVelocity) / sum.VelocityLimit
	}
	c.r.Joints[j] = sum
	c.warnings(jl, &sum, violated, minAt, maxAt, vAt, aAt)
}

// merge folds one segment's excursions on one side into the pending
// violation: a stretch that continues across the waypoint is one violation.
func (c *checker) merge(p *pending, found []excursion, side int8, joint string, kind Kind, b *bound, t0, T float64, violated *bool) {
	first := true
	for _, e := range found {
		if e.side != side {
			continue
		}
		*violated = true
		if first && p.active && e.start == 0 {
			p.v.End = t0 + e.end
			if (side > 0 && e.worst > p.v.Value) || (side < 0 && e.worst < p.v.Value) {
				p.v.Value, p.v.Time = e.worst, t0+e.worstAt
			}
		} else {
			c.flush(p)
			limit := b.hi
			if side < 0 {
				limit = b.lo
			}
			*p = pending{active: true, v: Violation{Joint: joint, Kind: kind, Time: t0 + e.worstAt, Value: e.worst, Limit: limit, Start: t0 + e.start, End: t0 + e.end}}
		}
		first = false
		if e.end < T {
			c.flush(p)
		}
	}
	if first {
		c.flush(p)
	}
}

func (c *checker) flush(p *pending) {
	if p.active {
		c.r.Violations = append(c.r.Violations, p.v)
		p.active = false
	}
}

func (c *checker) warnings(jl *JointLimits, sum *JointSummary, violated [nKinds]bool, minAt, maxAt, vAt, aAt float64) {
	frac := c.opt.NearLimitFraction
	add := func(kind WarningKind, at, value, limit float64) {
		c.r.Warnings = append(c.r.Warnings, Warning{Joint: jl.Name, Kind: kind, Time: at, Value: value, Limit: limit})
	}
	if jl.HasPosition() && !violated[kPos] {
		margin := frac * (jl.MaxPosition.Value - jl.MinPosition.Value)
		// Only when the motion brings the joint there, not when it starts there.
		if sum.MaxPosition > jl.MaxPosition.Value-margin && sum.MaxPosition > sum.From {
			add(WarnNearPositionLimit, maxAt, sum.MaxPosition, jl.MaxPosition.Value)
		}
		if sum.MinPosition < jl.MinPosition.Value+margin && sum.MinPosition < sum.From {
			add(WarnNearPositionLimit, minAt, sum.MinPosition, jl.MinPosition.Value)
		}
	}
	if v := math.Abs(sum.PeakVelocity); jl.MaxVelocity.Set() && !violated[kVel] && v > 0 && v >= (1-frac)*jl.MaxVelocity.Value {
		add(WarnNearVelocityLimit, vAt, sum.PeakVelocity, jl.MaxVelocity.Value)
	}
	if a := math.Abs(sum.PeakAcceleration); jl.MaxAcceleration.Set() && !violated[kAcc] && a > 0 && a >= (1-frac)*jl.MaxAcceleration.Value {
		add(WarnNearAccelerationLimit, aAt, sum.PeakAcceleration, jl.MaxAcceleration.Value)
	}
	threshold := c.opt.LargeMotion
	if jl.Type == Prismatic {
		threshold = c.opt.LargeMotionPrismatic
	}
	if up, down := sum.MaxPosition-sum.From, sum.From-sum.MinPosition; math.Max(up, down) > threshold {
		at, value := maxAt, sum.MaxPosition
		if down > up {
			at, value = minAt, sum.MinPosition
		}
		add(WarnLargeMotion, at, value-sum.From, threshold)
	}
}

// peak is the sample of largest magnitude.
func peak(pr *profile) (y, x float64) {
	for k := 0; k < pr.n; k++ {
		if math.Abs(pr.y[k]) > math.Abs(y) || k == 0 {
			y, x = pr.y[k], pr.x[k]
		}
	}
	return y, x
}

func limitValue(l Limit) float64 {
	if l.Set() {
		return l.Value
	}
	return 0
}
