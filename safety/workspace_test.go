package safety_test

import (
	"errors"
	"math"
	"os"
	"testing"

	"github.com/actbridge/actbridge/kinematics"
	"github.com/actbridge/actbridge/safety"
	"github.com/actbridge/actbridge/spline"
	"github.com/actbridge/actbridge/urdf"
)

const simURDF = "../launch/simrobot.urdf"

// simArm is the sim arm's limits and default chain (base_link →
// gripper_base_link), and its joints in chain order.
func simArm(t testing.TB) (*safety.Limits, *kinematics.Chain, []string) {
	t.Helper()
	data, err := os.ReadFile(simURDF)
	if err != nil {
		t.Fatal(err)
	}
	lim, _, err := safety.LoadLimits(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	m, err := kinematics.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	joints := []string{"shoulder_pan_joint", "shoulder_lift_joint", "elbow_joint", "wrist_1_joint", "wrist_2_joint", "wrist_3_joint"}
	base, tool, err := m.DefaultChain(joints)
	if err != nil {
		t.Fatal(err)
	}
	c, err := m.Chain(base, tool)
	if err != nil {
		t.Fatal(err)
	}
	return lim, c, joints
}

func toolAt(t testing.TB, c *kinematics.Chain, q []float64) kinematics.Pose {
	t.Helper()
	d := c.NewData()
	if err := c.Jacobian(d, q); err != nil {
		t.Fatal(err)
	}
	return d.ToolPose()
}

// dip is a trajectory that rests at q0 at every waypoint but passes
// through them with one joint moving the tool down, so the spline
// dips below the waypoints' tool height between them.
func dip(t testing.TB, c *kinematics.Chain, q0 []float64) []spline.Point {
	t.Helper()
	d := c.NewData()
	if err := c.Jacobian(d, q0); err != nil {
		t.Fatal(err)
	}
	// The joint that moves the tool most vertically, moving it down.
	v, k := make([]float64, len(q0)), 0
	for j := range q0 {
		if math.Abs(d.JacobianColumn(j)[2]) > math.Abs(d.JacobianColumn(k)[2]) {
			k = j
		}
	}
	v[k] = -math.Copysign(0.8, d.JacobianColumn(k)[2])
	zero := make([]float64, len(q0))
	return []spline.Point{
		{Positions: q0, Velocities: v, Time: 1},
		{Positions: q0, Velocities: zero, Time: 2},
	}
}

var q0 = []float64{0.3, -0.6, 1.2, -0.4, 0.5, 0.1}

func rest(q []float64) []spline.State {
	s := make([]spline.State, len(q))
	for i := range q {
		s[i].Pos = q[i]
	}
	return s
}

// A joint trajectory whose every waypoint keeps the tool above the table,
// but whose spline dips into it between them, is refused with the link, the
// point and the time; without the table it is within every limit.
func TestWorkspaceRefusesSplineDippingIntoForbiddenBoxBetweenWaypoints(t *testing.T) {
	lim, c, joints := simArm(t)
	top := toolAt(t, c, q0).Position[2] - 0.01
	ws, err := safety.NewWorkspace(c, safety.WorkspaceLimits{Forbidden: []safety.Zone{{Name: "table",
		Box: safety.Box{Min: [3]float64{-3, -3, top - 1}, Max: [3]float64{3, 3, top}}, Links: []string{c.Tool()}}}})
	if err != nil {
		t.Fatal(err)
	}
	points := dip(t, c, q0)
	free, err := lim.CheckTrajectory(joints, rest(q0), points, safety.CheckOptions{})
	if err != nil || !free.OK() {
		t.Fatalf("without workspace: %v %+v", err, free)
	}
	r, err := lim.CheckTrajectory(joints, rest(q0), points, safety.CheckOptions{Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Violations) != 1 {
		t.Fatalf("violations %+v, want one", r.Violations)
	}
	v := r.Violations[0]
	if v.Kind != safety.KindForbidden || v.Link != c.Tool() || v.Zone != "table" || v.Axis != "z" || v.Limit != top {
		t.Fatalf("violation %+v", v)
	}
	if !(v.Time > 1 && v.Time < 2 && v.Start <= v.Time && v.Time <= v.End) {
		t.Fatalf("time %g in [%g, %g], want between the waypoints", v.Time, v.Start, v.End)
	}
	if !(v.Point[2] < top && v.Value == v.Point[2]) {
		t.Fatalf("point %v value %g, want below the table top %g", v.Point, v.Value, top)
	}
	// The reported point is where the tool is at the reported time.
	st := make([]spline.State, len(joints))
	r.Trajectory.At(v.Time, st)
	q := make([]float64, len(st))
	for i := range st {
		q[i] = st[i].Pos
	}
	if p := toolAt(t, c, q).Position; math.Abs(p[2]-v.Point[2]) > 1e-9 {
		t.Fatalf("tool at t=%g is %v, violation says %v", v.Time, p, v.Point)
	}
}

// The tool leaving the workspace box and going over the tool speed cap
// are violations naming the tool link, the face or the cap, and the time.
func TestWorkspaceRefusesToolOutsideBoxAndOverSpeedCap(t *testing.T) {
	lim, c, joints := simArm(t)
	p0 := toolAt(t, c, q0).Position
	q1 := append([]float64(nil), q0...)
	q1[0] += 0.8 // pan: the tool swings sideways
	p1 := toolAt(t, c, q1).Position
	box := safety.Box{Min: [3]float64{-5, -5, -5}, Max: [3]float64{5, 5, 5}}
	ax := 0
	if math.Abs(p1[1]-p0[1]) > math.Abs(p1[0]-p0[0]) {
		ax = 1
	}
	mid := (p0[ax] + p1[ax]) / 2
	if p1[ax] > p0[ax] {
		box.Max[ax] = mid
	} else {
		box.Min[ax] = mid
	}
	ws, err := safety.NewWorkspace(c, safety.WorkspaceLimits{Box: &box, ToolSpeedMax: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	r, err := lim.CheckTrajectory(joints, rest(q0), []spline.Point{{Positions: q1, Velocities: make([]float64, 6), Time: 2}}, safety.CheckOptions{Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	var kinds = map[safety.Kind]safety.Violation{}
	for _, v := range r.Violations {
		kinds[v.Kind] = v
	}
	out, ok := kinds[safety.KindWorkspace]
	if !ok || out.Link != c.Tool() || out.Axis != [3]string{"x", "y", "z"}[ax] || out.Limit != mid || !(out.End > 1.99) {
		t.Fatalf("workspace violation %+v in %+v", out, r.Violations)
	}
	fast, ok := kinds[safety.KindToolSpeed]
	if !ok || fast.Limit != 0.01 || !(fast.Value > 0.01) || math.Abs(fast.Value-r.Tool.PeakSpeed.Value) > 1e-12 {
		t.Fatalf("speed violation %+v, peak %+v", fast, r.Tool.PeakSpeed)
	}
}

// The tool path of a preview starts and ends at the tool's FK poses, its
// distance is at least the straight line and at most the bound the
// sampling allows, and its lowest and highest points bracket both ends.
func TestToolPathMatchesFKAtBothEnds(t *testing.T) {
	lim, c, joints := simArm(t)
	ws, err := safety.NewWorkspace(c, safety.WorkspaceLimits{})
	if err != nil {
		t.Fatal(err)
	}
	q1 := []float64{-0.2, -0.9, 1.5, -0.1, 0.2, 0.4}
	r, err := lim.CheckTrajectory(joints, rest(q0), []spline.Point{{Positions: q1, Velocities: make([]float64, 6), Time: 3}}, safety.CheckOptions{Workspace: ws})
	if err != nil || !r.OK() {
		t.Fatal(err, r)
	}
	tp := r.Tool
	a, b := toolAt(t, c, q0), toolAt(t, c, q1)
	for i := range 3 {
		if math.Abs(tp.Start.Position[i]-a.Position[i]) > 1e-9 || math.Abs(tp.End.Position[i]-b.Position[i]) > 1e-9 {
			t.Fatalf("path %v → %v, FK %v → %v", tp.Start.Position, tp.End.Position, a.Position, b.Position)
		}
	}
	line := math.Sqrt(sq(a.Position[0]-b.Position[0]) + sq(a.Position[1]-b.Position[1]) + sq(a.Position[2]-b.Position[2]))
	if !(tp.DistanceM >= line-1e-9 && tp.DistanceM <= tp.PeakSpeed.Value*r.Duration) {
		t.Fatalf("distance %g shorter than the straight line %g or longer than peak speed %g × duration %g", tp.DistanceM, line, tp.PeakSpeed.Value, r.Duration)
	}
	if !(tp.Lowest.Point[2] <= math.Min(a.Position[2], b.Position[2]) && tp.Highest.Point[2] >= math.Max(a.Position[2], b.Position[2])) {
		t.Fatalf("lowest %v highest %v", tp.Lowest, tp.Highest)
	}
	if tp.Frame != c.Base() || tp.Link != c.Tool() || !(tp.PeakSpeed.Value > 0) || tp.Samples < 2 {
		t.Fatalf("path %+v", tp)
	}
}

// A forbidden box naming a link off the chain, or an empty box, is a
// configuration error.
func TestWorkspaceRefusesLinksOffTheChainAndEmptyBoxes(t *testing.T) {
	_, c, _ := simArm(t)
	for name, lim := range map[string]safety.WorkspaceLimits{
		"off chain": {Forbidden: []safety.Zone{{Name: "x", Box: safety.Box{Max: [3]float64{1, 1, 1}}, Links: []string{"base_footprint"}}}},
		"empty":     {Box: &safety.Box{Min: [3]float64{0, 0, 1}, Max: [3]float64{1, 1, 1}}},
		"no links":  {Forbidden: []safety.Zone{{Name: "x", Box: safety.Box{Max: [3]float64{1, 1, 1}}}}},
		"speed":     {ToolSpeedMax: math.NaN()},
	} {
		if _, err := safety.NewWorkspace(c, lim); !errors.Is(err, safety.ErrInvalidConfig) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func sq(x float64) float64 { return x * x }

// A wall thinner than the sampling step that the tool passes through is
// found: the chord between two samples crosses it.
func TestWorkspaceFindsThinWallBetweenSamples(t *testing.T) {
	lim, c, joints := simArm(t)
	p0 := toolAt(t, c, q0).Position
	q1 := append([]float64(nil), q0...)
	q1[0] += 0.8
	p1 := toolAt(t, c, q1).Position
	ax := 0
	if math.Abs(p1[1]-p0[1]) > math.Abs(p1[0]-p0[0]) {
		ax = 1
	}
	wall := safety.Box{Min: [3]float64{-5, -5, -5}, Max: [3]float64{5, 5, 5}}
	mid := (p0[ax] + p1[ax]) / 2
	wall.Min[ax], wall.Max[ax] = mid, mid+1e-5 // 10 µm
	ws, err := safety.NewWorkspace(c, safety.WorkspaceLimits{Forbidden: []safety.Zone{{Name: "wall", Box: wall, Links: []string{c.Tool()}}}})
	if err != nil {
		t.Fatal(err)
	}
	r, err := lim.CheckTrajectory(joints, rest(q0), []spline.Point{{Positions: q1, Velocities: make([]float64, 6), Time: 2}}, safety.CheckOptions{Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Violations) != 1 || r.Violations[0].Zone != "wall" || !(r.Violations[0].Time > 0 && r.Violations[0].Time < 2) {
		t.Fatalf("violations %+v", r.Violations)
	}
	if p := r.Violations[0].Point[ax]; !(p >= mid && p <= mid+1e-5) {
		t.Fatalf("point %v not in the wall at %s=%g", r.Violations[0].Point, [3]string{"x", "y", "z"}[ax], mid)
	}
}

// A motion that enters a box again and again is refused with a bounded
// number of workspace violations, so the refusal stays small.
func TestWorkspaceViolationsAreBounded(t *testing.T) {
	lim, c, joints := simArm(t)
	ws, err := safety.NewWorkspace(c, safety.WorkspaceLimits{Forbidden: []safety.Zone{{Name: "slab",
		Box: safety.Box{Min: [3]float64{-3, -3, -3}, Max: [3]float64{3, 3, 1.0}}, Links: c.MovingLinks()}}})
	if err != nil {
		t.Fatal(err)
	}
	pts := make([]spline.Point, 64)
	for i := range pts {
		q := []float64{0, 0.6, 0, 0, 0, 0}
		if i%2 == 0 {
			q[1] = -0.6
		}
		pts[i] = spline.Point{Time: 2 * float64(i+1), Positions: q, Velocities: make([]float64, 6)}
	}
	r, err := lim.CheckTrajectory(joints, rest(make([]float64, 6)), pts, safety.CheckOptions{Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, v := range r.Violations {
		if v.Link != "" {
			n++
		}
	}
	if n == 0 || n > 32 {
		t.Fatalf("%d workspace violations, want 1 to 32", n)
	}
}

// The tool's collision shape, not only its origin, must stay out of a
// forbidden box: held still with its origin 1 cm above the table and its
// collision box reaching below it, the arm is refused, with the shape's
// lowest point; without the shapes it is not.
func TestWorkspaceChecksCollisionShapesNotOnlyOrigins(t *testing.T) {
	lim, c, joints := simArm(t)
	data, err := os.ReadFile(simURDF)
	if err != nil {
		t.Fatal(err)
	}
	u, err := urdf.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	top := toolAt(t, c, q0).Position[2] - 0.01
	table := []safety.Zone{{Name: "table", Box: safety.Box{Min: [3]float64{-3, -3, top - 1}, Max: [3]float64{3, 3, top}}, Links: []string{c.Tool()}}}
	hold := []spline.Point{{Positions: q0, Velocities: make([]float64, 6), Time: 1}}
	for _, withShapes := range []bool{false, true} {
		wl := safety.WorkspaceLimits{Forbidden: table}
		if withShapes {
			wl.Collisions = u.Collisions
		}
		ws, err := safety.NewWorkspace(c, wl)
		if err != nil {
			t.Fatal(err)
		}
		r, err := lim.CheckTrajectory(joints, rest(q0), hold, safety.CheckOptions{Workspace: ws})
		if err != nil {
			t.Fatal(err)
		}
		if !withShapes {
			if !r.OK() {
				t.Fatalf("origin 1 cm above the table refused: %+v", r.Violations)
			}
			continue
		}
		if len(r.Violations) != 1 {
			t.Fatalf("with shapes: violations %+v", r.Violations)
		}
		v := r.Violations[0]
		if v.Link != c.Tool() || v.Axis != "z" || v.Limit != top || !(v.Point[2] < top) || v.Point[2] != v.Value {
			t.Fatalf("with shapes: violation %+v", v)
		}
	}
}
