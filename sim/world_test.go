package sim

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/actbridge/actbridge/kinematics"
)

// For spheres the answer has a closed form: the centre's distance to the box.
func TestIntersectionAgreesWithTheClosedFormForSpheres(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	b := Box{Min: [3]float64{-0.5, -1, 0}, Max: [3]float64{1, 0.5, 0.3}}
	hits := 0
	for range 20000 {
		c := vec3{rng.Float64()*4 - 2, rng.Float64()*4 - 2, rng.Float64()*3 - 1.5}
		r := rng.Float64() * 0.8
		d := distToBox(c, b)
		if math.Abs(d-r) < 1e-6 {
			continue
		}
		want := d <= r
		if want {
			hits++
		}
		if got := intersects(sphere{c: c, radius: r}, aabb{min: b.Min, max: b.Max}); got != want {
			t.Fatalf("sphere at %v radius %g, distance %g: intersects %v, want %v", c, r, d, got, want)
		}
	}
	if hits < 1000 {
		t.Fatalf("only %d of the cases touch", hits)
	}
}

// A cylinder is round: beside a box's corner its bounding box overlaps the
// box while the cylinder itself does not.
func TestACylinderBesideABoxCornerIsRound(t *testing.T) {
	table := aabb{min: vec3{1, 1, -1}, max: vec3{2, 2, 1}}
	up := vec3{0, 0, 1}
	for _, c := range []struct {
		at   vec3
		want bool
	}{
		{vec3{0.1, 0.1, 0}, false},   // 1.27 m from the corner, radius 1
		{vec3{0.35, 0.35, 0}, true},  // 0.92 m
		{vec3{1.5, 1.5, 1.6}, false}, // above: the top face is 0.1 m from it
		{vec3{1.5, 1.5, 1.4}, true},
	} {
		if got := intersects(cylinder{c: c.at, axis: up, radius: 1, half: 0.5}, table); got != c.want {
			t.Errorf("cylinder at %v: intersects %v, want %v", c.at, got, c.want)
		}
	}
}

// A box turned 45° reaches √2 times its half width along x.
func TestATurnedBoxReachesWithItsCorner(t *testing.T) {
	turned := box{c: vec3{}, r: axisAngle(vec3{0, 0, 1}, math.Pi/4), half: vec3{0.5, 0.5, 0.5}}
	for _, c := range []struct {
		x    float64
		want bool
	}{{0.70, true}, {0.72, false}} {
		wall := aabb{min: vec3{c.x, -1, -1}, max: vec3{c.x + 1, 1, 1}}
		if got := intersects(turned, wall); got != c.want {
			t.Errorf("wall at x=%g: intersects %v, want %v", c.x, got, c.want)
		}
	}
}

func near3(a vec3, b [3]float64, tol float64) bool {
	return math.Abs(a[0]-b[0]) <= tol && math.Abs(a[1]-b[1]) <= tol && math.Abs(a[2]-b[2]) <= tol
}

func TestLinkPosesFollowTheURDFAndTheBase(t *testing.T) {
	m, err := newWorldModel(DefaultURDF)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		base Pose2D
		q    map[string]float64
		want [3]float64
	}{
		{"at rest, upright", Pose2D{}, nil, [3]float64{0.1, 0, 1.4}},
		{"base moved and turned", Pose2D{X: 1, Y: 2, Yaw: math.Pi / 2}, nil, [3]float64{1, 2.1, 1.4}},
		{"shoulder lifted level", Pose2D{}, map[string]float64{"shoulder_lift_joint": math.Pi / 2}, [3]float64{1.15, 0, 0.35}},
	}
	for _, c := range cases {
		if got := m.linkPoses(c.base, c.q)["gripper_base_link"].p; !near3(got, c.want, 1e-9) {
			t.Errorf("%s: gripper_base_link at %v, want %v", c.name, got, c.want)
		}
	}
}

// Two independent forward kinematics, the sim's and the bridge's, agree.
func TestLinkPosesAgreeWithTheBridgesKinematics(t *testing.T) {
	km, err := kinematics.Parse([]byte(DefaultURDF))
	if err != nil {
		t.Fatal(err)
	}
	c, err := km.Chain("base_link", "gripper_base_link")
	if err != nil {
		t.Fatal(err)
	}
	m, err := newWorldModel(DefaultURDF)
	if err != nil {
		t.Fatal(err)
	}
	d := c.NewData()
	rng := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		qs := make([]float64, len(c.Joints()))
		q := map[string]float64{}
		for i, j := range c.Joints() {
			qs[i] = rng.Float64()*4 - 2
			q[j] = qs[i]
		}
		if err := c.FK(d, qs); err != nil {
			t.Fatal(err)
		}
		poses := m.linkPoses(Pose2D{}, q)
		base := poses["base_link"].p
		for i, l := range c.Links() {
			want := d.Position(i)
			if got := poses[l].p.sub(base); !near3(got, [3]float64(want), 1e-9) {
				t.Fatalf("q %v: %s at %v, the bridge says %v", qs, l, got, want)
			}
		}
	}
}

// The arm swung down onto a table in front of the robot: every link that
// enters it is logged once, while moving, and its entry ends when the
// arm rises out of it again.
func TestArmSweptIntoTheTableIsLoggedUntilItLeaves(t *testing.T) {
	table := Box{Min: [3]float64{0.5, -1, 0}, Max: [3]float64{2, 1, 0.4}}
	r := newTestRobot(t, func(c *Config) { c.Table = &table })
	r.Advance(100 * time.Millisecond)
	if l := r.Collisions(); len(l.Collisions) != 0 || l.Table == nil || *l.Table != table {
		t.Fatalf("at rest: %+v, want no contact with the table", l)
	}
	down := uniform(6, 0)
	down[1] = math.Pi / 2 // shoulder_lift: the arm level, at the height of the table top
	start := r.Now()
	r.ArmGoal(GoalID{ID: "down"}, traj(r, 2, down))
	runUntilDone(t, r, Arm, "down", 3*time.Second)
	l := r.Collisions()
	want := []string{"forearm_link", "wrist_1_link", "wrist_2_link", "wrist_3_link", "gripper_base_link", "gripper_finger_link"}
	if got := l.Links(TableObject); !sameSet(got, want) || !sameSet(l.Touching, want) || l.Contacts != len(want) {
		t.Fatalf("after the sweep: links %v, touching %v, %d contacts; want %v", got, l.Touching, l.Contacts, want)
	}
	for _, c := range l.Collisions {
		if !c.Start.After(start) || c.Start.After(start.Add(2*time.Second)) || c.End != nil {
			t.Errorf("%+v: want a contact that began during the sweep and lasts", c)
		}
	}
	up := r.Now()
	r.ArmGoal(GoalID{ID: "up"}, traj(r, 2, uniform(6, 0)))
	runUntilDone(t, r, Arm, "up", 3*time.Second)
	l = r.Collisions()
	if len(l.Touching) != 0 || len(l.Collisions) != len(want) {
		t.Fatalf("after rising: touching %v, %d entries", l.Touching, len(l.Collisions))
	}
	for _, c := range l.Collisions {
		if c.End == nil || !c.End.After(up) || c.End.After(up.Add(2*time.Second)) {
			t.Errorf("%+v: want the contact ended while rising", c)
		}
	}
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

func TestBadTableIsRefused(t *testing.T) {
	for _, b := range []Box{
		{Min: [3]float64{0, 0, 1}, Max: [3]float64{1, 1, 0}},
		{Min: [3]float64{math.NaN(), 0, 0}, Max: [3]float64{1, 1, 1}},
		{Min: [3]float64{0, 0, 0}, Max: [3]float64{math.Inf(1), 1, 1}},
	} {
		cfg := DefaultConfig()
		cfg.Table = &b
		if _, err := New(cfg); !errors.Is(err, ErrConfig) {
			t.Errorf("table %v: err %v, want ErrConfig", b, err)
		}
	}
}

func TestWithoutATableTheCollisionLogIsEmpty(t *testing.T) {
	r := newTestRobot(t)
	r.Advance(100 * time.Millisecond)
	if l := r.Collisions(); l.Table != nil || l.Collisions == nil || len(l.Collisions) != 0 || l.Touching == nil {
		t.Fatalf("%+v", l)
	}
}
