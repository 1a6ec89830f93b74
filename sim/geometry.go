package sim

import "math"

// The sim's own 3-D geometry: rigid transforms for its forward kinematics
// and a GJK intersection test for its collision shapes. It shares nothing
// with the bridge's kinematics, which the sim is there to check.

type vec3 [3]float64

func (a vec3) add(b vec3) vec3      { return vec3{a[0] + b[0], a[1] + b[1], a[2] + b[2]} }
func (a vec3) sub(b vec3) vec3      { return vec3{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }
func (a vec3) scale(k float64) vec3 { return vec3{a[0] * k, a[1] * k, a[2] * k} }
func (a vec3) dot(b vec3) float64   { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
func (a vec3) norm() float64        { return math.Sqrt(a.dot(a)) }

func (a vec3) cross(b vec3) vec3 {
	return vec3{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}

// mat3 is a rotation, row-major.
type mat3 [3][3]float64

func identity() mat3 { return mat3{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}} }

func (m mat3) mul(n mat3) mat3 {
	var out mat3
	for i := range 3 {
		for j := range 3 {
			out[i][j] = m[i][0]*n[0][j] + m[i][1]*n[1][j] + m[i][2]*n[2][j]
		}
	}
	return out
}

func (m mat3) apply(v vec3) vec3 {
	return vec3{vec3(m[0]).dot(v), vec3(m[1]).dot(v), vec3(m[2]).dot(v)}
}

// col is the i-th column: the i-th axis of the rotated frame.
func (m mat3) col(i int) vec3 { return vec3{m[0][i], m[1][i], m[2][i]} }

// rpy is URDF's fixed-axis roll, pitch, yaw: Rz(yaw)·Ry(pitch)·Rx(roll).
func rpy(r, p, y float64) mat3 {
	sr, cr := math.Sincos(r)
	sp, cp := math.Sincos(p)
	sy, cy := math.Sincos(y)
	return mat3{
		{cy * cp, cy*sp*sr - sy*cr, cy*sp*cr + sy*sr},
		{sy * cp, sy*sp*sr + cy*cr, sy*sp*cr - cy*sr},
		{-sp, cp * sr, cp * cr},
	}
}

// axisAngle is the rotation by angle about the unit axis u (Rodrigues).
func axisAngle(u vec3, angle float64) mat3 {
	s, c := math.Sincos(angle)
	t := 1 - c
	x, y, z := u[0], u[1], u[2]
	return mat3{
		{t*x*x + c, t*x*y - s*z, t*x*z + s*y},
		{t*x*y + s*z, t*y*y + c, t*y*z - s*x},
		{t*x*z - s*y, t*y*z + s*x, t*z*z + c},
	}
}

// transform is a rigid motion: rotate by r, then move by p.
type transform struct {
	r mat3
	p vec3
}

func identityTransform() transform { return transform{r: identity()} }

// then is t followed by u expressed in t's frame (t·u).
func (t transform) then(u transform) transform {
	return transform{r: t.r.mul(u.r), p: t.p.add(t.r.apply(u.p))}
}

// convex is a convex shape in the world, known by its support function:
// its farthest point in direction d.
type convex interface {
	support(d vec3) vec3
}

// box is an oriented box: centre, axes (columns of r) and half extents.
type box struct {
	c    vec3
	r    mat3
	half vec3
}

func (b box) support(d vec3) vec3 {
	p := b.c
	for i := range 3 {
		a := b.r.col(i)
		p = p.add(a.scale(math.Copysign(b.half[i], a.dot(d))))
	}
	return p
}

// cylinder is centred at c with its axis along the unit vector axis.
type cylinder struct {
	c, axis      vec3
	radius, half float64 // half the length
}

func (y cylinder) support(d vec3) vec3 {
	along := y.axis.dot(d)
	p := y.c.add(y.axis.scale(math.Copysign(y.half, along)))
	radial := d.sub(y.axis.scale(along))
	if n := radial.norm(); n > 1e-12 {
		p = p.add(radial.scale(y.radius / n))
	}
	return p
}

// sphere is centred at c.
type sphere struct {
	c      vec3
	radius float64
}

func (s sphere) support(d vec3) vec3 {
	if n := d.norm(); n > 1e-12 {
		return s.c.add(d.scale(s.radius / n))
	}
	return s.c
}

// aabb is an axis-aligned box: the table.
type aabb struct{ min, max vec3 }

func (b aabb) support(d vec3) vec3 {
	var p vec3
	for i := range 3 {
		p[i] = b.min[i]
		if d[i] > 0 {
			p[i] = b.max[i]
		}
	}
	return p
}

// gjkIterations bounds the search; convex pairs converge in a few steps.
const gjkIterations = 64

// intersects reports whether two convex shapes overlap or touch, by the
// Gilbert–Johnson–Keerthi test: it searches the Minkowski difference a−b
// for a simplex around the origin.
func intersects(a, b convex) bool {
	sup := func(d vec3) vec3 { return a.support(d).sub(b.support(d.scale(-1))) }
	c := sup(vec3{1, 0, 0})
	d := c.scale(-1)
	if d.norm() < 1e-12 {
		return true
	}
	bb := sup(d)
	if bb.dot(d) < 0 {
		return false
	}
	cb := c.sub(bb)
	d = cb.cross(bb.scale(-1)).cross(cb)
	if d.norm() < 1e-12 { // the origin is on the segment
		return true
	}
	s := simplex{pts: [4]vec3{bb, c}, n: 2}
	for range gjkIterations {
		p := sup(d)
		if p.dot(d) < 0 {
			return false
		}
		var inside bool
		d, inside = s.push(p)
		if inside || d.norm() < 1e-12 {
			return true
		}
	}
	return false
}

// simplex holds up to four points of the Minkowski difference, newest
// first: pts[0] is a, then b, c, d in the winding the cases below keep.
type simplex struct {
	pts [4]vec3
	n   int
}

// push adds the newest point and reduces the simplex to the feature
// nearest the origin; it returns the next search direction, or inside
// when the tetrahedron encloses the origin.
func (s *simplex) push(a vec3) (vec3, bool) {
	b, c, d := s.pts[0], s.pts[1], s.pts[2]
	ao := a.scale(-1)
	if s.n == 2 {
		return s.triangle(a, b, c, ao), false
	}
	abc := b.sub(a).cross(c.sub(a))
	acd := c.sub(a).cross(d.sub(a))
	adb := d.sub(a).cross(b.sub(a))
	switch {
	case abc.dot(ao) > 0:
		s.pts, s.n = [4]vec3{a, b, c}, 3
		return abc, false
	case acd.dot(ao) > 0:
		s.pts, s.n = [4]vec3{a, c, d}, 3
		return acd, false
	case adb.dot(ao) > 0:
		s.pts, s.n = [4]vec3{a, d, b}, 3
		return adb, false
	}
	return vec3{}, true
}

// triangle reduces the triangle abc (a newest) to an edge or keeps it,
// wound so that the search direction is its normal.
func (s *simplex) triangle(a, b, c, ao vec3) vec3 {
	ab, ac := b.sub(a), c.sub(a)
	n := ab.cross(ac)
	if ab.cross(n).dot(ao) > 0 {
		s.pts, s.n = [4]vec3{a, b}, 2
		return ab.cross(ao).cross(ab)
	}
	if n.cross(ac).dot(ao) > 0 {
		s.pts, s.n = [4]vec3{a, c}, 2
		return ac.cross(ao).cross(ac)
	}
	if n.dot(ao) > 0 {
		s.pts, s.n = [4]vec3{a, b, c}, 3
		return n
	}
	s.pts, s.n = [4]vec3{a, c, b}, 3
	return n.scale(-1)
}
