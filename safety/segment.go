package safety

import "math"

// extent is the range of one derivative over a segment, with where its
// ends are reached (local time).
type extent struct{ lo, loAt, hi, hiAt float64 }

func extentOf(y0, yT, T float64) extent {
	if y0 <= yT {
		return extent{y0, 0, yT, T}
	}
	return extent{yT, T, y0, 0}
}

// analysis holds one joint's exact extremes over one segment: position,
// velocity, acceleration and (when limited) jerk.
type analysis struct {
	ext        [nKinds]extent
	v0, vT, pT float64
	exact      bool // ext is exact; otherwise call full
	// Filled by full only: the polynomials P, V, A, J, snap and their
	// profiles, for locating excursions.
	poly [nKinds + 1]poly
	prof [nKinds]profile
}

// quick handles the common case of a short segment of a smooth trajectory
// without arithmetic beyond a few products: when jerk, acceleration and
// velocity have no interior zero, every derivative is monotone and its
// extremes are at the ends. Otherwise it leaves exact false.
func (an *analysis) quick(c *[6]float64, T float64, jerk bool) {
	c0, c1, c2, c3, c4, c5 := c[0], c[1], c[2], c[3], c[4], c[5]
	j0, j1, j2 := 6*c3, 24*c4, 60*c5
	jT := j0 + T*(j1+T*j2)
	if j0*jT < 0 {
		return
	}
	// The jerk's vertex −j1/(2·j2) lies inside (0, T), tested without dividing.
	vertex := j2 != 0 && j1*j2 < 0 && math.Abs(j1) < 2*math.Abs(j2)*T
	var jv float64
	if vertex {
		if jv = j0 - j1*j1/(4*j2); jv*j0 < 0 || jv*jT < 0 {
			return
		}
	}
	a0 := 2 * c2
	aT := a0 + T*(6*c3+T*(12*c4+T*20*c5))
	if a0*aT < 0 {
		return
	}
	vT := c1 + T*(2*c2+T*(3*c3+T*(4*c4+T*5*c5)))
	if c1*vT < 0 {
		return
	}
	an.pT = c0 + T*(c1+T*(c2+T*(c3+T*(c4+T*c5))))
	an.v0, an.vT = c1, vT
	an.ext[kPos] = extentOf(c0, an.pT, T)
	an.ext[kVel] = extentOf(c1, vT, T)
	an.ext[kAcc] = extentOf(a0, aT, T)
	if jerk {
		e := extentOf(j0, jT, T)
		if vertex {
			at := -j1 / (2 * j2)
			if jv < e.lo {
				e.lo, e.loAt = jv, at
			} else if jv > e.hi {
				e.hi, e.hiAt = jv, at
			}
		}
		an.ext[kJerk] = e
	}
	an.exact = true
}

// beyond reports whether any extreme is past its bound, which needs the
// profiles to locate the excursion.
func (an *analysis) beyond(b *[nKinds]bound) bool {
	for k := range nKinds {
		if b[k].on && (an.ext[k].hi > b[k].hi+b[k].tol || an.ext[k].lo < b[k].lo-b[k].tol) {
			return true
		}
	}
	return false
}

// full finds every interior extremum: jerk zeros in closed form, then
// acceleration and velocity zeros by safeguarded Newton inside the
// monotone pieces they delimit.
func (an *analysis) full(c *[6]float64, T float64, jerk bool) {
	p := &an.poly
	c0, c1, c2, c3, c4, c5 := c[0], c[1], c[2], c[3], c[4], c[5]
	p[kPos] = poly{c0, c1, c2, c3, c4, c5}
	p[kVel] = poly{c1, 2 * c2, 3 * c3, 4 * c4, 5 * c5}
	p[kAcc] = poly{2 * c2, 6 * c3, 12 * c4, 20 * c5}
	p[kJerk] = poly{6 * c3, 24 * c4, 60 * c5}
	p[nKinds] = poly{24 * c4, 120 * c5} // snap
	var rs, rj, ra, rv [5]float64
	pr := &an.prof
	pr[kAcc] = newProfile(&p[kAcc], quadRoots(&p[kJerk], T, &rj), T)
	pr[kVel] = newProfile(&p[kVel], pr[kAcc].roots(&p[kAcc], &p[kJerk], &ra), T)
	pr[kPos] = newProfile(&p[kPos], pr[kVel].roots(&p[kVel], &p[kAcc], &rv), T)
	if jerk {
		pr[kJerk] = newProfile(&p[kJerk], quadRoots(&p[nKinds], T, &rs), T)
	}
	for k := range nKinds {
		if k == kJerk && !jerk {
			continue
		}
		e := &an.ext[k]
		e.lo, e.loAt, e.hi, e.hiAt = pr[k].extremes()
	}
	an.v0, an.vT, an.pT = pr[kVel].y[0], pr[kVel].y[pr[kVel].n-1], pr[kPos].y[pr[kPos].n-1]
	an.exact = true
}
