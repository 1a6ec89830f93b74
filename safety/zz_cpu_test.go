package safety

import (
	"math"
	"testing"
	"time"

	"github.com/actbridge/actbridge/spline"
)

func minTime(n int, f func()) time.Duration {
	best := time.Hour
	for range n {
		t0 := time.Now()
		f()
		if d := time.Since(t0); d < best {
			best = d
		}
	}
	return best
}

func TestZZMinTime(t *testing.T) {
	l, joints := arm7(t)
	start, pts := armTrajectory(joints, 1000)
	xs := make([]float64, 21000)
	sink := 0
	t.Logf("abs21000 %v", minTime(500, func() {
		for _, x := range xs {
			if !(math.Abs(x) <= 1e6) {
				sink++
			}
		}
	}))
	t.Logf("validate %v", minTime(500, func() { validateMotion(joints, start, pts, 100000) }))
	t.Logf("spline   %v", minTime(500, func() { spline.New(start, pts) }))
	t.Logf("check    %v", minTime(500, func() { l.CheckTrajectory(joints, start, pts, CheckOptions{}) }))
}

func TestZZAnalysisOnly(t *testing.T) {
	l, joints := arm7(t)
	start, pts := armTrajectory(joints, 1000)
	tr, _ := spline.New(start, pts)
	lims, _ := l.resolve(joints)
	t.Logf("analysis %v", minTime(300, func() {
		c := checker{r: &Report{Duration: tr.Duration(), Joints: make([]JointSummary, len(joints)), Trajectory: tr}, tr: tr, opt: CheckOptions{}.withDefaults()}
		for j, jl := range lims {
			c.joint(j, jl, start[j])
		}
	}))
	var out [7]spline.State
	t.Logf("7000 At %v", minTime(300, func() {
		for i := range 1000 {
			tr.At(float64(i)*0.01, out[:])
		}
	}))
}

func TestZZSteps(t *testing.T) {
	_, joints := arm7(t)
	start, pts := armTrajectory(joints, 1000)
	tr, _ := spline.New(start, pts)
	var sink float64
	var rj, ra, rv [5]float64
	t.Logf("segment+deriv %v", minTime(300, func() {
		for j := 0; j < 7; j++ {
			for i := 0; i < 1000; i++ {
				seg := tr.Segment(i, j)
				P := poly(seg.Coef)
				V := P.deriv()
				A := V.deriv()
				Jk := A.deriv()
				sink += Jk[0] + seg.Duration
			}
		}
	}))
	t.Logf("+quadroots %v", minTime(300, func() {
		for j := 0; j < 7; j++ {
			for i := 0; i < 1000; i++ {
				seg := tr.Segment(i, j)
				P := poly(seg.Coef)
				V := P.deriv()
				A := V.deriv()
				Jk := A.deriv()
				r := quadRoots(&Jk, seg.Duration, &rj)
				sink += Jk[0] + float64(len(r))
			}
		}
	}))
	t.Logf("+profiles %v", minTime(300, func() {
		for j := 0; j < 7; j++ {
			for i := 0; i < 1000; i++ {
				seg := tr.Segment(i, j)
				T := seg.Duration
				P := poly(seg.Coef)
				V := P.deriv()
				A := V.deriv()
				Jk := A.deriv()
				prA := newProfile(&A, quadRoots(&Jk, T, &rj), T)
				prV := newProfile(&V, prA.roots(&A, &Jk, &ra), T)
				prP := newProfile(&P, prV.roots(&V, &A, &rv), T)
				sink += prP.y[1]
			}
		}
	}))
	_ = sink
}

func TestZZOrder(t *testing.T) {
	_, joints := arm7(t)
	start, pts := armTrajectory(joints, 1000)
	tr, _ := spline.New(start, pts)
	var sink float64
	t.Logf("j-outer %v", minTime(300, func() {
		for j := 0; j < 7; j++ {
			for i := 0; i < 1000; i++ {
				seg := tr.Segment(i, j)
				sink += seg.Coef[3] + seg.Duration
			}
		}
	}))
	t.Logf("i-outer %v", minTime(300, func() {
		for i := 0; i < 1000; i++ {
			for j := 0; j < 7; j++ {
				seg := tr.Segment(i, j)
				sink += seg.Coef[3] + seg.Duration
			}
		}
	}))
	t.Logf("deriv only %v", minTime(300, func() {
		P := poly{1, 2, 3, 4, 5, 6}
		for i := 0; i < 7000; i++ {
			V := P.deriv()
			A := V.deriv()
			Jk := A.deriv()
			P[0] += Jk[0] * 1e-9
		}
		sink += P[0]
	}))
	_ = sink
}

func TestZZStopGo(t *testing.T) {
	l, joints := arm7(t)
	start := make([]spline.State, len(joints))
	pts := make([]spline.Point, 1000)
	for i := range pts {
		p := spline.Point{Positions: make([]float64, len(joints)), Velocities: make([]float64, len(joints)), Accelerations: make([]float64, len(joints)), Time: float64(i + 1)}
		for j := range p.Positions {
			p.Positions[j] = 0.02 * float64(i%2) * float64(j+1)
		}
		pts[i] = p
	}
	t.Logf("stopgo   %v", minTime(200, func() { l.CheckTrajectory(joints, start, pts, CheckOptions{}) }))
}
