package kinematics_test

import (
	"errors"
	"math"
	"os"
	"testing"

	"github.com/actbridge/actbridge/kinematics"
)

// Any URDF gives a model or an error, any pair of its links a chain or an
// error, and FK and IK on any chain an answer or an error: never a panic.
func FuzzChain(f *testing.F) {
	for _, p := range []string{twistURDF, simURDF, ab6URDF} {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, uint8(0), uint8(8))
	}
	f.Add([]byte(`<robot name="r"><link name="a"/><link name="b"/><joint name="j" type="prismatic"><parent link="a"/><child link="b"/><axis xyz="1e308 1e308 0"/><limit lower="-1e308" upper="1e308" velocity="1" effort="1"/></joint></robot>`), uint8(0), uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, base, tool uint8) {
		m, err := kinematics.Parse(data)
		if err != nil {
			return
		}
		links := m.Links()
		if len(links) == 0 {
			return
		}
		c, err := m.Chain(links[int(base)%len(links)], links[int(tool)%len(links)])
		if err != nil {
			return
		}
		d := c.NewData()
		q := make([]float64, len(c.Joints()))
		if err := c.FK(d, q); err != nil {
			t.Fatalf("FK at zero: %v", err)
		}
		_, err = c.IK(d, kinematics.Goal{Pose: d.ToolPose(), PositionOnly: true}, q)
		if err != nil && !errors.Is(err, kinematics.ErrUnreachable) && !errors.Is(err, kinematics.ErrBadInput) {
			t.Fatalf("IK: %v", err)
		}
	})
}

// Whatever a planner sends as a goal and seed, IK answers a solution inside
// the bounds that meets the goal, ErrUnreachable with a closest pose inside
// the bounds, or ErrBadInput: never a panic, never a NaN.
func FuzzIK(f *testing.F) {
	data, err := os.ReadFile(twistURDF)
	if err != nil {
		f.Fatal(err)
	}
	m, err := kinematics.Parse(data)
	if err != nil {
		f.Fatal(err)
	}
	c, err := m.Chain("world", "tool")
	if err != nil {
		f.Fatal(err)
	}
	d := c.NewData()
	f.Add(0.3, -0.2, 1.2, 0.0, 0.0, 0.0, 1.0, false, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
	f.Add(0.0, -0.5, 1.4, 0.5, 0.5, 0.5, 0.5, true, 1e-3, 0.0, 1e300, -3.0, 0.2, 2.0, -1e9)
	f.Fuzz(func(t *testing.T, x, y, z, qx, qy, qz, qw float64, posOnly bool, tol, s0, s1, s2, s3, s4, s5 float64) {
		goal := kinematics.Goal{Pose: kinematics.Pose{Position: kinematics.Vec3{x, y, z}, Orientation: kinematics.Quat{qx, qy, qz, qw}}, PositionOnly: posOnly, PositionTolerance: tol}
		seed := []float64{s0, s1, s2, s3, s4, s5}
		sol, err := c.IK(d, goal, seed)
		var u *kinematics.UnreachableError
		switch {
		case errors.Is(err, kinematics.ErrBadInput):
			return
		case errors.As(err, &u):
			sol = u.Closest
		case err != nil:
			t.Fatalf("IK: %v", err)
		}
		if !within(c, sol.Joints) || math.IsNaN(sol.PositionError) || math.IsNaN(sol.OrientationError) || math.IsInf(sol.PositionError, 0) {
			t.Fatalf("solution %+v", sol)
		}
		for _, v := range append(sol.Pose.Position[:], sol.Pose.Orientation[:]...) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("pose %+v", sol.Pose)
			}
		}
	})
}
