package bridge

import (
	"testing"

	"github.com/actbridge/actbridge/safety"
	"github.com/actbridge/actbridge/spline"
)

func TestPositionUseIsTheReachFromTheRangesCentreTowardsALimit(t *testing.T) {
	for _, c := range []struct {
		name                string
		lo, hi, min, max, w float64
	}{
		{"at the centre", -2, 2, 0, 0, 0},
		{"halfway up", -2, 2, 0, 1, 50},
		{"halfway down counts the same", -2, 2, -1, 0, 50},
		{"the farther end of the sweep counts", -2, 2, -0.5, 1.5, 75},
		{"at a limit", 0, 0.08, 0, 0.02, 100},
		{"an off-centre range", 1, 3, 2.5, 2.5, 50},
		{"outside the range", -1, 1, 0, 1.5, 150},
		{"an empty range is all used", 1, 1, 1, 1, 100},
	} {
		if got := PositionUse(c.lo, c.hi, c.min, c.max); got != c.w {
			t.Errorf("%s: PositionUse(%g, %g, %g, %g) = %g, want %g", c.name, c.lo, c.hi, c.min, c.max, got, c.w)
		}
	}
}

func TestArmCheckReportsTheShareOfEachLimitTheMotionUses(t *testing.T) {
	lim, err := safety.NewLimits([]safety.JointLimits{
		{Name: "a", Type: safety.Revolute, MinPosition: safety.Limit{Value: -2, Source: safety.SourceURDF}, MaxPosition: safety.Limit{Value: 2, Source: safety.SourceURDF},
			MaxVelocity: safety.Limit{Value: 2, Source: safety.SourceURDF}, MaxAcceleration: safety.Limit{Value: 4, Source: safety.SourceYAML}},
		{Name: "w", Type: safety.Continuous, MaxVelocity: safety.Limit{Value: 2, Source: safety.SourceURDF}},
	})
	if err != nil {
		t.Fatal(err)
	}
	// A cubic from rest to rest, 1 rad in 2 s on a, w held: peak velocity
	// 1.5·1/2 = 0.75 rad/s, peak acceleration 6·1/2² = 1.5 rad/s².
	chk, err := SafetyArm{Limits: lim}.Check([]string{"a", "w"}, []spline.State{{}, {}},
		[]spline.Point{{Positions: []float64{1, 0}, Velocities: []float64{0, 0}, Time: 2}})
	if err != nil || len(chk.Violations) > 0 {
		t.Fatalf("check: %v %+v", err, chk.Violations)
	}
	a, w := chk.Use["a"], chk.Use["w"]
	if a.Position == nil || *a.Position != 50 || a.Velocity == nil || *a.Velocity != 37.5 || a.Acceleration == nil || *a.Acceleration != 37.5 {
		t.Fatalf("a uses %+v", a)
	}
	if w.Position != nil || w.Acceleration != nil || w.Velocity == nil || *w.Velocity != 0 {
		t.Fatalf("w (continuous, no acceleration limit, held) uses %+v", w)
	}
}
