package safety

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/actbridge/actbridge/kinematics"
	"github.com/actbridge/actbridge/spline"
)

// Seeds live in testdata/fuzz/<FuzzName>/; run e.g.
//   go test -fuzz FuzzCheckTrajectory -fuzztime 1m ./safety/

func FuzzParseURDF(f *testing.F) {
	f.Add(readTestdata(f, "ab6.urdf"))
	f.Fuzz(func(t *testing.T, data []byte) {
		u, err := ParseURDF(data)
		if err != nil {
			return
		}
		for _, j := range u.Joints {
			if j.Name == "" || !(j.Type.Movable() || j.Type == Fixed || j.Type == Floating || j.Type == Planar) {
				t.Fatalf("accepted joint %+v", j)
			}
		}
		l, _, err := MergeLimits(u, nil)
		if err != nil {
			return
		}
		for _, n := range l.Names() {
			j, _ := l.Joint(n)
			if err := j.validate(); err != nil {
				t.Fatalf("merged limits of %q invalid: %v", n, err)
			}
		}
	})
}

func FuzzParseJointLimits(f *testing.F) {
	f.Add(readTestdata(f, "ab6_joint_limits.yaml"))
	u, err := ParseURDF(readTestdata(f, "ab6.urdf"))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := ParseJointLimits(data)
		if err != nil {
			return
		}
		l, _, err := MergeLimits(u, cfg)
		if err != nil {
			return
		}
		for _, n := range l.Names() {
			j, _ := l.Joint(n)
			if err := j.validate(); err != nil {
				t.Fatalf("merged limits of %q invalid: %v", n, err)
			}
			urdf, _ := u.Joint(n)
			if urdf.Limit != nil && (!j.MaxVelocity.Set() || j.MaxVelocity.Value > urdf.Limit.Velocity) {
				t.Fatalf("%q: velocity limit loosened to %+v", n, j.MaxVelocity)
			}
		}
	})
}

// fuzzNames mixes the arm's joints with names CheckTrajectory must refuse.
var fuzzNames = [...]string{"shoulder_pan_joint", "shoulder_lift_joint", "elbow_joint", "wrist_1_joint", "wrist_2_joint", "wrist_3_joint", "tool0_fixed_joint", "関節", ""}

// fuzzReader hands out bytes, then zeros.
type fuzzReader []byte

func (r *fuzzReader) byte() byte {
	if len(*r) == 0 {
		return 0
	}
	b := (*r)[0]
	*r = (*r)[1:]
	return b
}

// float is any float64 (NaN, Inf, subnormal) unless tame, then within ±scale.
func (r *fuzzReader) float(tame bool, scale float64) float64 {
	var b [8]byte
	for i := range b {
		b[i] = r.byte()
	}
	if tame {
		return scale * (float64(binary.LittleEndian.Uint16(b[:]))/32768.0 - 1)
	}
	return math.Float64frombits(binary.LittleEndian.Uint64(b[:]))
}

func FuzzCheckTrajectory(f *testing.F) {
	f.Add(uint8(2), uint8(3), true, []byte("\x00\x02\x07\x07\x07\x00\x10\x80\x20\x90\x30\xa0\x40\xb0\x50\xc0"))
	l := loadArm(f)
	ws := fuzzWorkspace(f)
	f.Fuzz(func(t *testing.T, nj, np uint8, tame bool, raw []byte) {
		r := fuzzReader(raw)
		joints := make([]string, nj%8)
		for i := range joints {
			joints[i] = fuzzNames[int(r.byte())%len(fuzzNames)]
			if tame {
				joints[i] = fuzzNames[i%6]
			}
		}
		start := make([]spline.State, len(joints))
		if !tame && r.byte()%8 == 0 {
			start = start[:len(start)/2]
		}
		for j := range start {
			start[j] = spline.State{Pos: r.float(tame, 3), Vel: r.float(tame, 2), Acc: r.float(tame, 5)}
		}
		pts := make([]spline.Point, np%65)
		tm := 0.0
		for i := range pts {
			shape := r.byte()
			n := len(joints)
			if !tame && shape&0x80 != 0 {
				n = int(shape) % 9
			}
			p := spline.Point{Positions: make([]float64, n)}
			if shape&1 != 0 {
				p.Velocities = make([]float64, n)
			}
			if shape&2 != 0 {
				p.Accelerations = make([]float64, n)
			}
			for j := 0; j < n; j++ {
				p.Positions[j] = r.float(tame, 3.5)
				if p.Velocities != nil {
					p.Velocities[j] = r.float(tame, 3)
				}
				if p.Accelerations != nil {
					p.Accelerations[j] = r.float(tame, 8)
				}
			}
			if tame {
				tm += 0.001 + math.Abs(r.float(true, 1))
				p.Time = tm
			} else {
				p.Time = r.float(false, 0)
			}
			pts[i] = p
		}
		checkWorkspaceReport(t, l, ws, joints, start, pts)
		rep, err := l.CheckTrajectory(joints, start, pts, CheckOptions{})
		if err != nil {
			return
		}
		if len(rep.Joints) != len(joints) || !finite(rep.Duration) {
			t.Fatalf("report shape: %+v", rep)
		}
		for _, v := range rep.Violations {
			if !finite(v.Time) || !finite(v.Value) || !finite(v.Limit) || !(v.Start <= v.Time+1e-9 && v.Time <= v.End+1e-9) {
				t.Fatalf("violation %+v", v)
			}
		}
		for _, s := range rep.Joints {
			for _, x := range []float64{s.From, s.To, s.Delta, s.MinPosition, s.MaxPosition, s.PeakVelocity, s.PercentOfLimit, s.PeakAcceleration} {
				if !finite(x) {
					t.Fatalf("summary %+v", s)
				}
			}
		}
		for _, w := range rep.Warnings {
			if !finite(w.Time) || !finite(w.Value) || !finite(w.Limit) {
				t.Fatalf("warning %+v", w)
			}
		}
	})
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// fuzzWorkspace is the ab6 arm's chain with a box, a table under every
// moving link and a speed cap.
func fuzzWorkspace(t testing.TB) *Workspace {
	m, err := kinematics.Parse(readTestdata(t, "ab6.urdf"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := m.Chain("base_link", "tool0")
	if err != nil {
		t.Fatal(err)
	}
	ws, err := NewWorkspace(c, WorkspaceLimits{Box: &Box{Min: [3]float64{-0.6, -0.6, 0}, Max: [3]float64{0.6, 0.6, 1}},
		Forbidden:    []Zone{{Name: "table", Box: Box{Min: [3]float64{0.2, -1, -1}, Max: [3]float64{1, 1, 0.1}}, Links: c.MovingLinks()}},
		ToolSpeedMax: 0.25})
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

// checkWorkspaceReport checks a trajectory with the workspace: any input
// gives an error or a report whose violations and tool path are finite
// and whose links are the chain's.
func checkWorkspaceReport(t *testing.T, l *Limits, ws *Workspace, joints []string, start []spline.State, pts []spline.Point) {
	rep, err := l.CheckTrajectory(joints, start, pts, CheckOptions{Workspace: ws})
	if err != nil {
		return
	}
	for _, v := range rep.Violations {
		if v.Link == "" {
			continue
		}
		if ws.Chain().LinkIndex(v.Link) < 0 || !finite(v.Point[0]) || !finite(v.Point[1]) || !finite(v.Point[2]) || !finite(v.Value) || !finite(v.Limit) {
			t.Fatalf("workspace violation %+v", v)
		}
	}
	tp := rep.Tool
	if tp == nil {
		if len(rep.Violations) == 0 {
			t.Fatal("no tool path and no violation")
		}
		return
	}
	for _, x := range []float64{tp.DistanceM, tp.PeakSpeed.Value, tp.Lowest.Point[2], tp.Highest.Point[2], tp.End.Position[0], tp.Start.Orientation[3]} {
		if !finite(x) {
			t.Fatalf("tool path %+v", tp)
		}
	}
}
