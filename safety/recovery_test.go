package safety

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/actbridge/actbridge/spline"
)

// recoveryArm is two joints in [-1, 1] rad at 1 rad/s: at the default
// fraction a recovery may move at 0.1 rad/s.
func recoveryArm(t *testing.T) *Limits {
	t.Helper()
	j := func(name string) JointLimits {
		return JointLimits{Name: name, Type: Revolute, MinPosition: Limit{-1, SourceURDF}, MaxPosition: Limit{1, SourceURDF},
			MaxVelocity: Limit{1, SourceURDF}, MaxAcceleration: Limit{10, SourceYAML}}
	}
	l, err := NewLimits([]JointLimits{j("a"), j("b")})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func kinds(vs []Violation) []string {
	var out []string
	for _, v := range vs {
		out = append(out, v.Joint+":"+string(v.Kind))
	}
	slices.Sort(out)
	return out
}

func TestFromOutOfRangeOnlyASlowMonotoneMoveTowardTheRangeWithOthersHeldPasses(t *testing.T) {
	l := recoveryArm(t)
	joints := []string{"a", "b"}
	// waypoints: a's positions fall at every waypoint, but the planner's
	// velocity at t=2 points outward, so the cubic spline turns back up.
	reversal := []spline.Point{
		{Positions: []float64{1.1, 0}, Velocities: []float64{0.08, 0}, Time: 2},
		{Positions: []float64{1.0, 0}, Velocities: []float64{0, 0}, Time: 4},
	}
	// a creeps outward at just under the speed allowance from its start
	// for ten minutes, then comes to rest: 0.6 rad further out.
	const creep = 0.999 * recoveryVelocityTolerance
	creeping := []spline.Point{
		{Positions: []float64{1.2 + 599*creep, 0}, Velocities: []float64{creep, 0}, Accelerations: []float64{0, 0}, Time: 599},
		{Positions: []float64{1.2 + 599.5*creep, 0}, Velocities: []float64{0, 0}, Accelerations: []float64{0, 0}, Time: 600},
	}
	for _, tc := range []struct {
		name     string
		from, to []float64
		v0       float64 // a's start velocity
		T        float64
		points   []spline.Point // instead of a rest-to-rest move to `to`
		fraction float64
		want     []string // violations as joint:kind; nil = allowed
	}{
		{name: "slowly toward the range over ten minutes", from: []float64{1.2, 0}, to: []float64{1.0, 0}, T: 600},
		{name: "toward the range from a start velocity of noise level outward", from: []float64{1.2, 0}, v0: 5e-4, to: []float64{0.9, 0}, T: 6},
		{name: "slowly further out, under the speed allowance", from: []float64{1.2, 0}, to: []float64{1.5, 0}, T: 600, want: []string{"a:recovery_direction"}},
		{name: "slowly further out below the range", from: []float64{-1.2, 0}, to: []float64{-1.5, 0}, T: 600, want: []string{"a:recovery_direction"}},
		{name: "outward just under the speed allowance all along", from: []float64{1.2, 0}, v0: creep, points: creeping, want: []string{"a:recovery_direction"}},
		{name: "toward the range into it", from: []float64{1.2, 0}, to: []float64{0.9, 0}, T: 6},
		{name: "toward the range, still outside at the end", from: []float64{1.2, 0}, to: []float64{1.1, 0}, T: 3},
		{name: "up from below the range", from: []float64{-1.3, 0}, to: []float64{-0.9, 0}, T: 10},
		{name: "faster under a configured fraction", from: []float64{1.2, 0}, to: []float64{0.9, 0}, T: 3, fraction: 0.5},
		{name: "further out", from: []float64{1.2, 0}, to: []float64{1.3, 0}, T: 6, want: []string{"a:recovery_direction"}},
		{name: "overshoot past the far limit", from: []float64{1.2, 0}, to: []float64{-1.1, 0}, T: 60, want: []string{"a:position"}},
		{name: "an in-range joint moves", from: []float64{1.2, 0}, to: []float64{0.9, 0.1}, T: 6, want: []string{"b:recovery_hold"}},
		{name: "an in-range joint alone moves", from: []float64{1.2, 0}, to: []float64{1.2, -0.5}, T: 10, want: []string{"b:recovery_hold"}},
		{name: "too fast", from: []float64{1.2, 0}, to: []float64{0.9, 0}, T: 3, want: []string{"a:recovery_speed"}},
		{name: "spline turns outward between falling waypoints", from: []float64{1.2, 0}, points: reversal, want: []string{"a:recovery_direction"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start, pts := restToRest(tc.from, tc.to, tc.T)
			start[0].Vel = tc.v0
			if tc.points != nil {
				pts = tc.points
			}
			r, err := l.CheckTrajectory(joints, start, pts, CheckOptions{RecoveryFraction: tc.fraction})
			if err != nil {
				t.Fatal(err)
			}
			if got := kinds(r.Violations); !slices.Equal(got, tc.want) {
				t.Fatalf("violations %v, want %v (%+v)", got, tc.want, r.Violations)
			}
			if len(r.Recovery) != 1 || r.Recovery[0].Joint != "a" || r.Recovery[0].Position != tc.from[0] {
				t.Fatalf("recovery %+v", r.Recovery)
			}
		})
	}
}

func TestOutOfRangeNamesTheBoundCrossedAndByHowMuch(t *testing.T) {
	l := recoveryArm(t)
	got := l.OutOfRange([]string{"a", "b", "nope"}, []float64{1.25, -1.5, 9})
	want := []OutOfRange{{Joint: "a", Position: 1.25, Limit: 1, By: 0.25}, {Joint: "b", Position: -1.5, Limit: -1, By: 0.5}}
	if !slices.Equal(got, want) {
		t.Fatalf("%+v, want %+v", got, want)
	}
	start, pts := restToRest([]float64{1.25, -1.5}, []float64{1, -1}, 10)
	r, err := l.CheckTrajectory([]string{"a", "b"}, start, pts, CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r.Recovery, want) || !r.OK() {
		t.Fatalf("recovery %+v violations %+v", r.Recovery, r.Violations)
	}
}

func TestAMotionFromInsideTheRangesIsNoRecovery(t *testing.T) {
	l := recoveryArm(t)
	start, pts := restToRest([]float64{0.5, 0}, []float64{0.9, 0.3}, 3) // both move, faster than 0.1 rad/s
	r, err := l.CheckTrajectory([]string{"a", "b"}, start, pts, CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Recovery != nil || !r.OK() {
		t.Fatalf("recovery %+v violations %+v", r.Recovery, r.Violations)
	}
}

func TestFromOutsideTheFenceOnlyASlowDriveThatNeverGetsFurtherPasses(t *testing.T) {
	fence := Fence{Frame: "map", MinX: -2, MaxX: 3, MinY: -1, MaxY: 1}
	west, north := math.Pi, math.Pi/2
	for _, tc := range []struct {
		name          string
		fraction      float64
		start         Pose2D
		lin, ang, dur float64
		want          []string // rules; nil = allowed
	}{
		{name: "toward the fence", start: Pose2D{4, 0, west}, lin: 0.05, dur: 10},
		{name: "back inside", start: Pose2D{3.4, 0, west}, lin: 0.05, dur: 10},
		{name: "reversing toward it", start: Pose2D{4, 0, 0}, lin: -0.05, dur: 10},
		{name: "turn in place", start: Pose2D{4, 0, 0}, ang: 0.1, dur: 10},
		{name: "along the corner, then along the side", start: Pose2D{3.5, 1.5, west}, lin: 0.05, dur: 10},
		{name: "away", start: Pose2D{4, 0, west}, lin: -0.05, dur: 10, want: []string{RuleRecoveryDirection}},
		{name: "along the fence outside", start: Pose2D{4, 0, north}, lin: 0.05, dur: 10, want: []string{RuleRecoveryDirection}},
		{name: "through the fence and out the far side", fraction: 1, start: Pose2D{0, 1.5, -north}, lin: 0.5, dur: 7, want: []string{RuleRecoveryDirection}},
		{name: "closer at the end but further on the way", fraction: 1, start: Pose2D{5, -1.5, north}, lin: 0.5, dur: 5.4, want: []string{RuleRecoveryDirection}},
		{name: "too fast", start: Pose2D{4, 0, west}, lin: 0.2, dur: 2, want: []string{RuleRecoverySpeed}},
		{name: "turning too fast", start: Pose2D{4, 0, 0}, ang: 0.5, dur: 2, want: []string{RuleRecoverySpeed}},
		{name: "an arc", start: Pose2D{4, 0, west}, lin: 0.05, ang: 0.05, dur: 10, want: []string{RuleRecoveryStraight}},
		{name: "too long", start: Pose2D{4, 0, west}, lin: 0.05, dur: 11, want: []string{RuleMaxDuration}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := NewBase(BaseConfig{MaxLinearSpeed: 0.5, MaxAngularSpeed: 1, Geofence: fence, RecoveryFraction: tc.fraction})
			if err != nil {
				t.Fatal(err)
			}
			if b.OutsideFence(tc.start.X, tc.start.Y) == nil {
				t.Fatal("the start is not outside the fence")
			}
			_, vs, err := b.CheckDrive("map", tc.start, tc.lin, tc.ang, tc.dur)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, v := range vs {
				got = append(got, v.Rule)
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("rules %v, want %v (%+v)", got, tc.want, vs)
			}
		})
	}
}

func TestOutsideFenceNamesEachAxisAndHowFar(t *testing.T) {
	b, err := NewBase(BaseConfig{MaxLinearSpeed: 0.5, MaxAngularSpeed: 1, Geofence: Fence{Frame: "map", MinX: -2, MaxX: 3, MinY: -1, MaxY: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if got := b.OutsideFence(3, -1); got != nil {
		t.Fatalf("on the fence: %+v", got)
	}
	want := []OutOfRange{{Joint: "x", Position: -2.5, Limit: -2, By: 0.5}, {Joint: "y", Position: 1.25, Limit: 1, By: 0.25}}
	if got := b.OutsideFence(-2.5, 1.25); !slices.Equal(got, want) {
		t.Fatalf("%+v, want %+v", got, want)
	}
	if _, err := NewBase(BaseConfig{MaxLinearSpeed: 0.5, MaxAngularSpeed: 1, Geofence: b.Config().Geofence, RecoveryFraction: 1.5}); !errors.Is(err, ErrInvalidConfig) {
		t.Fatalf("recovery fraction 1.5: %v", err)
	}
}
