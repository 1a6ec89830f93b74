package safety

import (
	"fmt"
	"math"

	"github.com/actbridge/actbridge/kinematics"
	"github.com/actbridge/actbridge/urdf"
)

// shape is a checked link's collision shape: a box (half sizes), a sphere
// (radius) or a cylinder (radius, half length about its z axis), placed in
// the link frame by origin. reach bounds the distance from the link's
// origin to any of its points.
type shape struct {
	link     int
	kind     urdf.Shape
	xyz, rpy [3]float64
	half     [3]float64 // box: half sizes; cylinder: radius, radius, half length; sphere: radius ×3
	reach    float64
}

// newShapes keeps the collisions of the links some limit applies to.
func newShapes(chain *kinematics.Chain, check []bool, cs []urdf.Collision) ([]shape, error) {
	var out []shape
	for _, c := range cs {
		k := chain.LinkIndex(c.Link)
		if k < 0 || !check[k] {
			continue
		}
		if c.Err != nil {
			return nil, fmt.Errorf("workspace: link %s is checked, but its collision shape cannot be read: %v: %w", quoteName(c.Link), c.Err, ErrInvalidConfig)
		}
		s := shape{link: k, kind: c.Shape, xyz: c.Origin.XYZ, rpy: c.Origin.RPY}
		switch c.Shape {
		case urdf.Box:
			s.half = [3]float64{c.Size[0] / 2, c.Size[1] / 2, c.Size[2] / 2}
		case urdf.Cylinder:
			s.half = [3]float64{c.Size[0], c.Size[0], c.Size[1] / 2}
		case urdf.Sphere:
			s.half = [3]float64{c.Size[0], c.Size[0], c.Size[0]}
		default:
			continue
		}
		s.reach = math.Sqrt(sq(s.xyz[0])+sq(s.xyz[1])+sq(s.xyz[2])) + math.Sqrt(sq(s.half[0])+sq(s.half[1])+sq(s.half[2]))
		out = append(out, s)
	}
	return out, nil
}

// placed is a shape at one sample: its center, axes (columns of r) and
// extent along each base axis.
type placed struct {
	c   [3]float64
	r   [9]float64
	ext [3]float64
}

func (s *shape) place(d *kinematics.Data) placed {
	c, r := d.Frame(s.link, s.xyz, s.rpy)
	p := placed{c: [3]float64(c), r: r}
	for a := range 3 {
		row := r[3*a : 3*a+3]
		switch s.kind {
		case urdf.Sphere:
			p.ext[a] = s.half[0]
		case urdf.Cylinder: // |u_a|·h + r·√(1 − u_a²), u the axis
			u := row[2]
			p.ext[a] = math.Abs(u)*s.half[2] + s.half[0]*math.Sqrt(math.Max(0, 1-u*u))
		default:
			p.ext[a] = math.Abs(row[0])*s.half[0] + math.Abs(row[1])*s.half[1] + math.Abs(row[2])*s.half[2]
		}
	}
	return p
}

// outside reports the axis on which the shape reaches furthest out of b,
// its extreme coordinate there, the face and the distance (0 when inside).
func (p *placed) outside(b *Box) (axis int, value, limit, depth float64, point [3]float64) {
	for a := range 3 {
		if d := b.Min[a] - (p.c[a] - p.ext[a]); d > 1e-9 && d > depth {
			axis, value, limit, depth = a, p.c[a]-p.ext[a], b.Min[a], d
		}
		if d := (p.c[a] + p.ext[a]) - b.Max[a]; d > 1e-9 && d > depth {
			axis, value, limit, depth = a, p.c[a]+p.ext[a], b.Max[a], d
		}
	}
	point = p.c
	point[axis] = value
	return axis, value, limit, depth, point
}

// inside reports whether the shape overlaps b and, if so, the face it
// would leave by soonest, its extreme coordinate past that face and the
// depth. Spheres and boxes are tested exactly (boxes by separating axes);
// a cylinder is tested as its bounding box.
func (p *placed) inside(s *shape, b *Box) (axis int, value, limit, depth float64, point [3]float64) {
	var bc, bh [3]float64
	for a := range 3 {
		bc[a], bh[a] = (b.Min[a]+b.Max[a])/2, (b.Max[a]-b.Min[a])/2
		if p.c[a]+p.ext[a] <= b.Min[a] || p.c[a]-p.ext[a] >= b.Max[a] {
			return 0, 0, 0, 0, point
		}
	}
	if s.kind == urdf.Sphere {
		d2 := 0.0
		for a := range 3 {
			q := math.Max(b.Min[a], math.Min(p.c[a], b.Max[a]))
			d2 += sq(p.c[a] - q)
		}
		if d2 >= sq(s.half[0]) {
			return 0, 0, 0, 0, point
		}
	} else if separated(p, s.half, bc, bh) {
		return 0, 0, 0, 0, point
	}
	depth = math.Inf(1)
	for a := range 3 {
		if d := b.Max[a] - (p.c[a] - p.ext[a]); d < depth {
			axis, value, limit, depth = a, p.c[a]-p.ext[a], b.Max[a], d
		}
		if d := (p.c[a] + p.ext[a]) - b.Min[a]; d < depth {
			axis, value, limit, depth = a, p.c[a]+p.ext[a], b.Min[a], d
		}
	}
	point = p.c
	point[axis] = value
	return axis, value, limit, math.Max(depth, 1e-12), point
}

// separated is the separating axis test of an oriented box (center p.c,
// axes the columns of p.r, half sizes h) against an axis-aligned one
// (center bc, half sizes bh): the base axes, the box's axes and their nine
// cross products.
func separated(p *placed, h, bc, bh [3]float64) bool {
	var t [3]float64
	for a := range 3 {
		t[a] = p.c[a] - bc[a]
	}
	col := func(j int) [3]float64 { return [3]float64{p.r[j], p.r[3+j], p.r[6+j]} }
	axes := make([][3]float64, 0, 15)
	for a := range 3 {
		var e [3]float64
		e[a] = 1
		axes = append(axes, e)
	}
	for j := range 3 {
		axes = append(axes, col(j))
	}
	for a := range 3 {
		var e [3]float64
		e[a] = 1
		for j := range 3 {
			u := col(j)
			x := [3]float64{e[1]*u[2] - e[2]*u[1], e[2]*u[0] - e[0]*u[2], e[0]*u[1] - e[1]*u[0]}
			if sq(x[0])+sq(x[1])+sq(x[2]) > 1e-12 {
				axes = append(axes, x)
			}
		}
	}
	for _, n := range axes {
		ra := math.Abs(n[0])*bh[0] + math.Abs(n[1])*bh[1] + math.Abs(n[2])*bh[2]
		rb := 0.0
		for j := range 3 {
			u := col(j)
			rb += math.Abs(n[0]*u[0]+n[1]*u[1]+n[2]*u[2]) * h[j]
		}
		if math.Abs(n[0]*t[0]+n[1]*t[1]+n[2]*t[2]) >= ra+rb {
			return true
		}
	}
	return false
}
