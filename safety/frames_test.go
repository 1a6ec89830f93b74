package safety

import (
	"errors"
	"math"
	"testing"
)

func fencedBase(t *testing.T, frame string) *Base {
	t.Helper()
	b, err := NewBase(BaseConfig{MaxLinearSpeed: 1, MaxAngularSpeed: 1,
		Geofence: Fence{Frame: frame, MinX: -2, MaxX: 2, MinY: -2, MaxY: 2}})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// With odometry drifted (odom sits 1.5 m along map's x and turned 90°),
// a goal inside the fence as odom sees it lies outside it in map, where
// the fence is: checked in map, it is refused.
func TestAGoalIsCheckedInTheFencesFrameNotWhereItWasGiven(t *testing.T) {
	b := fencedBase(t, "map")
	drift := &FrameLink{From: "odom", To: "map", X: 1.5, Y: 0, Yaw: math.Pi / 2}
	goal := Pose2D{X: 1.0, Y: -1.0} // inside ±2 in odom
	if v, err := b.CheckBaseGoal("map", goal.X, goal.Y); err != nil || len(v) != 0 {
		t.Fatalf("as if odom were map: %v %v; the test needs a goal inside the fence there", v, err)
	}
	inMap, err := b.InFence("odom", goal, drift)
	if err != nil {
		t.Fatal(err)
	}
	// odom (1, -1) → map: rotate 90° → (1, 1), then +1.5 along x → (2.5, 1).
	if math.Abs(inMap.X-2.5) > 1e-12 || math.Abs(inMap.Y-1) > 1e-12 || math.Abs(inMap.Theta-math.Pi/2) > 1e-12 {
		t.Fatalf("in map: %+v, want (2.5, 1, π/2)", inMap)
	}
	v, err := b.CheckBaseGoal("map", inMap.X, inMap.Y)
	if err != nil || len(v) != 1 || v[0].Field != "x" || v[0].Limit != 2 {
		t.Fatalf("violations %+v (%v), want x past 2", v, err)
	}
}

// A drive starting at an odom pose is integrated in the fence's frame:
// heading turns with the frame, so the arc leaves the fence where the
// same drive checked in odom would not.
func TestADriveIsCheckedFromItsStartInTheFencesFrame(t *testing.T) {
	b := fencedBase(t, "map")
	drift := &FrameLink{From: "odom", To: "map", X: 0, Y: 1.5, Yaw: math.Pi / 2}
	start := Pose2D{} // odom origin, heading odom's +x = map's +y
	if _, v, _ := b.CheckDrive("map", start, 0.5, 0, 2); len(v) != 0 {
		t.Fatalf("in odom's own frame the drive stays in: %+v", v)
	}
	s, err := b.InFence("odom", start, drift)
	if err != nil {
		t.Fatal(err)
	}
	_, v, err := b.CheckDrive("map", s, 0.5, 0, 2) // 1 m along map's +y from y=1.5
	if err != nil || len(v) != 1 || v[0].Field != "y" {
		t.Fatalf("violations %+v (%v), want y past 2", v, err)
	}
}

func TestAPoseInAFrameWithNoLinkToTheFenceIsRefused(t *testing.T) {
	b := fencedBase(t, "map")
	for _, c := range []struct {
		frame string
		link  *FrameLink
	}{
		{"odom", nil},
		{"base_link", &FrameLink{From: "odom", To: "map"}},
		{"odom", &FrameLink{From: "odom", To: "map", Yaw: math.NaN()}},
		{"odom", &FrameLink{From: "odom", To: "odom_combined"}},
		{"odom", &FrameLink{From: "odom"}},
	} {
		_, err := b.InFence(c.frame, Pose2D{X: 1}, c.link)
		var ie *InputError
		if !errors.As(err, &ie) || !errors.Is(err, ErrUnknownFrame) || ie.Field != "frame" {
			t.Errorf("%s via %+v: %v, want an InputError on frame", c.frame, c.link, err)
		}
	}
	if p, err := b.InFence("/map", Pose2D{X: 1}, nil); err != nil || p.X != 1 {
		t.Errorf("the fence's own frame: %v %v", p, err)
	}
}

// A link's inverse carries every pose back where it came from, so a
// preview can show a fence-frame pose in odom too.
func TestAFrameLinksInverseUndoesIt(t *testing.T) {
	l := FrameLink{From: "odom", To: "map", X: 1.5, Y: -0.7, Yaw: 2.3}
	inv := l.Inverse()
	if inv.From != "map" || inv.To != "odom" {
		t.Fatalf("inverse maps %s→%s, want map→odom", inv.From, inv.To)
	}
	for _, p := range []Pose2D{{}, {X: 1, Y: -1, Theta: 0.4}, {X: -3, Y: 2, Theta: -3}} {
		back := inv.Apply(l.Apply(p))
		if math.Abs(back.X-p.X) > 1e-12 || math.Abs(back.Y-p.Y) > 1e-12 || math.Abs(math.Remainder(back.Theta-p.Theta, 2*math.Pi)) > 1e-12 {
			t.Fatalf("%+v → %+v, want it back", p, back)
		}
	}
}
