package spline

import "math"

// State is one joint's position, velocity and acceleration.
type State struct{ Pos, Vel, Acc float64 }

// Point is a trajectory_msgs/JointTrajectoryPoint: one value per joint in
// Positions; Velocities and Accelerations are either empty or one per joint.
type Point struct {
	Positions     []float64
	Velocities    []float64
	Accelerations []float64
	Time          float64 // time_from_start, seconds
}

// Trajectory is built once and sampled many times; it is immutable and safe
// for concurrent use.
type Trajectory struct {
	joints int
	ends   []float64 // end time of each segment; segment i starts at ends[i-1] (0 for i = 0)
	kinds  []Kind
	coef   []float64 // [segment][joint][6]
}

// New builds the trajectory the controller would execute from start (the
// current state, one per joint) through points. It copies what it needs.
func New(start []State, points []Point) (*Trajectory, error) {
	return build(start, points, nil)
}

// NewWraparound is New with ros_control's handling of continuous joints:
// where wrap[j] is true, every point of joint j is shifted by
// WrapOffset(start[j].Pos, points[0].Positions[j]). wrap may be nil.
func NewWraparound(start []State, points []Point, wrap []bool) (*Trajectory, error) {
	if len(wrap) != 0 && len(wrap) != len(start) {
		return nil, &Error{Point: -1, Joint: -1, Field: "wraparound", Err: ErrLength}
	}
	return build(start, points, wrap)
}

func build(start []State, points []Point, wrap []bool) (*Trajectory, error) {
	if err := validate(start, points); err != nil {
		return nil, err
	}
	J, n := len(start), len(points)
	buf := make([]float64, n+n*J*6)
	t := &Trajectory{joints: J, ends: buf[:n:n], kinds: make([]Kind, n), coef: buf[n:]}
	var offBuf [16]float64
	off := offBuf[:0]
	if len(wrap) != 0 {
		if J > len(offBuf) {
			off = make([]float64, J)
		}
		off = off[:J]
		for j := range off {
			if wrap[j] {
				off[j] = WrapOffset(start[j].Pos, points[0].Positions[j])
			}
		}
	}
	prevT := 0.0
	for i := range points {
		k := segmentKind(i, points)
		t.ends[i], t.kinds[i] = points[i].Time, k
		T := points[i].Time - prevT
		coef := t.coef[i*J*6 : (i+1)*J*6]
		for j := 0; j < J; j++ {
			var s State
			if i == 0 {
				s = start[j]
			} else {
				s = pointState(&points[i-1], j, off)
			}
			c := (*[6]float64)(coef[j*6:])
			coefficients(k, s, pointState(&points[i], j, off), T, c)
			// NaN and ±Inf survive multiplication by zero, finite values do not.
			if z := c[0]*0 + c[1]*0 + c[2]*0 + c[3]*0 + c[4]*0 + c[5]*0; z != 0 {
				return nil, &Error{Point: i, Joint: j, Field: "coefficients", Err: ErrNotFinite}
			}
		}
		prevT = points[i].Time
	}
	return t, nil
}

// segmentKind is the lowest common specification of segment i's two ends;
// the start state of segment 0 always has velocity and acceleration.
func segmentKind(i int, points []Point) Kind {
	hasVel := len(points[i].Velocities) != 0
	hasAcc := len(points[i].Accelerations) != 0
	if i > 0 {
		hasVel = hasVel && len(points[i-1].Velocities) != 0
		hasAcc = hasAcc && len(points[i-1].Accelerations) != 0
	}
	switch {
	case !hasVel:
		return Linear
	case !hasAcc:
		return Cubic
	}
	return Quintic
}

func pointState(p *Point, j int, off []float64) State {
	s := State{Pos: p.Positions[j]}
	if len(off) != 0 {
		s.Pos += off[j]
	}
	if len(p.Velocities) != 0 {
		s.Vel = p.Velocities[j]
	}
	if len(p.Accelerations) != 0 {
		s.Acc = p.Accelerations[j]
	}
	return s
}

func validate(start []State, points []Point) error {
	J := len(start)
	if J == 0 {
		return &Error{Point: -1, Joint: -1, Field: "start", Err: ErrEmpty}
	}
	if len(points) == 0 {
		return &Error{Point: -1, Joint: -1, Field: "points", Err: ErrEmpty}
	}
	for j, s := range start {
		if !finite(s.Pos) || !finite(s.Vel) || !finite(s.Acc) {
			return &Error{Point: -1, Joint: j, Field: "start", Err: ErrNotFinite}
		}
	}
	prev := 0.0
	for i := range points {
		p := &points[i]
		if len(p.Positions) != J {
			return &Error{Point: i, Joint: -1, Field: "positions", Err: ErrLength}
		}
		if len(p.Velocities) != 0 && len(p.Velocities) != J {
			return &Error{Point: i, Joint: -1, Field: "velocities", Err: ErrLength}
		}
		if len(p.Accelerations) != 0 && len(p.Accelerations) != J {
			return &Error{Point: i, Joint: -1, Field: "accelerations", Err: ErrLength}
		}
		if !finite(p.Time) {
			return &Error{Point: i, Joint: -1, Field: "time", Err: ErrNotFinite}
		}
		if !(p.Time > prev) {
			return &Error{Point: i, Joint: -1, Field: "time", Err: ErrTimeOrder}
		}
		// T⁵ must neither underflow nor overflow, or the quintic's
		// coefficients silently stop matching its end state.
		if T := p.Time - prev; T*T*T*T*T == 0 || math.IsInf(T*T*T*T*T, 0) {
			return &Error{Point: i, Joint: -1, Field: "time", Err: ErrTimeRange}
		}
		prev = p.Time
		if j := firstNonFinite(p.Positions); j >= 0 {
			return &Error{Point: i, Joint: j, Field: "positions", Err: ErrNotFinite}
		}
		if j := firstNonFinite(p.Velocities); j >= 0 {
			return &Error{Point: i, Joint: j, Field: "velocities", Err: ErrNotFinite}
		}
		if j := firstNonFinite(p.Accelerations); j >= 0 {
			return &Error{Point: i, Joint: j, Field: "accelerations", Err: ErrNotFinite}
		}
	}
	return nil
}

// At fills out[j] with joint j's commanded state at time seconds from start.
// Before 0 (or at NaN) it gives the start position at rest, after Duration
// the last position at rest. It fills min(len(out), Joints()) entries and
// never allocates.
func (t *Trajectory) At(time float64, out []State) {
	if t == nil || len(t.ends) == 0 {
		return
	}
	n := len(t.ends)
	J := min(len(out), t.joints)
	switch {
	case !(time >= 0):
		t.hold(0, 0, out[:J])
		return
	case time > t.ends[n-1]:
		t.hold(n-1, t.ends[n-1]-t.segStart(n-1), out[:J])
		return
	}
	// The segment that starts at or before time, as ros_control's findSegment.
	lo, hi := 0, n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if t.ends[m] > time {
			hi = m
		} else {
			lo = m + 1
		}
	}
	i := min(lo, n-1)
	tau := time - t.segStart(i)
	for j := range out[:J] {
		s := Segment{Coef: *(*[6]float64)(t.coef[(i*t.joints+j)*6:])}
		out[j] = s.Eval(tau)
	}
}

func (t *Trajectory) hold(i int, tau float64, out []State) {
	for j := range out {
		s := Segment{Coef: *(*[6]float64)(t.coef[(i*t.joints+j)*6:])}
		out[j] = State{Pos: s.Eval(tau).Pos}
	}
}

func (t *Trajectory) segStart(i int) float64 {
	if i == 0 {
		return 0
	}
	return t.ends[i-1]
}

// Duration is the last point's time_from_start.
func (t *Trajectory) Duration() float64 {
	if t == nil || len(t.ends) == 0 {
		return 0
	}
	return t.ends[len(t.ends)-1]
}

// Joints is the number of joints.
func (t *Trajectory) Joints() int {
	if t == nil {
		return 0
	}
	return t.joints
}

// Segments is the number of segments, one per point.
func (t *Trajectory) Segments() int {
	if t == nil {
		return 0
	}
	return len(t.ends)
}

// Segment returns joint j's polynomial on segment i (the zero Segment when
// out of range), for analysis that needs more than samples.
func (t *Trajectory) Segment(i, j int) Segment {
	if t == nil || i < 0 || i >= len(t.ends) || j < 0 || j >= t.joints {
		return Segment{}
	}
	start := t.segStart(i)
	return Segment{
		Start:    start,
		Duration: t.ends[i] - start,
		Kind:     t.kinds[i],
		Coef:     *(*[6]float64)(t.coef[(i*t.joints+j)*6:]),
	}
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

func firstNonFinite(xs []float64) int {
	for i, x := range xs {
		if !finite(x) {
			return i
		}
	}
	return -1
}
