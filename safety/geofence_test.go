package safety

import (
	"errors"
	"math"
	"reflect"
	"testing"
)

func testBase(t *testing.T) *Base {
	t.Helper()
	b, err := NewBase(BaseConfig{MaxLinearSpeed: 0.5, MaxAngularSpeed: 1, Geofence: Fence{Frame: "/map", MinX: -2, MaxX: 3, MinY: -1, MaxY: 1}})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestNewBaseRequiresSpeedCapsAndAFence(t *testing.T) {
	ok := BaseConfig{MaxLinearSpeed: 0.5, MaxAngularSpeed: 1, Geofence: Fence{Frame: "map", MinX: -1, MaxX: 1, MinY: -1, MaxY: 1}}
	for _, tc := range []struct {
		name string
		mod  func(*BaseConfig)
	}{
		{"no linear cap", func(c *BaseConfig) { c.MaxLinearSpeed = 0 }},
		{"negative angular cap", func(c *BaseConfig) { c.MaxAngularSpeed = -1 }},
		{"NaN cap", func(c *BaseConfig) { c.MaxLinearSpeed = math.NaN() }},
		{"Inf duration", func(c *BaseConfig) { c.MaxDriveDuration = math.Inf(1) }},
		{"no frame", func(c *BaseConfig) { c.Geofence.Frame = " / " }},
		{"empty fence", func(c *BaseConfig) { c.Geofence.MaxX = c.Geofence.MinX }},
		{"NaN fence", func(c *BaseConfig) { c.Geofence.MinY = math.NaN() }},
	} {
		c := ok
		tc.mod(&c)
		if b, err := NewBase(c); b != nil || !errors.Is(err, ErrInvalidConfig) {
			t.Errorf("%s: got %v, %v", tc.name, b, err)
		}
	}
	b, err := NewBase(ok)
	if err != nil || b.Config().MaxDriveDuration != DefaultMaxDriveDuration {
		t.Errorf("defaults: %+v %v", b, err)
	}
}

func TestBaseGoalsOutsideTheFenceBreakTheGeofenceRule(t *testing.T) {
	b := testBase(t)
	for _, tc := range []struct {
		name  string
		frame string
		x, y  float64
		want  []BaseViolation
	}{
		{"inside", "map", 1, 0.5, nil},
		{"on the edge", "/map", 3, -1, nil},
		{"past max x", "map", 3.5, 0, []BaseViolation{{RuleGeofence, "x", 3.5, 3}}},
		{"past two sides", "map", -2.5, 1.2, []BaseViolation{{RuleGeofence, "x", -2.5, -2}, {RuleGeofence, "y", 1.2, 1}}},
	} {
		got, err := b.CheckBaseGoal(tc.frame, tc.x, tc.y)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %+v, %v; want %+v", tc.name, got, err, tc.want)
		}
	}
}

func TestBaseGoalsInAnotherFrameOrNotFiniteAreErrors(t *testing.T) {
	b := testBase(t)
	for _, tc := range []struct {
		name  string
		frame string
		x, y  float64
		want  error
	}{
		{"odom goal against a map fence", "odom", 0, 0, ErrUnknownFrame},
		{"NaN", "map", math.NaN(), 0, ErrNotFinite},
		{"Inf", "map", 0, math.Inf(-1), ErrNotFinite},
	} {
		if v, err := b.CheckBaseGoal(tc.frame, tc.x, tc.y); v != nil || !errors.Is(err, tc.want) {
			t.Errorf("%s: got %+v, %v", tc.name, v, err)
		}
	}
}

func TestTwistsBeyondTheCapsNameTheRule(t *testing.T) {
	b := testBase(t)
	for _, tc := range []struct {
		name          string
		lin, ang, dur float64
		want          []BaseViolation
	}{
		{"within", 0.5, -1, 10, nil},
		{"too fast backwards", -0.6, 0, 1, []BaseViolation{{RuleMaxLinearSpeed, "linear", -0.6, -0.5}}},
		{"spinning and too long", 0.1, 1.5, 11, []BaseViolation{{RuleMaxAngularSpeed, "angular", 1.5, 1}, {RuleMaxDuration, "duration", 11, 10}}},
	} {
		got, err := b.CheckTwist(tc.lin, tc.ang, tc.dur)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %+v, %v; want %+v", tc.name, got, err, tc.want)
		}
	}
	for _, bad := range [][3]float64{{math.NaN(), 0, 1}, {0, math.Inf(1), 1}, {0, 0, -1}} {
		if _, err := b.CheckTwist(bad[0], bad[1], bad[2]); err == nil {
			t.Errorf("CheckTwist%v accepted", bad)
		}
	}
}

func TestDrivePredictsTheEndPoseByUnicycleIntegration(t *testing.T) {
	b := testBase(t)
	for _, tc := range []struct {
		name          string
		start         Pose2D
		lin, ang, dur float64
		want          Pose2D
	}{
		{"straight ahead", Pose2D{0, 0, 0}, 0.5, 0, 2, Pose2D{1, 0, 0}},
		{"straight along +y", Pose2D{0, -0.5, math.Pi / 2}, 0.25, 0, 4, Pose2D{0, 0.5, math.Pi / 2}},
		{"turn in place", Pose2D{1, 0, 0}, 0, 1, math.Pi / 2, Pose2D{1, 0, math.Pi / 2}},
		{"quarter circle left", Pose2D{0, 0, 0}, 0.5, 1, math.Pi / 2, Pose2D{0.5, 0.5, math.Pi / 2}},
		{"half circle right", Pose2D{0, 0, 0}, 0.5, -1, math.Pi, Pose2D{0, -1, math.Pi}},
	} {
		end, v, err := b.CheckDrive("map", tc.start, tc.lin, tc.ang, tc.dur)
		if err != nil || len(v) != 0 {
			t.Errorf("%s: %v %+v", tc.name, err, v)
		}
		dTheta := math.Remainder(end.Theta-tc.want.Theta, 2*math.Pi)
		if math.Abs(end.X-tc.want.X) > 1e-9 || math.Abs(end.Y-tc.want.Y) > 1e-9 || math.Abs(dTheta) > 1e-9 {
			t.Errorf("%s: end %+v, want %+v", tc.name, end, tc.want)
		}
	}
}

func TestADriveWhosePathLeavesTheFenceIsRefusedEvenIfItEndsInside(t *testing.T) {
	b := testBase(t)
	// A full circle of radius 0.6 to the left from (0, 0.2) heading +x ends
	// where it started, inside, but its top is at y = 1.4 (fence max 1).
	end, v, err := b.CheckDrive("map", Pose2D{0, 0.2, 0}, 0.48, 0.8, 2*math.Pi/0.8)
	if err != nil {
		t.Fatal(err)
	}
	if math.Hypot(end.X, end.Y-0.2) > 1e-9 {
		t.Errorf("full circle ends at %+v", end)
	}
	if len(v) != 1 || v[0].Rule != RuleGeofence || v[0].Field != "y" || math.Abs(v[0].Value-1.4) > 1e-9 || v[0].Limit != 1 {
		t.Errorf("violations %+v, want the top of the circle at y = 1.4", v)
	}
	// A right half circle from (−1.7, −0.6) heading −x passes x = −2.3 mid-way
	// (fence min −2) and ends at (−1.7, 0.6), inside.
	end, v, err = b.CheckDrive("map", Pose2D{-1.7, -0.6, math.Pi}, 0.48, -0.8, math.Pi/0.8)
	if err != nil || len(v) != 1 || v[0].Field != "x" || math.Abs(v[0].Value+2.3) > 1e-9 || math.Abs(end.Y-0.6) > 1e-9 {
		t.Errorf("arc bulge: end %+v, %+v %v", end, v, err)
	}
}

func TestDriveChecksSpeedsFrameAndStartPose(t *testing.T) {
	b := testBase(t)
	_, v, err := b.CheckDrive("map", Pose2D{}, 1, 0, 1)
	if err != nil || len(v) != 1 || v[0].Rule != RuleMaxLinearSpeed {
		t.Errorf("speed: %+v %v", v, err)
	}
	if _, _, err := b.CheckDrive("odom", Pose2D{}, 0.1, 0, 1); !errors.Is(err, ErrUnknownFrame) {
		t.Errorf("frame: %v", err)
	}
	if _, _, err := b.CheckDrive("map", Pose2D{Theta: math.NaN()}, 0.1, 0, 1); !errors.Is(err, ErrNotFinite) {
		t.Errorf("NaN start: %v", err)
	}
	// From outside, a drive further out breaks the recovery rules (recovery_test.go).
	_, v, _ = b.CheckDrive("map", Pose2D{X: 5}, 0.01, 0, 1)
	if len(v) != 1 || v[0].Rule != RuleRecoveryDirection {
		t.Errorf("start outside the fence: %+v", v)
	}
}
