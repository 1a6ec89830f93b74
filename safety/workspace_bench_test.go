package safety_test

import (
	"math"
	"os"
	"testing"
	"time"

	"github.com/actbridge/actbridge/kinematics"
	"github.com/actbridge/actbridge/safety"
	"github.com/actbridge/actbridge/spline"
)

// BenchmarkWorkspace7Joints1000Points checks a 7-joint, 1,000-point
// trajectory (the FR3's kinematics, 100 Hz for 10 s, every joint one
// smooth swing of ±0.4 rad, the tool at up to about 0.5 m/s) against a tool box, a table under every moving link and a tool
// speed cap, and reports the check's cost on top of the joint-limit check
// alone (workspace-us/op; issue 36's target ≤ 1 ms) besides both totals.
func BenchmarkWorkspace7Joints1000Points(b *testing.B) {
	data, err := os.ReadFile("testdata/fr3_kin.urdf")
	if err != nil {
		b.Fatal(err)
	}
	lim, _, err := safety.LoadLimits(data, nil)
	if err != nil {
		b.Fatal(err)
	}
	m, err := kinematics.Parse(data)
	if err != nil {
		b.Fatal(err)
	}
	c, err := m.Chain("fr3_link0", "fr3_link8")
	if err != nil {
		b.Fatal(err)
	}
	ws, err := safety.NewWorkspace(c, safety.WorkspaceLimits{
		Box:          &safety.Box{Min: [3]float64{-1.5, -1.5, -0.5}, Max: [3]float64{1.5, 1.5, 1.5}},
		Forbidden:    []safety.Zone{{Name: "table", Box: safety.Box{Min: [3]float64{-2, -2, -1}, Max: [3]float64{2, 2, -0.05}}, Links: c.MovingLinks()}},
		ToolSpeedMax: 2,
	})
	if err != nil {
		b.Fatal(err)
	}
	joints := c.Joints()
	mid := []float64{0, 0, 0, -1.6, 0, 1.6, 0.8}
	start := make([]spline.State, len(joints))
	for j := range start {
		start[j].Pos = mid[j]
	}
	const n, dur = 1000, 10.0
	points := make([]spline.Point, n)
	for i := range points {
		t := dur * float64(i+1) / n
		p := spline.Point{Time: t, Positions: make([]float64, len(joints)), Velocities: make([]float64, len(joints))}
		for j := range joints {
			w := 2 * math.Pi / dur // one swing
			p.Positions[j] = mid[j] + 0.4*math.Sin(w*t)
			p.Velocities[j] = 0.4 * w * math.Cos(w*t)
		}
		points[i] = p
	}
	var jointNs, allNs time.Duration
	b.ResetTimer()
	for b.Loop() {
		t0 := time.Now()
		r, err := lim.CheckTrajectory(joints, start, points, safety.CheckOptions{})
		t1 := time.Now()
		rw, err2 := lim.CheckTrajectory(joints, start, points, safety.CheckOptions{Workspace: ws})
		jointNs += t1.Sub(t0)
		allNs += time.Since(t1)
		if err != nil || err2 != nil || !r.OK() || !rw.OK() {
			b.Fatalf("%v %v %+v", err, err2, rw.Violations)
		}
	}
	per := func(d time.Duration) float64 { return float64(d.Microseconds()) / float64(b.N) }
	b.ReportMetric(per(jointNs), "joints-us/op")
	b.ReportMetric(per(allNs), "with-workspace-us/op")
	b.ReportMetric(per(allNs-jointNs), "workspace-us/op")
	r, _ := lim.CheckTrajectory(joints, start, points, safety.CheckOptions{Workspace: ws})
	b.ReportMetric(float64(r.Tool.Samples), "samples")
}
