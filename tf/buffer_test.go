package tf

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/actbridge/actbridge/kinematics"
)

var t0 = time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)

// mat is an independent homogeneous 4×4 matrix, built from axis-angle
// rotations, against which the quaternion code is checked.
type mat [4][4]float64

func axisAngle(axis kinematics.Vec3, angle float64, p kinematics.Vec3) mat {
	n := math.Sqrt(axis[0]*axis[0] + axis[1]*axis[1] + axis[2]*axis[2])
	x, y, z := axis[0]/n, axis[1]/n, axis[2]/n
	c, s, v := math.Cos(angle), math.Sin(angle), 1-math.Cos(angle)
	return mat{
		{x*x*v + c, x*y*v - z*s, x*z*v + y*s, p[0]},
		{y*x*v + z*s, y*y*v + c, y*z*v - x*s, p[1]},
		{z*x*v - y*s, z*y*v + x*s, z*z*v + c, p[2]},
		{0, 0, 0, 1},
	}
}

func (a mat) mul(b mat) mat {
	var m mat
	for i := 0; i < 4; i++ {
		for j := 0; j < 4; j++ {
			for k := 0; k < 4; k++ {
				m[i][j] += a[i][k] * b[k][j]
			}
		}
	}
	return m
}

// inverse of a rigid transform.
func (a mat) inverse() mat {
	var m mat
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			m[i][j] = a[j][i]
		}
	}
	for i := 0; i < 3; i++ {
		m[i][3] = -(m[i][0]*a[0][3] + m[i][1]*a[1][3] + m[i][2]*a[2][3])
	}
	m[3][3] = 1
	return m
}

// quaternion of the same axis-angle, for the buffer's input.
func tr(axis kinematics.Vec3, angle float64, p kinematics.Vec3) Transform {
	n := math.Sqrt(axis[0]*axis[0] + axis[1]*axis[1] + axis[2]*axis[2])
	s := math.Sin(angle/2) / n
	return Transform{Translation: p, Rotation: kinematics.Quat{axis[0] * s, axis[1] * s, axis[2] * s, math.Cos(angle / 2)}}
}

// asMat turns a Transform into a matrix through Apply, so the check does
// not reuse the quaternion-to-matrix code under test.
func asMat(t Transform) mat {
	o := t.Apply(kinematics.Vec3{})
	var m mat
	for j, e := range []kinematics.Vec3{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}} {
		p := t.Apply(e)
		for i := 0; i < 3; i++ {
			m[i][j] = p[i] - o[i]
		}
	}
	for i := 0; i < 3; i++ {
		m[i][3] = o[i]
	}
	m[3][3] = 1
	return m
}

func near(t *testing.T, what string, got, want mat) {
	t.Helper()
	for i := range got {
		for j := range got[i] {
			if math.Abs(got[i][j]-want[i][j]) > 1e-12 {
				t.Fatalf("%s:\n got %v\nwant %v", what, got, want)
			}
		}
	}
}

type link struct {
	parent, child string
	axis          kinematics.Vec3
	angle         float64
	p             kinematics.Vec3
}

// A robot on a map with an arm, and a second branch (a camera on a mast).
var tree = []link{
	{"map", "odom", kinematics.Vec3{0, 0, 1}, 0.3, kinematics.Vec3{1.5, -2, 0}},
	{"odom", "base_footprint", kinematics.Vec3{0, 0, 1}, -1.1, kinematics.Vec3{0.4, 0.25, 0}},
	{"base_footprint", "base_link", kinematics.Vec3{0, 0, 1}, 0, kinematics.Vec3{0, 0, 0.1}},
	{"base_link", "arm_base", kinematics.Vec3{1, 1, 0}, 0.7, kinematics.Vec3{0.2, 0, 0.3}},
	{"arm_base", "tool0", kinematics.Vec3{0.2, -1, 0.5}, 2.9, kinematics.Vec3{0.1, 0.4, 0.5}},
	{"base_link", "mast", kinematics.Vec3{0, 1, 0}, -0.4, kinematics.Vec3{-0.1, 0, 0.8}},
	{"mast", "camera", kinematics.Vec3{1, 0, 0}, math.Pi, kinematics.Vec3{0, 0.05, 0.2}},
}

func load(t *testing.T, b *Buffer, at time.Time) map[string]mat {
	t.Helper()
	inRoot := map[string]mat{"map": axisAngle(kinematics.Vec3{0, 0, 1}, 0, kinematics.Vec3{})}
	for _, l := range tree {
		if err := b.Add(Stamped{Parent: l.parent, Child: l.child, Stamp: at, Transform: tr(l.axis, l.angle, l.p)}, false, "/rsp", at); err != nil {
			t.Fatal(err)
		}
		inRoot[l.child] = inRoot[l.parent].mul(axisAngle(l.axis, l.angle, l.p))
	}
	return inRoot
}

func TestLookupEqualsTheMatrixProductAlongTheTree(t *testing.T) {
	b := NewBuffer(Options{})
	inRoot := load(t, b, t0)
	for _, c := range []struct{ target, source string }{
		{"map", "tool0"}, {"tool0", "map"}, {"base_link", "tool0"}, {"camera", "tool0"},
		{"tool0", "camera"}, {"odom", "camera"}, {"tool0", "tool0"}, {"/map", "/tool0"},
	} {
		t.Run(c.target+"<-"+c.source, func(t *testing.T) {
			got, at, err := b.Lookup(c.target, c.source, time.Time{})
			if err != nil {
				t.Fatal(err)
			}
			if c.target != c.source && !at.Equal(t0) {
				t.Errorf("time %v, want %v", at, t0)
			}
			want := inRoot[clean(c.target)].inverse().mul(inRoot[clean(c.source)])
			near(t, "transform", asMat(got), want)
		})
	}
}

func TestBetweenSamplesTheTransformIsInterpolatedNeverExtrapolated(t *testing.T) {
	b := NewBuffer(Options{})
	z := kinematics.Vec3{0, 0, 1}
	for i, s := range []struct{ x, yaw float64 }{{0, 0}, {1, 1.0}, {3, 1.5}} {
		at := t0.Add(time.Duration(i) * 100 * time.Millisecond)
		if err := b.Add(Stamped{Parent: "odom", Child: "base", Stamp: at, Transform: tr(z, s.yaw, kinematics.Vec3{s.x, 0, 0})}, false, "/odom", at); err != nil {
			t.Fatal(err)
		}
	}
	got, _, err := b.Lookup("odom", "base", t0.Add(125*time.Millisecond)) // a quarter of the way from 2nd to 3rd
	if err != nil {
		t.Fatal(err)
	}
	near(t, "interpolated", asMat(got), axisAngle(z, 1.125, kinematics.Vec3{1.5, 0, 0}))

	for _, at := range []time.Time{t0.Add(-time.Millisecond), t0.Add(201 * time.Millisecond)} {
		if _, _, err := b.Lookup("odom", "base", at); !errors.Is(err, ErrNoData) {
			t.Errorf("at %v: %v, want ErrNoData", at, err)
		}
	}
	if _, at, err := b.Lookup("odom", "base", time.Time{}); err != nil || !at.Equal(t0.Add(200*time.Millisecond)) {
		t.Errorf("latest: %v at %v", err, at)
	}
}

func TestLatestCommonTimeIsTheOldestNewestOnTheWay(t *testing.T) {
	b := NewBuffer(Options{})
	z := kinematics.Vec3{0, 0, 1}
	add := func(p, c string, at time.Time, static bool) {
		t.Helper()
		if err := b.Add(Stamped{Parent: p, Child: c, Stamp: at, Transform: tr(z, 0, kinematics.Vec3{1, 0, 0})}, static, "/"+c, at); err != nil {
			t.Fatal(err)
		}
	}
	add("map", "odom", t0, false)
	add("map", "odom", t0.Add(time.Second), false) // localisation at 1 Hz
	for i := 0; i <= 20; i++ {                     // odometry at 20 Hz
		add("odom", "base", t0.Add(time.Duration(i)*50*time.Millisecond), false)
	}
	add("base", "laser", time.Time{}, true)
	_, at, err := b.Lookup("map", "laser", time.Time{})
	if err != nil || !at.Equal(t0.Add(time.Second)) {
		t.Fatalf("at %v, %v; want the localisation's newest stamp", at, err)
	}
	now := t0.Add(1500 * time.Millisecond)
	if _, _, err := b.Latest("map", "laser", now, time.Second); err != nil {
		t.Fatalf("0.5 s old with 1 s accepted: %v", err)
	}
	_, _, err = b.Latest("map", "laser", now, 200*time.Millisecond)
	var e *Error
	if !errors.As(err, &e) || !errors.Is(err, ErrStale) || e.Frame != "odom" {
		t.Fatalf("%v; want ErrStale naming odom, the link whose newest sample is oldest", err)
	}
	if _, at, err := b.Lookup("base", "laser", time.Time{}); err != nil || !at.IsZero() {
		t.Errorf("static only: %v at %v, want no time", err, at)
	}
}

func TestASecondPublisherOfAFrameMakesItAmbiguousUntilOneFallsSilent(t *testing.T) {
	b := NewBuffer(Options{CacheTime: time.Second})
	z := kinematics.Vec3{0, 0, 1}
	pub := func(src string, at time.Time, x float64) {
		t.Helper()
		if err := b.Add(Stamped{Parent: "map", Child: "odom", Stamp: at, Transform: tr(z, 0, kinematics.Vec3{x, 0, 0})}, false, src, at); err != nil {
			t.Fatal(err)
		}
	}
	pub("/amcl", t0, 1)
	pub("/rogue", t0.Add(10*time.Millisecond), 50)
	pub("/amcl", t0.Add(20*time.Millisecond), 1)
	_, _, err := b.Lookup("map", "odom", time.Time{})
	var e *Error
	if !errors.As(err, &e) || !errors.Is(err, ErrAmbiguous) || e.Frame != "odom" {
		t.Fatalf("%v; want ErrAmbiguous on odom", err)
	}
	// The rogue stops; after the cache time the frame is believed again,
	// and what the rogue said was never stored.
	pub("/amcl", t0.Add(1100*time.Millisecond), 1)
	got, _, err := b.Lookup("map", "odom", time.Time{})
	if err != nil || got.Translation[0] != 1 {
		t.Fatalf("%v %v; want amcl's x=1", got, err)
	}
	// amcl falls silent; a restarted localisation under a new name takes over.
	pub("/amcl_2", t0.Add(2200*time.Millisecond), 2)
	if got, _, err := b.Lookup("map", "odom", time.Time{}); err != nil || got.Translation[0] != 2 {
		t.Fatalf("%v %v; want the new publisher's x=2", got, err)
	}
}

func TestAPinnedFrameBelievesOnlyItsPublisher(t *testing.T) {
	b := NewBuffer(Options{Pins: map[string]string{"odom": "/ekf"}})
	z := kinematics.Vec3{0, 0, 1}
	for _, src := range []string{"/rogue", "/ekf", "/rogue"} {
		x := 1.0
		if src == "/rogue" {
			x = 9
		}
		if err := b.Add(Stamped{Parent: "map", Child: "odom", Stamp: t0, Transform: tr(z, 0, kinematics.Vec3{x, 0, 0})}, false, src, t0); err != nil {
			t.Fatal(err)
		}
	}
	got, _, err := b.Lookup("map", "odom", time.Time{})
	if err != nil || got.Translation[0] != 1 || b.Ignored() != 2 {
		t.Fatalf("%v %v ignored %d; want /ekf's x=1 and two ignored", got, err, b.Ignored())
	}
}

func TestMalformedTransformsAreRefusedAndLoseNothing(t *testing.T) {
	z := kinematics.Vec3{0, 0, 1}
	good := tr(z, 0.2, kinematics.Vec3{1, 2, 3})
	long := string(make([]byte, 300))
	for _, c := range []struct {
		name          string
		parent, child string
		t             Transform
	}{
		{"own parent", "a", "a", good},
		{"empty child", "a", "", good},
		{"long name", "a", long, good},
		{"NaN", "a", "b", Transform{Translation: kinematics.Vec3{math.NaN(), 0, 0}, Rotation: kinematics.Identity}},
		{"Inf rotation", "a", "b", Transform{Rotation: kinematics.Quat{math.Inf(1), 0, 0, 1}}},
		{"zero quaternion", "a", "b", Transform{}},
		{"loop", "tool0", "map", good},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := NewBuffer(Options{})
			inRoot := load(t, b, t0)
			err := b.Add(Stamped{Parent: c.parent, Child: c.child, Stamp: t0, Transform: c.t}, false, "/x", t0)
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("%v, want ErrInvalid", err)
			}
			got, _, err := b.Lookup("map", "tool0", time.Time{})
			if err != nil {
				t.Fatal(err)
			}
			near(t, "tree after refusal", asMat(got), inRoot["tool0"])
		})
	}
}

func TestUnknownAndUnconnectedFramesAreNamed(t *testing.T) {
	b := NewBuffer(Options{})
	load(t, b, t0)
	if err := b.Add(Stamped{Parent: "world", Child: "table", Transform: Identity}, true, "/s", t0); err != nil {
		t.Fatal(err)
	}
	var e *Error
	if _, _, err := b.Lookup("map", "gripper", time.Time{}); !errors.As(err, &e) || !errors.Is(err, ErrUnknownFrame) || e.Frame != "gripper" {
		t.Errorf("%v; want ErrUnknownFrame naming gripper", err)
	}
	if _, _, err := b.Lookup("map", "table", time.Time{}); !errors.Is(err, ErrNotConnected) {
		t.Errorf("%v; want ErrNotConnected", err)
	}
}

func TestWhatPeersCanMakeTheBufferHoldIsBounded(t *testing.T) {
	b := NewBuffer(Options{MaxFrames: 10, MaxSamples: 5, CacheTime: time.Hour})
	var err error
	for i := 0; i < 11 && err == nil; i++ {
		err = b.Add(Stamped{Parent: "map", Child: fmt.Sprint("f", i), Transform: Identity}, true, "/s", t0)
	}
	if !errors.Is(err, ErrFull) || len(b.Frames()) != 10 {
		t.Fatalf("%v with %d frames; want ErrFull at 10", err, len(b.Frames()))
	}
	b = NewBuffer(Options{MaxSamples: 5, CacheTime: time.Hour})
	for i := 0; i < 100; i++ {
		at := t0.Add(time.Duration(i) * time.Millisecond)
		if err := b.Add(Stamped{Parent: "odom", Child: "base", Stamp: at, Transform: Identity}, false, "/o", at); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := b.Lookup("odom", "base", t0.Add(94*time.Millisecond)); !errors.Is(err, ErrNoData) {
		t.Errorf("sample 94 of 100 with 5 kept: %v, want ErrNoData", err)
	}
	if _, _, err := b.Lookup("odom", "base", t0.Add(95*time.Millisecond)); err != nil {
		t.Errorf("sample 95: %v", err)
	}
}

func TestAPublisherThatLeftIsReplacedAtOnce(t *testing.T) {
	b := NewBuffer(Options{CacheTime: time.Hour})
	z := kinematics.Vec3{0, 0, 1}
	pub := func(src string, x float64) {
		t.Helper()
		if err := b.Add(Stamped{Parent: "map", Child: "odom", Stamp: t0, Transform: tr(z, 0, kinematics.Vec3{x, 0, 0})}, false, src, t0); err != nil {
			t.Fatal(err)
		}
	}
	pub("p1", 1)
	pub("p2", 2)
	if _, _, err := b.Lookup("map", "odom", time.Time{}); !errors.Is(err, ErrAmbiguous) {
		t.Fatalf("%v, want ErrAmbiguous", err)
	}
	b.Forget("p2") // the rival left the graph
	if got, _, err := b.Lookup("map", "odom", time.Time{}); err != nil || got.Translation[0] != 1 {
		t.Fatalf("%v %v; want p1's x=1", got, err)
	}
	b.Forget("p1") // the localisation restarted as p3
	pub("p3", 3)
	if got, _, err := b.Lookup("map", "odom", time.Time{}); err != nil || got.Translation[0] != 3 || !slices.Equal(b.Sources(), []string{"p3"}) {
		t.Fatalf("%v %v %v; want p3's x=3 at once", got, err, b.Sources())
	}
}

func TestGroundIsTheHeadingAndTheTiltOfTheZAxis(t *testing.T) {
	for _, c := range []struct {
		name      string
		tr        Transform
		yaw, tilt float64
	}{
		{"yaw only", tr(kinematics.Vec3{0, 0, 1}, 2.5, kinematics.Vec3{1, 2, 3}), 2.5, 0},
		{"negative yaw", tr(kinematics.Vec3{0, 0, 1}, -0.3, kinematics.Vec3{}), -0.3, 0},
		{"rolled", tr(kinematics.Vec3{1, 0, 0}, 0.2, kinematics.Vec3{}), 0, 0.2},
		{"pitched then yawed", tr(kinematics.Vec3{0, 0, 1}, 1, kinematics.Vec3{}).Mul(tr(kinematics.Vec3{0, 1, 0}, 0.1, kinematics.Vec3{})), 1, 0.1},
	} {
		x, y, yaw, tilt := c.tr.Ground()
		if x != c.tr.Translation[0] || y != c.tr.Translation[1] || math.Abs(yaw-c.yaw) > 1e-12 || math.Abs(tilt-c.tilt) > 1e-9 {
			t.Errorf("%s: yaw %v tilt %v, want %v %v", c.name, yaw, tilt, c.yaw, c.tilt)
		}
	}
}

// A /tf_static frame is published once: its publisher stays its source
// however long ago that was, so a stray /tf publisher of the same frame
// makes it ambiguous instead of taking it over.
func TestAStaticFrameIsNotTakenOverBySilence(t *testing.T) {
	b := NewBuffer(Options{CacheTime: time.Second})
	z := kinematics.Vec3{0, 0, 1}
	if err := b.Add(Stamped{Parent: "base_link", Child: "laser", Transform: tr(z, 0, kinematics.Vec3{0.2, 0, 0})}, true, "/rsp", t0); err != nil {
		t.Fatal(err)
	}
	later := t0.Add(time.Minute)
	if err := b.Add(Stamped{Parent: "base_link", Child: "laser", Stamp: later, Transform: tr(z, 0, kinematics.Vec3{5, 0, 0})}, false, "/stray", later); err != nil {
		t.Fatal(err)
	}
	if _, _, err := b.Lookup("base_link", "laser", time.Time{}); !errors.Is(err, ErrAmbiguous) {
		t.Fatalf("%v, want ErrAmbiguous", err)
	}
	b.Forget("/stray")
	if got, _, err := b.Lookup("base_link", "laser", time.Time{}); err != nil || got.Translation[0] != 0.2 {
		t.Fatalf("%v %v; want the static 0.2", got, err)
	}
}

// A stamp from the future would win the cache window and freeze the
// frame: it is refused on arrival, and Latest refuses a common time
// ahead of now.
func TestAStampFromTheFutureIsRefused(t *testing.T) {
	b := NewBuffer(Options{})
	err := b.Add(Stamped{Parent: "odom", Child: "base", Stamp: t0.Add(time.Hour), Transform: Identity}, false, "/o", t0)
	if !errors.Is(err, ErrInvalid) {
		t.Fatalf("%v, want ErrInvalid", err)
	}
	if err := b.Add(Stamped{Parent: "odom", Child: "base", Stamp: t0.Add(500 * time.Millisecond), Transform: Identity}, false, "/o", t0); err != nil {
		t.Fatalf("within MaxAhead: %v", err)
	}
	if _, _, err := b.Latest("odom", "base", t0.Add(-time.Minute), time.Second); !errors.Is(err, ErrStale) {
		t.Fatalf("%v, want ErrStale for a time ahead of now", err)
	}
}

func TestAllFramesTogetherHoldAtMostMaxTotalSamples(t *testing.T) {
	b := NewBuffer(Options{MaxTotal: 50, MaxSamples: 20, CacheTime: time.Hour})
	var err error
	n := 0
	for f := 0; f < 10 && err == nil; f++ {
		for i := 0; i < 20 && err == nil; i++ {
			at := t0.Add(time.Duration(i) * time.Millisecond)
			err = b.Add(Stamped{Parent: "map", Child: fmt.Sprint("f", f), Stamp: at, Transform: Identity}, false, "/s", at)
			if err == nil {
				n++
			}
		}
	}
	if !errors.Is(err, ErrFull) || n != 50 {
		t.Fatalf("%v after %d samples, want ErrFull at 50", err, n)
	}
}
