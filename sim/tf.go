package sim

import (
	"math"
	"time"
)

// MapFrame is the fixed world frame: the parent of OdomFrame, the frame
// the base's true pose and the table are in.
const MapFrame = "map"

// Transform is a child frame's pose in its parent frame at a time, as a
// geometry_msgs/TransformStamped carries it.
type Transform struct {
	Stamp        time.Time
	Frame, Child string
	Translation  Point3
	Rotation     Quaternion
}

// TFMessage is a batch of transforms for /tf, or for /tf_static when
// Static (the faces publish those latched).
type TFMessage struct {
	Static     bool
	Transforms []Transform
}

func (*TFMessage) message() {}

// driftLocked is map→odom: the odometry's accumulated error,
// Config.OdomDrift per simulated second since the start, which a
// localisation's map→odom compensates.
func (r *Robot) driftLocked() Pose2D {
	t := r.clock.Elapsed().Seconds()
	d := r.cfg.OdomDrift
	return Pose2D{X: d.X * t, Y: d.Y * t, Yaw: wrapAngle(d.Yaw * t)}
}

// odomPoseLocked is the base's pose as its odometry has it: the true pose
// seen from the drifted odom frame.
func (r *Robot) odomPoseLocked() Pose2D {
	return compose2D(invert2D(r.driftLocked()), r.base.pose)
}

// compose2D is b given in a's frame, expressed in a's parent (a·b).
func compose2D(a, b Pose2D) Pose2D {
	s, c := math.Sincos(a.Yaw)
	return Pose2D{X: a.X + c*b.X - s*b.Y, Y: a.Y + s*b.X + c*b.Y, Yaw: wrapAngle(a.Yaw + b.Yaw)}
}

// invert2D is the inverse planar motion of a.
func invert2D(a Pose2D) Pose2D {
	s, c := math.Sincos(a.Yaw)
	return Pose2D{X: -(c*a.X + s*a.Y), Y: -(-s*a.X + c*a.Y), Yaw: wrapAngle(-a.Yaw)}
}

func planarTransform(stamp time.Time, frame, child string, p Pose2D) Transform {
	x, y, z, w := quaternionFromYaw(p.Yaw)
	return Transform{Stamp: stamp, Frame: frame, Child: child, Translation: Point3{X: p.X, Y: p.Y},
		Rotation: Quaternion{X: x, Y: y, Z: z, W: w}}
}

// tfLocked is what /tf carries at now: map→odom, odom→base_footprint and
// every moving joint's parent→child link transform from the sim's own
// forward kinematics, as robot_state_publisher sends them.
func (r *Robot) tfLocked(now time.Time) *TFMessage {
	m := &TFMessage{Transforms: []Transform{
		planarTransform(now, MapFrame, OdomFrame, r.driftLocked()),
		planarTransform(now, OdomFrame, BaseFrame, r.odomPoseLocked()),
	}}
	q := r.positionsLocked()
	for _, j := range r.model.joints {
		if j.typ != "fixed" {
			m.Transforms = append(m.Transforms, linkTransform(now, j, j.motion(q[j.name])))
		}
	}
	return m
}

// StaticTransforms is what /tf_static carries: every fixed joint's
// parent→child transform, stamped with the start of simulated time, and
// base_footprint→the URDF's root when the root is another link (the sim
// puts the root where the base is).
func (r *Robot) StaticTransforms() *TFMessage {
	m := &TFMessage{Static: true, Transforms: []Transform{}}
	if r.model.root != BaseFrame {
		m.Transforms = append(m.Transforms, linkTransform(r.cfg.Epoch, treeJoint{parent: BaseFrame, child: r.model.root}, identityTransform()))
	}
	for _, j := range r.model.joints {
		if j.typ == "fixed" {
			m.Transforms = append(m.Transforms, linkTransform(r.cfg.Epoch, j, j.origin))
		}
	}
	return m
}

func linkTransform(stamp time.Time, j treeJoint, t transform) Transform {
	x, y, z, w := t.r.quaternion()
	return Transform{Stamp: stamp, Frame: j.parent, Child: j.child,
		Translation: Point3{X: t.p[0], Y: t.p[1], Z: t.p[2]}, Rotation: Quaternion{X: x, Y: y, Z: z, W: w}}
}

// quaternion is the rotation's unit quaternion (x, y, z, w), w ≥ 0.
func (m mat3) quaternion() (x, y, z, w float64) {
	tr := m[0][0] + m[1][1] + m[2][2]
	switch {
	case tr > 0:
		s := 2 * math.Sqrt(tr+1)
		w, x, y, z = s/4, (m[2][1]-m[1][2])/s, (m[0][2]-m[2][0])/s, (m[1][0]-m[0][1])/s
	case m[0][0] > m[1][1] && m[0][0] > m[2][2]:
		s := 2 * math.Sqrt(1+m[0][0]-m[1][1]-m[2][2])
		w, x, y, z = (m[2][1]-m[1][2])/s, s/4, (m[0][1]+m[1][0])/s, (m[0][2]+m[2][0])/s
	case m[1][1] > m[2][2]:
		s := 2 * math.Sqrt(1+m[1][1]-m[0][0]-m[2][2])
		w, x, y, z = (m[0][2]-m[2][0])/s, (m[0][1]+m[1][0])/s, s/4, (m[1][2]+m[2][1])/s
	default:
		s := 2 * math.Sqrt(1+m[2][2]-m[0][0]-m[1][1])
		w, x, y, z = (m[1][0]-m[0][1])/s, (m[0][2]+m[2][0])/s, (m[1][2]+m[2][1])/s, s/4
	}
	if w < 0 {
		x, y, z, w = -x, -y, -z, -w
	}
	return x, y, z, w
}
