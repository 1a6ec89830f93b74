package kinematics

import (
	"fmt"
	"math"
)

// IK tolerances when a Goal leaves them zero: far below any arm's
// repeatability, far above float64's resolution of an FK.
const (
	DefaultPositionTolerance    = 1e-8 // metres
	DefaultOrientationTolerance = 1e-8 // radians
	minTolerance                = 1e-12
	// maxReach bounds a goal's coordinates (metres): no arm reaches 1000 km,
	// and squared errors of such goals would overflow.
	maxReach = 1e6
)

// The solver's budget: an attempt from the seed, then restarts from fixed
// points spread over the joint ranges, each a bounded number of steps.
const (
	ikIterations = 200
	ikRestarts   = 10
	ikMaxStep    = 0.5 // largest joint change per step (rad, m)
	ikLambda0    = 0.1 // initial damping
	ikLambdaMin  = 1e-9
	ikLambdaMax  = 1e3 // more damping than this is a stall
)

// Goal is what IK solves for: the tool link's pose in the base frame.
type Goal struct {
	Pose Pose
	// PositionOnly ignores Pose.Orientation: any orientation of the tool
	// will do.
	PositionOnly bool
	// Tolerances on the distance (metres) and the rotation angle (radians)
	// between the reached pose and Pose; zero means the defaults.
	PositionTolerance, OrientationTolerance float64
}

// Solution is joint positions (Joints order) and what they reach.
type Solution struct {
	Joints           []float64
	Pose             Pose    // the tool's pose at Joints
	PositionError    float64 // metres from the goal's position
	OrientationError float64 // radians from the goal's orientation; 0 when position-only
	Iterations       int     // solver steps taken, over all attempts
}

// UnreachableError is IK's answer when no joint positions within the
// bounds reach the goal: it carries the closest pose the solver reached.
type UnreachableError struct {
	Tool    string
	Goal    Goal
	Closest Solution
}

func (e *UnreachableError) Error() string {
	p, o := e.Closest.Pose.Position, e.Closest.Pose.Orientation
	s := fmt.Sprintf("kinematics: no joint positions within limits put %s at the goal; the closest reachable pose, position [%.6f, %.6f, %.6f] m",
		quote(e.Tool), p[0], p[1], p[2])
	if e.Goal.PositionOnly {
		return s + fmt.Sprintf(", is %.6g m away: %v", e.Closest.PositionError, ErrUnreachable)
	}
	return s + fmt.Sprintf(" orientation [%.6f, %.6f, %.6f, %.6f] (x, y, z, w), is %.6g m and %.6g rad away: %v",
		o[0], o[1], o[2], o[3], e.Closest.PositionError, e.Closest.OrientationError, ErrUnreachable)
}

func (e *UnreachableError) Unwrap() error { return ErrUnreachable }

type ikScratch struct {
	cur, try, best, dq []float64
	free               []bool
	a                  [36]float64 // J·Jᵀ + λ²I, then its Cholesky factor
	y                  [6]float64
}

func newIKScratch(n int) ikScratch {
	return ikScratch{cur: make([]float64, n), try: make([]float64, n), best: make([]float64, n), dq: make([]float64, n), free: make([]bool, n)}
}

// IK finds joint positions within the chain's bounds that put the tool at
// goal, starting from seed (typically the current joint state; a seed
// outside the bounds is clamped into them). It is damped least squares
// (Levenberg–Marquardt) on the position and rotation-vector error, with
// joints at a bound held there while the step pushes outward. When the seed
// does not lead to the goal it restarts from fixed points spread over the
// bounds; the answer is the first that converges. Everything is
// deterministic: the same chain, goal and seed give the same answer.
// Continuous joints are returned within π of the seed. When nothing
// converges the error is an *UnreachableError with the closest pose found.
func (c *Chain) IK(d *Data, goal Goal, seed []float64) (Solution, error) {
	if err := c.check(d, seed, "seed"); err != nil {
		return Solution{}, err
	}
	g, err := normalGoal(goal)
	if err != nil {
		return Solution{}, err
	}
	s := &d.ik
	bestCost, iters := math.Inf(1), 0
	for attempt := 0; attempt <= ikRestarts; attempt++ {
		c.start(s.cur, seed, attempt)
		ok, cost, n := c.solve(d, &g)
		iters += n
		if cost < bestCost || ok {
			bestCost = cost
			copy(s.best, s.cur)
		}
		if ok {
			return c.solution(d, &g, seed, iters), nil
		}
	}
	return Solution{}, &UnreachableError{Tool: c.tool, Goal: g, Closest: c.solution(d, &g, seed, iters)}
}

func normalGoal(g Goal) (Goal, error) {
	p := g.Pose.Position
	if !(math.Abs(p[0]) <= maxReach && math.Abs(p[1]) <= maxReach && math.Abs(p[2]) <= maxReach) {
		return g, fmt.Errorf("kinematics: goal position %v: want finite coordinates within %g m of the base: %w", p, maxReach, ErrBadInput)
	}
	if g.PositionOnly {
		g.Pose.Orientation = Identity
	} else {
		o := g.Pose.Orientation
		n := math.Sqrt(o[0]*o[0] + o[1]*o[1] + o[2]*o[2] + o[3]*o[3])
		if bad(n) || math.Abs(n-1) > 1e-3 {
			return g, fmt.Errorf("kinematics: goal orientation %v is not a unit quaternion (x, y, z, w; norm %g): %w", o, n, ErrBadInput)
		}
		g.Pose.Orientation = Quat{o[0] / n, o[1] / n, o[2] / n, o[3] / n}
	}
	for _, t := range []*float64{&g.PositionTolerance, &g.OrientationTolerance} {
		if bad(*t) || *t < 0 || (*t > 0 && *t < minTolerance) {
			return g, fmt.Errorf("kinematics: tolerance %g: want 0 (default) or a number ≥ %g: %w", *t, minTolerance, ErrBadInput)
		}
	}
	if g.PositionTolerance == 0 {
		g.PositionTolerance = DefaultPositionTolerance
	}
	if g.OrientationTolerance == 0 {
		g.OrientationTolerance = DefaultOrientationTolerance
	}
	return g, nil
}

func bad(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) }

// start writes attempt's initial joint positions into q: the seed, then
// points of a Kronecker sequence over the bounds (continuous joints: within
// π of the seed). Always within the bounds.
func (c *Chain) start(q, seed []float64, attempt int) {
	for i := range q {
		v := seed[i]
		if attempt > 0 {
			// frac(attempt·√p) for the i-th prime: well spread, no state.
			u := math.Mod(float64(attempt)*math.Sqrt(float64(primes[i%len(primes)])), 1)
			if lo, hi := c.lower[i], c.upper[i]; bad(lo) || bad(hi) {
				v = seed[i] + (2*u-1)*math.Pi
			} else {
				v = lo + u*(hi-lo)
			}
		}
		q[i] = math.Min(math.Max(v, c.lower[i]), c.upper[i])
	}
}

var primes = [...]int{2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37}

// solve runs damped least squares from d.ik.cur, leaving the best point of
// the attempt there and its frames in d. It reports convergence, the cost
// (squared error) at d.ik.cur and the steps taken.
func (c *Chain) solve(d *Data, g *Goal) (bool, float64, int) {
	s := &d.ik
	c.fk(d, s.cur)
	ep, er := c.errors(d, g)
	cost := sq(ep) + sq(er)
	lambda := ikLambda0
	for it := 0; it < ikIterations; it++ {
		if norm(ep) <= g.PositionTolerance && norm(er) <= g.OrientationTolerance {
			return true, cost, it
		}
		c.jacobian(d)
		e := [6]float64{ep[0], ep[1], ep[2], er[0], er[1], er[2]}
		m := 6
		if g.PositionOnly {
			m = 3
		}
		for i := range s.free {
			s.free[i] = true
		}
		// Hold joints at a bound that the step pushes outward, then solve
		// again without them.
		for pass := 0; pass < 2; pass++ {
			c.step(d, &e, m, lambda)
			held := false
			for i, v := range s.dq {
				if s.free[i] && ((s.cur[i] <= c.lower[i] && v < 0) || (s.cur[i] >= c.upper[i] && v > 0)) {
					s.free[i], held = false, true
				}
			}
			if !held {
				break
			}
		}
		for i := range s.try {
			s.try[i] = math.Min(math.Max(s.cur[i]+s.dq[i], c.lower[i]), c.upper[i])
		}
		c.fk(d, s.try)
		tp, tr := c.errors(d, g)
		if tc := sq(tp) + sq(tr); tc < cost {
			copy(s.cur, s.try)
			ep, er, cost = tp, tr, tc
			lambda = math.Max(lambda/4, ikLambdaMin)
			continue
		}
		c.fk(d, s.cur)
		if lambda *= 8; lambda > ikLambdaMax {
			return false, cost, it + 1
		}
	}
	return norm(ep) <= g.PositionTolerance && norm(er) <= g.OrientationTolerance, cost, ikIterations
}

// errors is the tool's position and rotation-vector error to the goal at
// the frames in d.
func (c *Chain) errors(d *Data, g *Goal) (Vec3, Vec3) {
	t := &d.frames[len(d.frames)-1]
	p := g.Pose.Position
	ep := Vec3{p[0] - t.p[0], p[1] - t.p[1], p[2] - t.p[2]}
	if g.PositionOnly {
		return ep, Vec3{}
	}
	return ep, rotationError(g.Pose.Orientation, quat(&t.r))
}

// step writes dq = Jᵀ(J·Jᵀ + λ²I)⁻¹e over the first m rows of J and the free
// joints, scaled so no joint moves more than ikMaxStep.
func (c *Chain) step(d *Data, e *[6]float64, m int, lambda float64) {
	s := &d.ik
	a := &s.a
	for r := 0; r < m; r++ {
		for k := 0; k <= r; k++ {
			v := 0.0
			for i, col := range d.jac {
				if s.free[i] {
					v += col[r] * col[k]
				}
			}
			a[r*m+k] = v
		}
		a[r*m+r] += lambda * lambda
	}
	// Cholesky (lower) in place, then forward and back substitution.
	for r := 0; r < m; r++ {
		for k := 0; k <= r; k++ {
			v := a[r*m+k]
			for j := 0; j < k; j++ {
				v -= a[r*m+j] * a[k*m+j]
			}
			if r == k {
				a[r*m+r] = math.Sqrt(math.Max(v, 1e-300))
			} else {
				a[r*m+k] = v / a[k*m+k]
			}
		}
	}
	y := &s.y
	for r := 0; r < m; r++ {
		v := e[r]
		for j := 0; j < r; j++ {
			v -= a[r*m+j] * y[j]
		}
		y[r] = v / a[r*m+r]
	}
	for r := m - 1; r >= 0; r-- {
		v := y[r]
		for j := r + 1; j < m; j++ {
			v -= a[j*m+r] * y[j]
		}
		y[r] = v / a[r*m+r]
	}
	big := 0.0
	for i, col := range d.jac {
		v := 0.0
		if s.free[i] {
			for r := 0; r < m; r++ {
				v += col[r] * y[r]
			}
		}
		s.dq[i] = v
		big = math.Max(big, math.Abs(v))
	}
	if big > ikMaxStep {
		for i := range s.dq {
			s.dq[i] *= ikMaxStep / big
		}
	}
}

// solution packages d.ik.best, with continuous joints within π of the
// seed, and leaves its frames in d.
func (c *Chain) solution(d *Data, g *Goal, seed []float64, iters int) Solution {
	q := append([]float64(nil), d.ik.best...)
	for i := range q {
		if bad(c.lower[i]) && bad(c.upper[i]) {
			q[i] = seed[i] + math.Remainder(q[i]-seed[i], 2*math.Pi)
		}
	}
	c.fk(d, q)
	ep, er := c.errors(d, g)
	return Solution{Joints: q, Pose: d.ToolPose(), PositionError: norm(ep), OrientationError: norm(er), Iterations: iters}
}

func sq(v Vec3) float64 { return v[0]*v[0] + v[1]*v[1] + v[2]*v[2] }
