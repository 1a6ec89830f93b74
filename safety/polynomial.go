package safety

import "math"

// poly is c[0] + c[1]·x + … + c[5]·x⁵; lower-order segments have zeros at
// the top, which keeps evaluation branch-free and unrolled.
type poly [6]float64

func (p *poly) at(x float64) float64 {
	return ((((p[5]*x+p[4])*x+p[3])*x+p[2])*x+p[1])*x + p[0]
}

// profile samples a polynomial at 0, at its interior critical points and at
// T. Between consecutive samples the polynomial is monotone, so its extremes
// are among the samples and each threshold is crossed at most once per gap:
// the analysis is exact, no sampling step can miss a peak.
type profile struct {
	n int
	x [6]float64
	y [6]float64
}

func newProfile(p *poly, crit []float64, T float64) profile {
	pr := profile{n: 1}
	pr.x[0], pr.y[0] = 0, p[0]
	for _, c := range crit {
		pr.x[pr.n], pr.y[pr.n] = c, p.at(c)
		pr.n++
	}
	pr.x[pr.n], pr.y[pr.n] = T, p.at(T)
	pr.n++
	return pr
}

// quadRoots returns the zeros of p (degree ≤ 2) strictly inside (0, T),
// sorted, in closed form; they are the critical points of p's antiderivative.
func quadRoots(p *poly, T float64, dst *[5]float64) []float64 {
	out := dst[:0]
	a, b, c := p[2], p[1], p[0]
	in := func(x float64) {
		if x > 0 && x < T {
			out = append(out, x)
		}
	}
	switch {
	case a == 0 && b == 0:
	case a == 0:
		in(-c / b)
	default:
		disc := b*b - 4*a*c
		if disc < 0 {
			break
		}
		// Stable form: no cancellation between b and the root of disc.
		q := -0.5 * (b + math.Copysign(math.Sqrt(disc), b))
		r1, r2 := q/a, math.Inf(1)
		if q != 0 {
			r2 = c / q
		}
		if r1 > r2 {
			r1, r2 = r2, r1
		}
		in(r1)
		if r2 != r1 {
			in(r2)
		}
	}
	return out
}

// roots returns the zeros of p strictly inside (0, T), sorted: one per gap
// whose ends have opposite signs. They are the critical points of p's
// antiderivative.
func (pr *profile) roots(p, dp *poly, dst *[5]float64) []float64 {
	out := dst[:0]
	// Samples within rounding of zero count as zero: a "crossing" that
	// close to a piece's end moves the antiderivative by less than the
	// rounding of its own samples, and solving for it is the slow part.
	scale := 0.0
	for k := 0; k < pr.n; k++ {
		if a := math.Abs(pr.y[k]); a > scale {
			scale = a
		}
	}
	eps := 1e-12 * scale
	sign := func(y float64) int {
		switch {
		case y > eps:
			return 1
		case y < -eps:
			return -1
		}
		return 0
	}
	for k := 1; k < pr.n; k++ {
		a, b := sign(pr.y[k-1]), sign(pr.y[k])
		if a*b < 0 {
			out = append(out, solve(p, dp, 0, pr.x[k-1], pr.x[k], pr.y[k-1], pr.y[k]))
		} else if b == 0 && a != 0 && k < pr.n-1 {
			out = append(out, pr.x[k]) // touches zero at an interior sample
		}
	}
	return out
}

// extremes returns the smallest and largest samples, where they are.
func (pr *profile) extremes() (lo, loAt, hi, hiAt float64) {
	lo, loAt, hi, hiAt = pr.y[0], pr.x[0], pr.y[0], pr.x[0]
	for k := 1; k < pr.n; k++ {
		if y := pr.y[k]; y < lo {
			lo, loAt = y, pr.x[k]
		} else if y > hi {
			hi, hiAt = y, pr.x[k]
		}
	}
	return lo, loAt, hi, hiAt
}

// excursion is a stretch of one segment where a polynomial is beyond a bound.
type excursion struct {
	start, end     float64 // local time
	worst, worstAt float64
	side           int8 // +1 above the upper bound, -1 below the lower
}

// excursions finds where p leaves [lo, hi]. A value counts as beyond a bound
// only past the tolerance tol, so rounding never raises a violation; the
// crossing times are those of the bound itself.
func (pr *profile) excursions(p, dp *poly, lo, hi, tol float64, dst *[6]excursion) []excursion {
	out := dst[:0]
	for _, side := range [2]int8{1, -1} {
		bound, beyond := hi, func(y float64) bool { return y > hi+tol }
		if side == -1 {
			bound, beyond = lo, func(y float64) bool { return y < lo-tol }
		}
		var cur excursion
		inside := false
		for k := 0; k < pr.n; k++ {
			y := pr.y[k]
			switch {
			case !inside && beyond(y):
				inside = true
				cur = excursion{start: pr.x[k], worst: y, worstAt: pr.x[k], side: side}
				if k > 0 {
					cur.start = solve(p, dp, bound, pr.x[k-1], pr.x[k], pr.y[k-1]-bound, y-bound)
				}
			case inside && beyond(y):
				if (side > 0 && y > cur.worst) || (side < 0 && y < cur.worst) {
					cur.worst, cur.worstAt = y, pr.x[k]
				}
			case inside:
				cur.end = solve(p, dp, bound, pr.x[k-1], pr.x[k], pr.y[k-1]-bound, y-bound)
				out = append(out, cur)
				inside = false
			}
		}
		if inside {
			cur.end = pr.x[pr.n-1]
			out = append(out, cur)
		}
	}
	return out
}

// solve finds x in [a, b] with p(x) = target, where p is monotone on [a, b]
// and fa = p(a) − target, fb = p(b) − target: Newton steps from the
// regula falsi point, kept inside a shrinking bracket, bisection when
// Newton would leave it.
func solve(p, dp *poly, target, a, b, fa, fb float64) float64 {
	switch {
	case fa == 0:
		return a
	case fb == 0:
		return b
	case (fa < 0) == (fb < 0):
		if math.Abs(fa) <= math.Abs(fb) {
			return a
		}
		return b
	}
	lo, hi := a, b // the bracket; p − target changes sign across it
	flo := fa
	tol := 1e-12 * (b - a)
	x := a - fa*(b-a)/(fb-fa)
	if !(x > lo && x < hi) {
		x = 0.5 * (lo + hi)
	}
	for range 64 {
		f := p.at(x) - target
		if f == 0 {
			return x
		}
		if (f < 0) == (flo < 0) {
			lo, flo = x, f
		} else {
			hi = x
		}
		nx := x - f/dp.at(x)
		if !(nx > lo && nx < hi) {
			nx = 0.5 * (lo + hi)
		}
		if d := nx - x; d <= tol && d >= -tol {
			return nx
		}
		x = nx
	}
	return x
}
