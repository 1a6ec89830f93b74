package kinematics_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/actbridge/actbridge/kinematics"
)

// seedNear is q moved by dist on every joint (sign from a fixed sequence),
// clamped into the bounds: the "current state" an IK call starts from.
func seedNear(c *kinematics.Chain, q []float64, dist float64, salt int) []float64 {
	r := rand.New(rand.NewPCG(uint64(salt), 36))
	s := make([]float64, len(q))
	for i := range q {
		v := q[i] + dist
		if r.IntN(2) == 0 {
			v = q[i] - dist
		}
		lo, hi := c.Bounds(i)
		s[i] = math.Min(math.Max(v, lo), hi)
	}
	return s
}

// randomJoints is a joint vector inside the bounds (continuous joints
// within ±π), kept 0.05 inside them.
func randomJoints(c *kinematics.Chain, r *rand.Rand) []float64 {
	q := make([]float64, len(c.Joints()))
	for i := range q {
		lo, hi := c.Bounds(i)
		lo, hi = math.Max(lo, -math.Pi)+0.05, math.Min(hi, math.Pi)-0.05
		q[i] = lo + r.Float64()*(hi-lo)
	}
	return q
}

func equalJoints(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

// poseError is the distance and rotation angle between two poses, computed
// from rotation matrices, not with the package's code: the Frobenius
// distance of two rotations θ apart is 2√2·sin(θ/2), precise near 0 where
// the trace formula's acos is not.
func poseError(a, b kinematics.Pose) (float64, float64) {
	dp := math.Sqrt(sq(a.Position[0]-b.Position[0]) + sq(a.Position[1]-b.Position[1]) + sq(a.Position[2]-b.Position[2]))
	ra, rb := matrix(a.Orientation), matrix(b.Orientation)
	chord := 0.0
	for i := range ra {
		chord += sq(ra[i] - rb[i])
	}
	return dp, 2 * math.Asin(math.Min(1, math.Sqrt(chord/8)))
}

func sq(v float64) float64 { return v * v }

func within(c *kinematics.Chain, q []float64) bool {
	for i, v := range q {
		if lo, hi := c.Bounds(i); v < lo || v > hi {
			return false
		}
	}
	return true
}

// FK(IK(pose)) = pose within 1e-6 m and 1e-6 rad, from seeds 0.5 rad (or
// m) away on every joint, with the solution inside the joint bounds: on the
// twist arm (prismatic joint, skew axes), the sim arm and the UR5-style arm,
// for full poses and for positions only.
func TestIKRoundTrip(t *testing.T) {
	for _, ch := range []struct{ path, base, tool string }{
		{twistURDF, "world", "tool"},
		{simURDF, "base_link", "gripper_base_link"},
		{ab6URDF, "base_link", "tool0"},
	} {
		c := chain(t, ch.path, ch.base, ch.tool)
		d := c.NewData()
		r := rand.New(rand.NewPCG(36, 1))
		for n := 0; n < 60; n++ {
			q := randomJoints(c, r)
			if err := c.FK(d, q); err != nil {
				t.Fatal(err)
			}
			goal := kinematics.Goal{Pose: d.ToolPose(), PositionOnly: n%4 == 3}
			seed := seedNear(c, q, 0.5, n)
			s, err := c.IK(d, goal, seed)
			if err != nil {
				t.Errorf("%s→%s IK(FK(%v)) from %v: %v", ch.base, ch.tool, q, seed, err)
				continue
			}
			if !within(c, s.Joints) {
				t.Errorf("%s→%s solution %v outside the bounds", ch.base, ch.tool, s.Joints)
			}
			for i, v := range s.Joints {
				if lo, _ := c.Bounds(i); math.IsInf(lo, -1) && math.Abs(v-seed[i]) > math.Pi {
					t.Errorf("continuous joint %s: %g is more than π from the seed %g", c.Joints()[i], v, seed[i])
				}
			}
			if err := c.FK(d, s.Joints); err != nil {
				t.Fatal(err)
			}
			dp, da := poseError(d.ToolPose(), goal.Pose)
			if goal.PositionOnly {
				da = 0
			}
			if dp > 1e-6 || da > 1e-6 {
				t.Errorf("%s→%s FK(IK(FK(%v))) is %g m, %g rad from the goal", ch.base, ch.tool, q, dp, da)
			}
			if s.Pose != d.ToolPose() || s.PositionError > 1e-6 || s.OrientationError > 1e-6 {
				t.Errorf("solution reports pose %v errors %g %g; FK gives %v", s.Pose, s.PositionError, s.OrientationError, d.ToolPose())
			}
		}
	}
}

// A pose out of reach is refused with ErrUnreachable, and the error's
// closest pose is real: FK of its joints, inside the bounds, as far from
// the goal as it says and no nearer than the arm's reach allows.
func TestIKRefusesUnreachablePoses(t *testing.T) {
	c := chain(t, simURDF, "base_link", "gripper_base_link")
	d := c.NewData()
	// shoulder_lift_joint is at (0.1, 0, 0.2); the tool is at most
	// 0.4 + 0.4 + 0.1 + 0.1 + 0.05 m from it.
	const reach = 1.05
	shoulder := [3]float64{0.1, 0, 0.2}
	for _, goal := range []kinematics.Goal{
		{Pose: kinematics.Pose{Position: kinematics.Vec3{3, 0, 0.5}, Orientation: kinematics.Identity}},
		{Pose: kinematics.Pose{Position: kinematics.Vec3{0, -2, 2}}, PositionOnly: true},
	} {
		_, err := c.IK(d, goal, make([]float64, 6))
		var u *kinematics.UnreachableError
		if !errors.Is(err, kinematics.ErrUnreachable) || !errors.As(err, &u) {
			t.Fatalf("IK(%v) = %v, want an UnreachableError", goal.Pose.Position, err)
		}
		if !within(c, u.Closest.Joints) {
			t.Errorf("closest joints %v outside the bounds", u.Closest.Joints)
		}
		if err := c.FK(d, u.Closest.Joints); err != nil || d.ToolPose() != u.Closest.Pose {
			t.Errorf("closest pose %v is not FK of its joints (%v)", u.Closest.Pose, d.ToolPose())
		}
		dp, _ := poseError(u.Closest.Pose, goal.Pose)
		g := goal.Pose.Position
		far := math.Sqrt(sq(g[0]-shoulder[0])+sq(g[1]-shoulder[1])+sq(g[2]-shoulder[2])) - reach
		if math.Abs(dp-u.Closest.PositionError) > 1e-9 || dp < far {
			t.Errorf("closest is %g m away, error says %g, reach allows %g", dp, u.Closest.PositionError, far)
		}
		// With an orientation to meet too the closest pose trades distance
		// for rotation; for a position alone it is the arm stretched out.
		if goal.PositionOnly && dp > far+1e-6 {
			t.Errorf("closest is %g m away, but the arm reaches within %g", dp, far)
		}
	}
}

// A pose that needs a joint beyond its bound is refused, and the closest
// pose holds that joint at the bound: j6 of the twist arm turns about an
// axis no other joint of the l4→flange chain can stand in for.
func TestIKRespectsJointLimits(t *testing.T) {
	c := chain(t, twistURDF, "l4", "flange")
	d := c.NewData()
	if err := c.FK(d, []float64{0.3, 3.05}); err != nil {
		t.Fatal(err)
	}
	_, err := c.IK(d, kinematics.Goal{Pose: d.ToolPose()}, []float64{0, 2.5})
	var u *kinematics.UnreachableError
	if !errors.As(err, &u) {
		t.Fatalf("IK beyond j6's upper bound 3.0 = %v, want an UnreachableError", err)
	}
	if j := u.Closest.Joints; math.Abs(j[0]-0.3) > 1e-6 || j[1] != 3.0 {
		t.Errorf("closest joints %v, want [0.3 3]", j)
	}
	if math.Abs(u.Closest.OrientationError-0.05) > 1e-6 || u.Closest.PositionError > 1e-6 {
		t.Errorf("closest is %g m and %g rad away, want 0 and 0.05", u.Closest.PositionError, u.Closest.OrientationError)
	}
	// The caller's ranges narrow the URDF's (j6 to [-1, 2]) and never widen
	// them.
	wide, err := c.WithBounds(map[string][2]float64{"j6": {-4, 4}})
	if err != nil {
		t.Fatal(err)
	}
	if lo, hi := wide.Bounds(1); lo != -3 || hi != 3 {
		t.Errorf("WithBounds widened j6 to [%g, %g]", lo, hi)
	}
	narrow, err := c.WithBounds(map[string][2]float64{"j6": {-1, 2}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := narrow.IK(narrow.NewData(), kinematics.Goal{Pose: d.ToolPose()}, []float64{0, 2.9}); !errors.As(err, &u) || u.Closest.Joints[1] != 2 {
		t.Errorf("IK with j6 narrowed to [-1, 2] = %v, want the closest pose at j6 = 2", err)
	}
	for _, r := range []map[string][2]float64{{"j5x": {0, 1}}, {"j6": {3.5, 4}}, {"j6": {math.NaN(), 1}}} {
		if _, err := c.WithBounds(r); !errors.Is(err, kinematics.ErrBadInput) {
			t.Errorf("WithBounds(%v) = %v, want ErrBadInput", r, err)
		}
	}
}

// The same goal and seed give bit-identical answers, with fresh or reused
// scratch, so a preview and its confirmation agree.
func TestIKIsDeterministic(t *testing.T) {
	c := chain(t, ab6URDF, "base_link", "tool0")
	d := c.NewData()
	r := rand.New(rand.NewPCG(7, 7))
	for n := 0; n < 10; n++ {
		q := randomJoints(c, r)
		if err := c.FK(d, q); err != nil {
			t.Fatal(err)
		}
		goal := kinematics.Goal{Pose: d.ToolPose()}
		seed := seedNear(c, q, 0.5, n)
		a, errA := c.IK(d, goal, seed)
		b, errB := c.IK(c.NewData(), goal, seed)
		if (errA == nil) != (errB == nil) || !equalJoints(a.Joints, b.Joints) || a.Iterations != b.Iterations {
			t.Fatalf("two IK runs differ: %v %v / %v %v", a.Joints, errA, b.Joints, errB)
		}
	}
}

// Goals that mean nothing are refused as input errors.
func TestIKRefusesBadGoals(t *testing.T) {
	c := chain(t, simURDF, "base_link", "gripper_base_link")
	d := c.NewData()
	seed := make([]float64, 6)
	for _, g := range []kinematics.Goal{
		{Pose: kinematics.Pose{Orientation: kinematics.Quat{0, 0, 0, 0}}},
		{Pose: kinematics.Pose{Orientation: kinematics.Quat{0, 0, 0, 2}}},
		{Pose: kinematics.Pose{Orientation: kinematics.Quat{math.NaN(), 0, 0, 1}}},
		{Pose: kinematics.Pose{Position: kinematics.Vec3{math.Inf(1), 0, 0}}, PositionOnly: true},
		{Pose: kinematics.Pose{Orientation: kinematics.Identity}, PositionTolerance: -1},
		{Pose: kinematics.Pose{Orientation: kinematics.Identity}, OrientationTolerance: 1e-20},
	} {
		if _, err := c.IK(d, g, seed); !errors.Is(err, kinematics.ErrBadInput) {
			t.Errorf("IK(%+v) = %v, want ErrBadInput", g, err)
		}
	}
}

// When the seed leads into a joint's bound, the solver holds that joint
// there and moves the others: the sim arm's four pitch joints reach a pose
// first approached with the elbow past its soft limit (2.5) another way.
func TestIKMovesOtherJointsWhenOneIsAtItsBound(t *testing.T) {
	c := chain(t, simURDF, "base_link", "gripper_base_link")
	d := c.NewData()
	if err := c.FK(d, []float64{0.2, 0.3, 2.55, 0.2, 0.1, 0.1}); err != nil {
		t.Fatal(err)
	}
	goal := kinematics.Goal{Pose: d.ToolPose()}
	s, err := c.IK(d, goal, []float64{0.2, 0.3, 2.0, 0.2, 0.1, 0.1})
	if err != nil {
		t.Fatal(err)
	}
	if !within(c, s.Joints) || s.PositionError > 1e-6 || s.OrientationError > 1e-6 {
		t.Errorf("solution %v: %g m, %g rad", s.Joints, s.PositionError, s.OrientationError)
	}
}

// IK's bounds are the URDF's <limit>s, narrowed by <safety_controller> soft
// limits; continuous joints have none.
func TestBoundsComeFromTheURDF(t *testing.T) {
	c := chain(t, twistURDF, "world", "tool")
	inf := math.Inf(1)
	want := [][2]float64{{-2.9, 2.9}, {-2, 2}, {-0.1, 0.35}, {-2.4, 2.3}, {-inf, inf}, {-3, 3}}
	for i, w := range want {
		if lo, hi := c.Bounds(i); lo != w[0] || hi != w[1] {
			t.Errorf("joint %s bounds [%g, %g], want %v", c.Joints()[i], lo, hi, w)
		}
	}
}
