package kinematics_test

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/actbridge/actbridge/kinematics"
	"github.com/actbridge/actbridge/urdf"
)

// The chains the tests use: the twist test arm (prismatic joint, rpy
// origins, skew axes), the project's sim arm and the UR5-style ab6.
const (
	twistURDF = "testdata/twist.urdf"
	simURDF   = "../launch/simrobot.urdf"
	ab6URDF   = "../safety/testdata/ab6.urdf"
)

func model(t testing.TB, path string) *kinematics.Model {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := kinematics.Parse(data)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return m
}

func chain(t testing.TB, path, base, tool string) *kinematics.Chain {
	t.Helper()
	c, err := model(t, path).Chain(base, tool)
	if err != nil {
		t.Fatalf("%s %s→%s: %v", path, base, tool, err)
	}
	return c
}

// matrix is the rotation matrix (row-major) of a unit quaternion x, y, z, w,
// written out here rather than taken from the package.
func matrix(q kinematics.Quat) [9]float64 {
	x, y, z, w := q[0], q[1], q[2], q[3]
	return [9]float64{
		1 - 2*(y*y+z*z), 2 * (x*y - z*w), 2 * (x*z + y*w),
		2 * (x*y + z*w), 1 - 2*(x*x+z*z), 2 * (y*z - x*w),
		2 * (x*z - y*w), 2 * (y*z + x*w), 1 - 2*(x*x+y*y),
	}
}

type kdlCase struct {
	URDF, Base, Tool string
	Joints, Links    []string
	Q                []float64
	Poses            []struct{ P, R []float64 }
	Jacobian         [][]float64
}

// FK and the Jacobian agree with Orocos KDL (testdata/kdl_golden.py, which
// reads the URDF on its own) to 1e-9 m and 1e-9 per rotation-matrix entry,
// for every link of chains with a prismatic joint, rpy origins, skew and
// non-unit axes, at zero, at both bounds and at random joint vectors.
func TestFKMatchesKDL(t *testing.T) {
	raw, err := os.ReadFile("testdata/fk_kdl.json")
	if err != nil {
		t.Fatal(err)
	}
	var golden struct{ Cases []kdlCase }
	if err := json.Unmarshal(raw, &golden); err != nil {
		t.Fatal(err)
	}
	prismatic := false
	models := map[string]*kinematics.Model{}
	for _, k := range golden.Cases {
		path := k.URDF
		if !strings.HasPrefix(path, "../../") {
			path = filepath.Join("testdata", path)
		} else {
			path = strings.TrimPrefix(path, "../")
		}
		if models[path] == nil {
			models[path] = model(t, path)
		}
		c, err := models[path].Chain(k.Base, k.Tool)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.Links(); strings.Join(got, " ") != strings.Join(k.Links, " ") {
			t.Fatalf("%s→%s links %v, KDL %v", k.Base, k.Tool, got, k.Links)
		}
		if got := c.Joints(); strings.Join(got, " ") != strings.Join(k.Joints, " ") {
			t.Fatalf("%s→%s joints %v, KDL %v", k.Base, k.Tool, got, k.Joints)
		}
		d := c.NewData()
		if err := c.Jacobian(d, k.Q); err != nil {
			t.Fatal(err)
		}
		if d.Pose(0) != (kinematics.Pose{Orientation: kinematics.Identity}) {
			t.Errorf("base pose %v, want identity", d.Pose(0))
		}
		for i, want := range k.Poses {
			got := d.Pose(i + 1)
			r := matrix(got.Orientation)
			for a := 0; a < 3; a++ {
				if math.Abs(got.Position[a]-want.P[a]) > 1e-9 {
					t.Errorf("%s %s→%s q=%v link %s position %v, KDL %v", k.URDF, k.Base, k.Tool, k.Q, k.Links[i+1], got.Position, want.P)
					break
				}
			}
			for a := range r {
				if math.Abs(r[a]-want.R[a]) > 1e-9 {
					t.Errorf("%s %s→%s q=%v link %s rotation %v, KDL %v", k.URDF, k.Base, k.Tool, k.Q, k.Links[i+1], r, want.R)
					break
				}
			}
			if n := math.Hypot(math.Hypot(got.Orientation[0], got.Orientation[1]), math.Hypot(got.Orientation[2], got.Orientation[3])); math.Abs(n-1) > 1e-12 || got.Orientation[3] < 0 {
				t.Errorf("quaternion %v: norm %v, want 1 with w ≥ 0", got.Orientation, n)
			}
		}
		if tp := d.ToolPose(); tp != d.Pose(len(k.Links)-1) {
			t.Errorf("ToolPose %v is not the last link's %v", tp, d.Pose(len(k.Links)-1))
		}
		for col := range k.Joints {
			got := d.JacobianColumn(col)
			for row := 0; row < 6; row++ {
				if math.Abs(got[row]-k.Jacobian[row][col]) > 1e-9 {
					t.Errorf("%s→%s q=%v Jacobian[%d][%d] %v, KDL %v", k.Base, k.Tool, k.Q, row, col, got[row], k.Jacobian[row][col])
				}
			}
			if name := k.Joints[col]; name == "j3" || name == "gripper_finger_joint" {
				prismatic = true
			}
		}
	}
	if len(golden.Cases) < 30 || !prismatic {
		t.Fatalf("golden table has %d cases, prismatic joint covered: %v", len(golden.Cases), prismatic)
	}
}

// FK is the hot path of workspace checks: it allocates nothing.
func TestFKDoesNotAllocate(t *testing.T) {
	c := chain(t, simURDF, "base_link", "gripper_base_link")
	d := c.NewData()
	q := []float64{0.1, -0.2, 0.3, -0.4, 0.5, -0.6}
	if n := testing.AllocsPerRun(100, func() {
		if err := c.FK(d, q); err != nil {
			t.Fatal(err)
		}
		_ = d.ToolPose()
	}); n != 0 {
		t.Fatalf("FK allocates %v times per call", n)
	}
}

// One Chain serves any number of goroutines, each with its own Data, and
// they get exactly what a lone caller gets (run with -race).
func TestChainIsSharedAcrossGoroutines(t *testing.T) {
	c := chain(t, twistURDF, "world", "tool")
	qs := [][]float64{{0.1, 0.2, 0.05, 0.3, 1, -1}, {-1, 1.5, 0.3, -2, 4, 2.5}, {2, -1, -0.05, 1, -3, 0}}
	want := make([]kinematics.Solution, len(qs))
	d := c.NewData()
	for i, q := range qs {
		if err := c.FK(d, q); err != nil {
			t.Fatal(err)
		}
		s, err := c.IK(d, kinematics.Goal{Pose: d.ToolPose()}, seedNear(c, q, 0.3, i))
		if err != nil {
			t.Fatal(err)
		}
		want[i] = s
	}
	var wg sync.WaitGroup
	errs := make(chan string, 4*len(qs))
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d := c.NewData()
			for i, q := range qs {
				if err := c.FK(d, q); err != nil {
					errs <- err.Error()
					return
				}
				s, err := c.IK(d, kinematics.Goal{Pose: d.ToolPose()}, seedNear(c, q, 0.3, i))
				if err != nil || !equalJoints(s.Joints, want[i].Joints) {
					errs <- "concurrent IK differs from the lone one"
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// A chain is refused with an error that names what is wrong: a link not in
// the URDF, ends given the wrong way round, links on different branches, a
// joint that cannot be part of a chain, geometry that cannot be read.
func TestChainErrorsNameTheProblem(t *testing.T) {
	m := model(t, twistURDF)
	for _, tc := range []struct {
		base, tool string
		err        error
		mention    string
	}{
		{"world", "gripper", kinematics.ErrUnknownLink, `"gripper"`},
		{"wrld", "tool", kinematics.ErrUnknownLink, `"wrld"`},
		{"tool", "world", kinematics.ErrNoChain, "swap"},
		{"camera", "tool", kinematics.ErrNoChain, `ancestors: "tool" ← "flange"`},
	} {
		_, err := m.Chain(tc.base, tc.tool)
		if !errors.Is(err, tc.err) || !strings.Contains(err.Error(), tc.mention) {
			t.Errorf("Chain(%s, %s) = %v, want %v mentioning %s", tc.base, tc.tool, err, tc.err, tc.mention)
		}
	}
	bad := func(joint string) string {
		return `<robot name="r"><link name="a"/><link name="b"/><link name="c"/>
		<joint name="ok" type="revolute"><parent link="a"/><child link="b"/><axis xyz="0 0 1"/><limit lower="-1" upper="1" velocity="1" effort="1"/></joint>` + joint + `</robot>`
	}
	for _, tc := range []struct {
		joint   string
		err     error
		mention string
	}{
		{`<joint name="f" type="floating"><parent link="b"/><child link="c"/></joint>`, kinematics.ErrUnsupportedJoint, `"f" is floating`},
		{`<joint name="p" type="planar"><parent link="b"/><child link="c"/></joint>`, kinematics.ErrUnsupportedJoint, `"p" is planar`},
		{`<joint name="m" type="continuous"><parent link="b"/><child link="c"/><mimic joint="ok"/></joint>`, kinematics.ErrUnsupportedJoint, `"m" mimics "ok"`},
		{`<joint name="z" type="continuous"><parent link="b"/><child link="c"/><axis xyz="0 0 0"/></joint>`, urdf.ErrInvalid, `"z" has a zero <axis>`},
		{`<joint name="g" type="fixed"><parent link="b"/><child link="c"/><origin xyz="0 0" rpy="0 0 0"/></joint>`, urdf.ErrInvalid, `"g": <origin xyz="0 0">`},
		{`<joint name="x" type="fixed"><parent link="b"/><child link="c"/><origin rpy="0 0 nan"/></joint>`, urdf.ErrInvalid, `"x": <origin rpy="0 0 nan">`},
		{`<joint name="o" type="fixed"><parent link="nowhere"/><child link="c"/></joint>`, kinematics.ErrUnknownLink, `parent link "nowhere"`},
		{`<joint name="t1" type="fixed"><parent link="b"/><child link="c"/></joint><joint name="t2" type="fixed"><parent link="a"/><child link="c"/></joint>`, kinematics.ErrNoChain, `"c" is the child of 2 joints`},
	} {
		m, err := kinematics.Parse([]byte(bad(tc.joint)))
		if err != nil {
			t.Fatalf("%s: %v", tc.joint, err)
		}
		if _, err := m.Chain("a", "b"); err != nil {
			t.Errorf("%s breaks the chain a→b that does not go through it: %v", tc.joint, err)
		}
		_, err = m.Chain("a", "c")
		if !errors.Is(err, tc.err) || !strings.Contains(err.Error(), tc.mention) {
			t.Errorf("%s: Chain(a, c) = %v, want %v mentioning %s", tc.joint, err, tc.err, tc.mention)
		}
	}
}

// Wrong-length and non-finite joint vectors and foreign scratch are errors,
// never panics.
func TestFKRefusesBadInput(t *testing.T) {
	c := chain(t, simURDF, "base_link", "gripper_base_link")
	other := chain(t, simURDF, "base_link", "forearm_link")
	d := c.NewData()
	for _, tc := range []struct {
		d *kinematics.Data
		q []float64
	}{
		{d, []float64{1, 2, 3}},
		{d, nil},
		{d, []float64{0, 0, math.NaN(), 0, 0, 0}},
		{d, []float64{0, 0, 0, math.Inf(1), 0, 0}},
		{nil, make([]float64, 6)},
		{other.NewData(), make([]float64, 6)},
	} {
		if err := c.FK(tc.d, tc.q); !errors.Is(err, kinematics.ErrBadInput) {
			t.Errorf("FK(%v) = %v, want ErrBadInput", tc.q, err)
		}
		if _, err := c.IK(tc.d, kinematics.Goal{Pose: kinematics.Pose{Orientation: kinematics.Identity}}, tc.q); !errors.Is(err, kinematics.ErrBadInput) {
			t.Errorf("IK seed %v = %v, want ErrBadInput", tc.q, err)
		}
	}
}

// Without base and tool links in the config, an arm's joints name their
// chain: from the first joint's parent to the last joint's child, followed
// down single fixed joints to the flange or gripper base, not into the
// fingers.
func TestDefaultChainFollowsTheArmsJoints(t *testing.T) {
	sim := model(t, simURDF)
	arm := []string{"shoulder_pan_joint", "shoulder_lift_joint", "elbow_joint", "wrist_1_joint", "wrist_2_joint", "wrist_3_joint"}
	for _, tc := range []struct {
		m          *kinematics.Model
		joints     []string
		base, tool string
	}{
		{sim, arm, "base_link", "gripper_base_link"},
		{sim, []string{"wrist_3_joint", "elbow_joint", "shoulder_lift_joint", "wrist_1_joint", "shoulder_pan_joint", "wrist_2_joint"}, "base_link", "gripper_base_link"},
		{sim, arm[1:3], "shoulder_link", "forearm_link"},
		{sim, append(arm[:6:6], "gripper_finger_joint"), "base_link", "gripper_finger_link"},
		{model(t, ab6URDF), []string{"shoulder_pan_joint", "shoulder_lift_joint", "elbow_joint", "wrist_1_joint", "wrist_2_joint", "wrist_3_joint"}, "base_link", "tool0"},
		{model(t, twistURDF), []string{"j1", "j2", "j3", "j4", "j5", "j6"}, "base", "tool"},
	} {
		base, tool, err := tc.m.DefaultChain(tc.joints)
		if err != nil || base != tc.base || tool != tc.tool {
			t.Errorf("DefaultChain(%v) = %s, %s, %v; want %s, %s", tc.joints, base, tool, err, tc.base, tc.tool)
		}
	}
	for _, tc := range []struct {
		joints  []string
		err     error
		mention string
	}{
		{nil, kinematics.ErrBadInput, "no joints"},
		{[]string{"shoulder_pan_joint", "elbow"}, kinematics.ErrUnknownJoint, `"elbow"`},
		{[]string{"shoulder_pan_joint", "elbow_joint"}, kinematics.ErrNoChain, `"shoulder_lift_joint" lies between`},
	} {
		if _, _, err := sim.DefaultChain(tc.joints); !errors.Is(err, tc.err) || !strings.Contains(err.Error(), tc.mention) {
			t.Errorf("DefaultChain(%v) = %v, want %v mentioning %s", tc.joints, err, tc.err, tc.mention)
		}
	}
	if _, _, err := model(t, twistURDF).DefaultChain([]string{"j4", "camera_joint"}); !errors.Is(err, kinematics.ErrNoChain) {
		t.Errorf("joints on two branches: %v, want ErrNoChain", err)
	}
}

// SpeedBounds bounds every link's speed: at random joint vectors and
// velocities, the speed of every link's origin (by finite differences of
// FK) stays below it, and the bound is not slack by orders of magnitude.
func TestSpeedBoundsHoldEverywhere(t *testing.T) {
	for _, ch := range []struct{ path, base, tool string }{
		{twistURDF, "base", "tool"}, {simURDF, "base_link", "gripper_base_link"}, {ab6URDF, "base_link", "tool0"},
	} {
		c := chain(t, ch.path, ch.base, ch.tool)
		n, nl := len(c.Joints()), len(c.Links())
		d0, d1 := c.NewData(), c.NewData()
		q, q1, v, b := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, nl)
		rng := rand.New(rand.NewPCG(7, 36))
		worst := 0.0
		for range 500 {
			for i := range q {
				lo, hi := c.Bounds(i)
				lo, hi = math.Max(lo, -3), math.Min(hi, 3)
				q[i] = lo + rng.Float64()*(hi-lo)
				v[i] = rng.Float64()*4 - 2
			}
			const h = 1e-7
			for i := range q {
				q1[i] = q[i] + h*v[i]
			}
			if err := c.FK(d0, q); err != nil {
				t.Fatal(err)
			}
			_ = c.FK(d1, q1)
			if err := c.SpeedBounds(v, b); err != nil {
				t.Fatal(err)
			}
			if tb := c.ToolSpeedBound(v); tb != slices.Max(b) || tb != b[nl-1] {
				t.Fatalf("tool speed bound %g, bounds %v", tb, b)
			}
			for k := range nl {
				p0, p1 := d0.Pose(k).Position, d1.Pose(k).Position
				s := math.Sqrt(sq(p1[0]-p0[0])+sq(p1[1]-p0[1])+sq(p1[2]-p0[2])) / h
				if s > b[k]*(1+1e-5)+1e-9 {
					t.Fatalf("%s link %s: speed %g over bound %g", ch.path, c.Links()[k], s, b[k])
				}
				if b[k] > 0 {
					worst = math.Max(worst, s/b[k])
				}
			}
		}
		if worst < 0.1 {
			t.Errorf("%s: the bound is never within 10x of the speed (best ratio %g)", ch.path, worst)
		}
	}
}
