package spline

// Kind is the interpolation a segment uses, chosen from what both of its end
// states specify.
type Kind uint8

// Segment kinds, in the order ros_control picks them.
const (
	Linear  Kind = iota + 1 // positions only
	Cubic                   // positions and velocities
	Quintic                 // positions, velocities and accelerations
)

func (k Kind) String() string {
	switch k {
	case Linear:
		return "linear"
	case Cubic:
		return "cubic"
	case Quintic:
		return "quintic"
	}
	return "unknown"
}

// Segment is one joint's polynomial between two consecutive states:
// position(τ) = Σ Coef[k]·τ^k for τ = time − Start in [0, Duration].
type Segment struct {
	Start    float64
	Duration float64
	Kind     Kind
	Coef     [6]float64
}

// Eval samples the polynomial at local time tau without clamping, the way
// QuinticSplineSegment::sample does (power sums, same operation order).
func (s *Segment) Eval(tau float64) State {
	c := &s.Coef
	t1 := tau
	t2 := t1 * tau
	t3 := t2 * tau
	t4 := t3 * tau
	t5 := t4 * tau
	return State{
		Pos: c[0] + t1*c[1] + t2*c[2] + t3*c[3] + t4*c[4] + t5*c[5],
		Vel: c[1] + 2*t1*c[2] + 3*t2*c[3] + 4*t3*c[4] + 5*t4*c[5],
		Acc: 2*c[2] + 6*t1*c[3] + 12*t2*c[4] + 20*t3*c[5],
	}
}

// coefficients fills c for one joint with the formulas of
// QuinticSplineSegment::computeCoefficients (T > 0 is guaranteed by New).
func coefficients(k Kind, s State, e State, T float64, c *[6]float64) {
	c[0] = s.Pos
	switch k {
	case Linear:
		c[1] = (e.Pos - s.Pos) / T
		c[2], c[3], c[4], c[5] = 0, 0, 0, 0
	case Cubic:
		T2 := T * T
		T3 := T2 * T
		c[1] = s.Vel
		c[2] = (-3.0*s.Pos + 3.0*e.Pos - 2.0*s.Vel*T - e.Vel*T) / T2
		c[3] = (2.0*s.Pos - 2.0*e.Pos + s.Vel*T + e.Vel*T) / T3
		c[4], c[5] = 0, 0
	case Quintic:
		T2 := T * T
		T3 := T2 * T
		T4 := T3 * T
		T5 := T4 * T
		c[1] = s.Vel
		c[2] = 0.5 * s.Acc
		c[3] = (-20.0*s.Pos + 20.0*e.Pos - 3.0*s.Acc*T2 + e.Acc*T2 -
			12.0*s.Vel*T - 8.0*e.Vel*T) / (2.0 * T3)
		c[4] = (30.0*s.Pos - 30.0*e.Pos + 3.0*s.Acc*T2 - 2.0*e.Acc*T2 +
			16.0*s.Vel*T + 14.0*e.Vel*T) / (2.0 * T4)
		c[5] = (-12.0*s.Pos + 12.0*e.Pos - s.Acc*T2 + e.Acc*T2 -
			6.0*s.Vel*T - 6.0*e.Vel*T) / (2.0 * T5)
	}
}
