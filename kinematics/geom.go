package kinematics

import "math"

// Vec3 is a position or direction in metres, x, y, z.
type Vec3 [3]float64

// Quat is a unit quaternion in geometry_msgs order: x, y, z, w.
type Quat [4]float64

// Identity is the quaternion of no rotation.
var Identity = Quat{0, 0, 0, 1}

// Pose is a frame's position and orientation in the chain's base frame.
type Pose struct {
	Position    Vec3 `json:"position"`
	Orientation Quat `json:"orientation"`
}

// frame is a rigid transform: rotation r (row-major 3×3) then translation p.
// Internal form; poses leave the package as Pose.
type frame struct {
	r [9]float64
	p Vec3
}

var identityFrame = frame{r: [9]float64{1, 0, 0, 0, 1, 0, 0, 0, 1}}

// mul returns a·b (b expressed in a's frame).
func mul(a, b *frame) frame {
	var o frame
	for i := 0; i < 3; i++ {
		a0, a1, a2 := a.r[3*i], a.r[3*i+1], a.r[3*i+2]
		o.r[3*i] = a0*b.r[0] + a1*b.r[3] + a2*b.r[6]
		o.r[3*i+1] = a0*b.r[1] + a1*b.r[4] + a2*b.r[7]
		o.r[3*i+2] = a0*b.r[2] + a1*b.r[5] + a2*b.r[8]
		o.p[i] = a0*b.p[0] + a1*b.p[1] + a2*b.p[2] + a.p[i]
	}
	return o
}

// rotateZ turns f about its own z axis by angle: f·Rz(angle), with the
// products mul would form for it, only those with Rz's exact zeros left
// out and its 1 taken as exactly 1 (axisAngle's is 1 − cos + cos, within
// an ulp of it).
func (f *frame) rotateZ(angle float64) {
	s, c := math.Sincos(angle)
	for i := 0; i < 3; i++ {
		a0, a1 := f.r[3*i], f.r[3*i+1]
		f.r[3*i] = a0*c + a1*s
		f.r[3*i+1] = a0*-s + a1*c
	}
}

// rotate returns r·v.
func (f *frame) rotate(v Vec3) Vec3 {
	return Vec3{
		f.r[0]*v[0] + f.r[1]*v[1] + f.r[2]*v[2],
		f.r[3]*v[0] + f.r[4]*v[1] + f.r[5]*v[2],
		f.r[6]*v[0] + f.r[7]*v[1] + f.r[8]*v[2],
	}
}

// rpyFrame is URDF's <origin>: roll about fixed X, pitch about fixed Y, yaw
// about fixed Z, i.e. R = Rz(yaw)·Ry(pitch)·Rx(roll), then xyz.
func rpyFrame(xyz, rpy [3]float64) frame {
	sr, cr := math.Sincos(rpy[0])
	sp, cp := math.Sincos(rpy[1])
	sy, cy := math.Sincos(rpy[2])
	return frame{
		r: [9]float64{
			cy * cp, cy*sp*sr - sy*cr, cy*sp*cr + sy*sr,
			sy * cp, sy*sp*sr + cy*cr, sy*sp*cr - cy*sr,
			-sp, cp * sr, cp * cr,
		},
		p: xyz,
	}
}

// axisAngle is the rotation by angle about the unit axis a (Rodrigues).
func axisAngle(a Vec3, angle float64) [9]float64 {
	s, c := math.Sincos(angle)
	t := 1 - c
	x, y, z := a[0], a[1], a[2]
	return [9]float64{
		t*x*x + c, t*x*y - s*z, t*x*z + s*y,
		t*x*y + s*z, t*y*y + c, t*y*z - s*x,
		t*x*z - s*y, t*y*z + s*x, t*z*z + c,
	}
}

// quat converts a rotation matrix to a unit quaternion with w ≥ 0
// (Shepperd's method: divide by the largest of the four candidates).
func quat(r *[9]float64) Quat {
	var q Quat
	switch tr := r[0] + r[4] + r[8]; {
	case tr > r[0] && tr > r[4] && tr > r[8]:
		s := 2 * math.Sqrt(1+tr)
		q = Quat{(r[7] - r[5]) / s, (r[2] - r[6]) / s, (r[3] - r[1]) / s, s / 4}
	case r[0] >= r[4] && r[0] >= r[8]:
		s := 2 * math.Sqrt(1+r[0]-r[4]-r[8])
		q = Quat{s / 4, (r[1] + r[3]) / s, (r[2] + r[6]) / s, (r[7] - r[5]) / s}
	case r[4] >= r[8]:
		s := 2 * math.Sqrt(1+r[4]-r[0]-r[8])
		q = Quat{(r[1] + r[3]) / s, s / 4, (r[5] + r[7]) / s, (r[2] - r[6]) / s}
	default:
		s := 2 * math.Sqrt(1+r[8]-r[0]-r[4])
		q = Quat{(r[2] + r[6]) / s, (r[5] + r[7]) / s, s / 4, (r[3] - r[1]) / s}
	}
	if q[3] < 0 {
		q = Quat{-q[0], -q[1], -q[2], -q[3]}
	}
	n := math.Sqrt(q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3])
	return Quat{q[0] / n, q[1] / n, q[2] / n, q[3] / n}
}

// pose converts a frame to a Pose.
func (f *frame) pose() Pose { return Pose{Position: f.p, Orientation: quat(&f.r)} }

// rotationError is the rotation vector (axis·angle, angle in [0, π]) that
// turns the orientation q into the goal g, in the base frame.
func rotationError(g, q Quat) Vec3 {
	// e = g ⊗ q⁻¹
	x := q[3]*g[0] - g[3]*q[0] - (g[1]*q[2] - g[2]*q[1])
	y := q[3]*g[1] - g[3]*q[1] - (g[2]*q[0] - g[0]*q[2])
	z := q[3]*g[2] - g[3]*q[2] - (g[0]*q[1] - g[1]*q[0])
	w := g[3]*q[3] + g[0]*q[0] + g[1]*q[1] + g[2]*q[2]
	if w < 0 {
		x, y, z, w = -x, -y, -z, -w
	}
	s := math.Sqrt(x*x + y*y + z*z)
	if s < 1e-12 {
		return Vec3{2 * x, 2 * y, 2 * z}
	}
	k := 2 * math.Atan2(s, w) / s
	return Vec3{k * x, k * y, k * z}
}

func norm(v Vec3) float64 { return math.Sqrt(v[0]*v[0] + v[1]*v[1] + v[2]*v[2]) }

func cross(a, b Vec3) Vec3 {
	return Vec3{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}
