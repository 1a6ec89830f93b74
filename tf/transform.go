package tf

import (
	"math"

	"github.com/actbridge/actbridge/kinematics"
)

// Transform is a rigid motion: rotate by Rotation, then translate by
// Translation. As a frame's transform it gives the child's pose in its
// parent (tf2's convention: it maps child coordinates into the parent).
type Transform struct {
	Translation kinematics.Vec3 `json:"translation"`
	Rotation    kinematics.Quat `json:"rotation"`
}

// Identity is the transform that moves nothing.
var Identity = Transform{Rotation: kinematics.Identity}

// Mul returns a∘b: b's result expressed in a's parent.
func (a Transform) Mul(b Transform) Transform {
	return Transform{
		Translation: add(a.Translation, rotate(a.Rotation, b.Translation)),
		Rotation:    qmul(a.Rotation, b.Rotation),
	}
}

// Inverse returns the transform that undoes a.
func (a Transform) Inverse() Transform {
	qi := conj(a.Rotation)
	p := rotate(qi, a.Translation)
	return Transform{Translation: kinematics.Vec3{-p[0], -p[1], -p[2]}, Rotation: qi}
}

// Apply maps a point of the child frame into the parent frame.
func (a Transform) Apply(p kinematics.Vec3) kinematics.Vec3 {
	return add(a.Translation, rotate(a.Rotation, p))
}

// Pose returns a as the pose of the child in the parent.
func (a Transform) Pose() kinematics.Pose {
	return kinematics.Pose{Position: a.Translation, Orientation: a.Rotation}
}

// interpolate returns the transform a fraction s in [0, 1] of the way from
// a to b: linear in translation, spherical in rotation, as tf2 does.
func interpolate(a, b Transform, s float64) Transform {
	var t kinematics.Vec3
	for i := range t {
		t[i] = a.Translation[i] + s*(b.Translation[i]-a.Translation[i])
	}
	return Transform{Translation: t, Rotation: slerp(a.Rotation, b.Rotation, s)}
}

func add(a, b kinematics.Vec3) kinematics.Vec3 {
	return kinematics.Vec3{a[0] + b[0], a[1] + b[1], a[2] + b[2]}
}

// qmul is the Hamilton product of x, y, z, w quaternions.
func qmul(a, b kinematics.Quat) kinematics.Quat {
	return kinematics.Quat{
		a[3]*b[0] + a[0]*b[3] + a[1]*b[2] - a[2]*b[1],
		a[3]*b[1] - a[0]*b[2] + a[1]*b[3] + a[2]*b[0],
		a[3]*b[2] + a[0]*b[1] - a[1]*b[0] + a[2]*b[3],
		a[3]*b[3] - a[0]*b[0] - a[1]*b[1] - a[2]*b[2],
	}
}

func conj(q kinematics.Quat) kinematics.Quat { return kinematics.Quat{-q[0], -q[1], -q[2], q[3]} }

// rotate returns v rotated by the unit quaternion q.
func rotate(q kinematics.Quat, v kinematics.Vec3) kinematics.Vec3 {
	// v' = v + 2w(u×v) + 2u×(u×v), u the vector part.
	u := kinematics.Vec3{q[0], q[1], q[2]}
	c := cross(u, v)
	cc := cross(u, c)
	w := q[3]
	return kinematics.Vec3{
		v[0] + 2*(w*c[0]+cc[0]),
		v[1] + 2*(w*c[1]+cc[1]),
		v[2] + 2*(w*c[2]+cc[2]),
	}
}

func cross(a, b kinematics.Vec3) kinematics.Vec3 {
	return kinematics.Vec3{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}

// slerp interpolates unit quaternions on the shorter arc.
func slerp(a, b kinematics.Quat, s float64) kinematics.Quat {
	dot := a[0]*b[0] + a[1]*b[1] + a[2]*b[2] + a[3]*b[3]
	if dot < 0 {
		b = kinematics.Quat{-b[0], -b[1], -b[2], -b[3]}
		dot = -dot
	}
	var wa, wb float64
	if dot > 0.9995 { // nearly equal: linear, then normalise
		wa, wb = 1-s, s
	} else {
		th := math.Acos(dot)
		sin := math.Sin(th)
		wa, wb = math.Sin((1-s)*th)/sin, math.Sin(s*th)/sin
	}
	var q kinematics.Quat
	for i := range q {
		q[i] = wa*a[i] + wb*b[i]
	}
	return normalise(q)
}

func normalise(q kinematics.Quat) kinematics.Quat {
	n := math.Sqrt(q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3])
	return kinematics.Quat{q[0] / n, q[1] / n, q[2] / n, q[3] / n}
}

// Ground projects a onto the ground plane, as a base moves: the origin's
// x and y, the heading (yaw about z, rad), and how far a's z axis tilts
// from the parent's (rad), which a caller should bound: a map→odom link
// that tilts is a broken localisation, not a slope.
func (a Transform) Ground() (x, y, yaw, tilt float64) {
	q := a.Rotation
	yaw = math.Atan2(2*(q[3]*q[2]+q[0]*q[1]), 1-2*(q[1]*q[1]+q[2]*q[2]))
	zz := 1 - 2*(q[0]*q[0]+q[1]*q[1]) // the rotated z axis' z component
	tilt = math.Acos(math.Max(-1, math.Min(1, zz)))
	return a.Translation[0], a.Translation[1], yaw, tilt
}
