package spline

import (
	"errors"
	"math"
	"testing"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol*math.Max(1, math.Abs(b)) }

// peaks samples joint 0 densely and returns max |vel| and max |acc| with times.
func peaks(t *Trajectory, n int) (vmax, vAt, amax, aAt float64) {
	out := make([]State, t.Joints())
	for k := 0; k <= n; k++ {
		tm := t.Duration() * float64(k) / float64(n)
		t.At(tm, out)
		if v := math.Abs(out[0].Vel); v > vmax {
			vmax, vAt = v, tm
		}
		if a := math.Abs(out[0].Acc); a > amax {
			amax, aAt = a, tm
		}
	}
	return
}

func TestCubicWithZeroEndVelocitiesPeaksAtOnePointFiveDeltaOverTAtMidpoint(t *testing.T) {
	for _, tc := range []struct{ from, to, T float64 }{
		{0, 1, 1}, {0.3, -1.2, 2.5}, {-2, 2, 0.4},
	} {
		tr, err := New([]State{{Pos: tc.from}}, []Point{{Positions: []float64{tc.to}, Velocities: []float64{0}, Time: tc.T}})
		if err != nil {
			t.Fatal(err)
		}
		d := math.Abs(tc.to - tc.from)
		v, vAt, _, _ := peaks(tr, 10000)
		if !near(v, 1.5*d/tc.T, 1e-6) || !near(vAt, tc.T/2, 1e-3) {
			t.Errorf("%+v: peak velocity %g at %g, want %g at %g", tc, v, vAt, 1.5*d/tc.T, tc.T/2)
		}
		out := make([]State, 1)
		tr.At(tc.T/2, out)
		if !near(math.Abs(out[0].Vel), 1.5*d/tc.T, 1e-12) {
			t.Errorf("%+v: velocity at T/2 = %g", tc, out[0].Vel)
		}
	}
}

func TestQuinticFromRestPeaksAtClosedFormVelocityAndAcceleration(t *testing.T) {
	for _, tc := range []struct{ from, to, T float64 }{
		{0, 1, 1}, {1, -0.5, 3}, {-0.2, 2.9, 0.7},
	} {
		tr, err := New([]State{{Pos: tc.from}}, []Point{{
			Positions: []float64{tc.to}, Velocities: []float64{0}, Accelerations: []float64{0}, Time: tc.T,
		}})
		if err != nil {
			t.Fatal(err)
		}
		d := math.Abs(tc.to - tc.from)
		v, vAt, a, _ := peaks(tr, 20000)
		if !near(v, 1.875*d/tc.T, 1e-6) || !near(vAt, tc.T/2, 1e-3) {
			t.Errorf("%+v: peak velocity %g at %g, want %g at T/2", tc, v, vAt, 1.875*d/tc.T)
		}
		if !near(a, 5.7735*d/(tc.T*tc.T), 1e-4) {
			t.Errorf("%+v: peak acceleration %g, want %g", tc, a, 5.7735*d/(tc.T*tc.T))
		}
		out := make([]State, 1)
		tr.At(tc.T*(3-math.Sqrt(3))/6, out)
		if !near(math.Abs(out[0].Acc), 10/math.Sqrt(3)*d/(tc.T*tc.T), 1e-12) {
			t.Errorf("%+v: acceleration at the analytic peak = %g", tc, out[0].Acc)
		}
	}
}

func TestLinearSegmentsMoveAtConstantVelocityBetweenPoints(t *testing.T) {
	tr, err := New([]State{{Pos: 1}}, []Point{
		{Positions: []float64{2}, Time: 1},
		{Positions: []float64{0}, Time: 3},
	})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]State, 1)
	for _, tc := range []struct{ at, pos, vel float64 }{
		{0, 1, 1}, {0.5, 1.5, 1}, {1, 2, -1}, {2, 1, -1}, {3, 0, -1}, {4, 0, 0},
	} {
		tr.At(tc.at, out)
		if !near(out[0].Pos, tc.pos, 1e-12) || !near(out[0].Vel, tc.vel, 1e-12) || out[0].Acc != 0 {
			t.Errorf("At(%g) = %+v, want pos %g vel %g acc 0", tc.at, out[0], tc.pos, tc.vel)
		}
	}
}

func TestStatesAreContinuousAtWaypointsUpToTheSegmentOrder(t *testing.T) {
	start := []State{{Pos: 0.1, Vel: 0.2, Acc: -0.3}, {Pos: -1, Vel: 0, Acc: 0}}
	for _, tc := range []struct {
		name     string
		vel, acc bool
	}{
		{"linear", false, false}, {"cubic", true, false}, {"quintic", true, true},
	} {
		var pts []Point
		for i := 1; i <= 5; i++ {
			p := Point{Positions: []float64{math.Sin(float64(i)), float64(i) * 0.3}, Time: float64(i) * 0.7}
			if tc.vel {
				p.Velocities = []float64{math.Cos(float64(i)), 0.1}
			}
			if tc.acc {
				p.Accelerations = []float64{-math.Sin(float64(i)), 0}
			}
			pts = append(pts, p)
		}
		tr, err := New(start, pts)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < tr.Segments()-1; i++ {
			for j := 0; j < 2; j++ {
				a, b := tr.Segment(i, j), tr.Segment(i+1, j)
				end, next := a.Eval(a.Duration), b.Eval(0)
				if !near(end.Pos, next.Pos, 1e-9) || !near(end.Pos, pts[i].Positions[j], 1e-9) {
					t.Errorf("%s: position jumps at point %d joint %d: %g → %g", tc.name, i, j, end.Pos, next.Pos)
				}
				if tc.vel && !near(end.Vel, next.Vel, 1e-9) {
					t.Errorf("%s: velocity jumps at point %d joint %d", tc.name, i, j)
				}
				if tc.acc && !near(end.Acc, next.Acc, 1e-9) {
					t.Errorf("%s: acceleration jumps at point %d joint %d", tc.name, i, j)
				}
			}
		}
		if tc.vel {
			out := make([]State, 2)
			tr.At(0, out)
			if out[0].Pos != start[0].Pos || out[0].Vel != start[0].Vel {
				t.Errorf("%s: first segment does not start from the current state: %+v", tc.name, out[0])
			}
			if tc.acc && out[0].Acc != start[0].Acc {
				t.Errorf("%s: quintic first segment ignores the current acceleration: %+v", tc.name, out[0])
			}
		}
	}
}

func TestSegmentKindIsTheLowestCommonSpecificationOfBothEnds(t *testing.T) {
	pv := Point{Positions: []float64{1}, Velocities: []float64{0}}
	pva := Point{Positions: []float64{1}, Velocities: []float64{0}, Accelerations: []float64{0}}
	p := Point{Positions: []float64{1}}
	pa := Point{Positions: []float64{1}, Accelerations: []float64{0}}
	for _, tc := range []struct {
		name string
		pts  []Point
		want []Kind
	}{
		{"first from full start state", []Point{pva}, []Kind{Quintic}},
		{"velocities only", []Point{pv}, []Kind{Cubic}},
		{"accelerations without velocities stay linear", []Point{pa}, []Kind{Linear}},
		{"mixed", []Point{pva, pv, pva, pva, p, pva}, []Kind{Quintic, Cubic, Cubic, Quintic, Linear, Linear}},
	} {
		pts := make([]Point, len(tc.pts))
		for i := range tc.pts {
			pts[i] = tc.pts[i]
			pts[i].Time = float64(i + 1)
		}
		tr, err := New([]State{{}}, pts)
		if err != nil {
			t.Fatal(err)
		}
		for i, k := range tc.want {
			if got := tr.Segment(i, 0).Kind; got != k {
				t.Errorf("%s: segment %d is %v, want %v", tc.name, i, got, k)
			}
		}
	}
}

func TestOutsideTheTrajectoryTheJointHoldsAtRest(t *testing.T) {
	tr, err := New([]State{{Pos: 0.5, Vel: 1, Acc: 2}}, []Point{
		{Positions: []float64{1}, Velocities: []float64{0.7}, Accelerations: []float64{1}, Time: 2},
	})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]State, 1)
	for _, tc := range []struct {
		at   float64
		want State
	}{
		{-1, State{Pos: 0.5}}, {math.NaN(), State{Pos: 0.5}}, {math.Inf(-1), State{Pos: 0.5}},
		{2, State{Pos: 1, Vel: 0.7, Acc: 1}}, {2.000001, State{Pos: 1}}, {math.Inf(1), State{Pos: 1}},
	} {
		tr.At(tc.at, out)
		if !near(out[0].Pos, tc.want.Pos, 1e-12) || !near(out[0].Vel, tc.want.Vel, 1e-12) || !near(out[0].Acc, tc.want.Acc, 1e-12) {
			t.Errorf("At(%g) = %+v, want %+v", tc.at, out[0], tc.want)
		}
	}
	if tr.Duration() != 2 {
		t.Errorf("Duration = %g", tr.Duration())
	}
}

func TestInvalidInputIsRejectedWithItsPosition(t *testing.T) {
	ok := func() []Point { return []Point{{Positions: []float64{0, 0}, Time: 1}} }
	two := []State{{}, {}}
	nan, inf := math.NaN(), math.Inf(1)
	for _, tc := range []struct {
		name  string
		start []State
		pts   []Point
		wrap  []bool
		want  error
		point int
		joint int
		field string
	}{
		{"no joints", nil, ok(), nil, ErrEmpty, -1, -1, "start"},
		{"no points", two, nil, nil, ErrEmpty, -1, -1, "points"},
		{"start NaN", []State{{}, {Vel: nan}}, ok(), nil, ErrNotFinite, -1, 1, "start"},
		{"short positions", two, []Point{{Positions: []float64{0}, Time: 1}}, nil, ErrLength, 0, -1, "positions"},
		{"long velocities", two, []Point{{Positions: []float64{0, 0}, Velocities: []float64{0, 0, 0}, Time: 1}}, nil, ErrLength, 0, -1, "velocities"},
		{"short accelerations", two, []Point{{Positions: []float64{0, 0}, Accelerations: []float64{0}, Time: 1}}, nil, ErrLength, 0, -1, "accelerations"},
		{"zero time", two, []Point{{Positions: []float64{0, 0}}}, nil, ErrTimeOrder, 0, -1, "time"},
		{"negative time", two, []Point{{Positions: []float64{0, 0}, Time: -1}}, nil, ErrTimeOrder, 0, -1, "time"},
		{"repeated time", two, append(ok(), Point{Positions: []float64{0, 0}, Time: 1}), nil, ErrTimeOrder, 1, -1, "time"},
		{"NaN time", two, []Point{{Positions: []float64{0, 0}, Time: nan}}, nil, ErrNotFinite, 0, -1, "time"},
		{"Inf time", two, []Point{{Positions: []float64{0, 0}, Time: inf}}, nil, ErrNotFinite, 0, -1, "time"},
		{"vanishing segment", two, []Point{{Positions: []float64{0, 0}, Time: 1e-70}}, nil, ErrTimeRange, 0, -1, "time"},
		{"endless segment", two, []Point{{Positions: []float64{0, 0}, Time: 1e70}}, nil, ErrTimeRange, 0, -1, "time"},
		{"Inf position", two, []Point{{Positions: []float64{0, -inf}, Time: 1}}, nil, ErrNotFinite, 0, 1, "positions"},
		{"NaN velocity", two, []Point{{Positions: []float64{0, 0}, Velocities: []float64{nan, 0}, Time: 1}}, nil, ErrNotFinite, 0, 0, "velocities"},
		{"NaN acceleration", two, []Point{{Positions: []float64{0, 0}, Velocities: []float64{0, 0}, Accelerations: []float64{0, nan}, Time: 1}}, nil, ErrNotFinite, 0, 1, "accelerations"},
		{"overflowing coefficients", two, []Point{{Positions: []float64{0, 1e308}, Velocities: []float64{0, -1e308}, Time: 1e-5}}, nil, ErrNotFinite, 0, 1, "coefficients"},
		{"wrap flags mismatch", two, ok(), []bool{true}, ErrLength, -1, -1, "wraparound"},
	} {
		tr, err := NewWraparound(tc.start, tc.pts, tc.wrap)
		var se *Error
		if tr != nil || !errors.Is(err, tc.want) || !errors.As(err, &se) {
			t.Errorf("%s: got %v, %v; want %v", tc.name, tr, err, tc.want)
			continue
		}
		if se.Point != tc.point || se.Joint != tc.joint || se.Field != tc.field {
			t.Errorf("%s: error at point %d joint %d field %q, want %d %d %q (%v)", tc.name, se.Point, se.Joint, se.Field, tc.point, tc.joint, tc.field, err)
		}
	}
}

func TestWrapOffsetTakesTheShortestWayRound(t *testing.T) {
	for _, tc := range []struct{ current, target, wantEnd float64 }{
		{0, 1, 1},
		{3, -3, 2*math.Pi - 3},
		{-3, 3, 3 - 2*math.Pi},
		{0, 7, 7 - 2*math.Pi},
		{10, 0, 4 * math.Pi},
		{0, math.Pi, math.Pi},   // half a turn: the raw direction wins
		{0, -math.Pi, -math.Pi}, // likewise
		{1, 1 + math.Pi, 1 + math.Pi},
	} {
		got := tc.target + WrapOffset(tc.current, tc.target)
		if !near(got, tc.wantEnd, 1e-12) {
			t.Errorf("WrapOffset(%g, %g): moves to %g, want %g", tc.current, tc.target, got, tc.wantEnd)
		}
	}
}

func TestWraparoundShiftsEveryPointOfContinuousJointsOnly(t *testing.T) {
	start := []State{{Pos: 3}, {Pos: 3}}
	pts := []Point{{Positions: []float64{-3, -3}, Time: 1}, {Positions: []float64{-2.5, -2.5}, Time: 2}}
	tr, err := NewWraparound(start, pts, []bool{true, false})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]State, 2)
	tr.At(2, out)
	if !near(out[0].Pos, -2.5+2*math.Pi, 1e-12) || out[1].Pos != -2.5 {
		t.Errorf("end = %+v, want continuous joint at %g and the other at -2.5", out, -2.5+2*math.Pi)
	}
}

func TestSamplingNeverAllocates(t *testing.T) {
	pts := make([]Point, 100)
	for i := range pts {
		pts[i] = Point{Positions: make([]float64, 7), Velocities: make([]float64, 7), Accelerations: make([]float64, 7), Time: float64(i+1) * 0.01}
	}
	tr, err := New(make([]State, 7), pts)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]State, 7)
	if n := testing.AllocsPerRun(100, func() { tr.At(0.337, out) }); n != 0 {
		t.Errorf("At allocates %v times", n)
	}
}

func TestNilAndShortOutputsAreHarmless(t *testing.T) {
	var tr *Trajectory
	tr.At(1, make([]State, 3))
	if tr.Duration() != 0 || tr.Joints() != 0 || tr.Segments() != 0 || tr.Segment(0, 0) != (Segment{}) {
		t.Error("nil trajectory reports content")
	}
	tr, _ = New([]State{{}, {}}, []Point{{Positions: []float64{1, 2}, Time: 1}})
	tr.At(0.5, nil)
	out := make([]State, 1)
	tr.At(0.5, out)
	if out[0].Pos != 0.5 {
		t.Errorf("short output got %+v", out[0])
	}
	if tr.Segment(5, 0) != (Segment{}) || tr.Segment(0, -1) != (Segment{}) {
		t.Error("out-of-range segment is not zero")
	}
}

func BenchmarkAt7Joints1000Points(b *testing.B) {
	pts := make([]Point, 1000)
	for i := range pts {
		p := Point{Positions: make([]float64, 7), Velocities: make([]float64, 7), Accelerations: make([]float64, 7), Time: float64(i+1) * 0.01}
		for j := range p.Positions {
			p.Positions[j] = math.Sin(float64(i) * 0.01 * float64(j+1))
		}
		pts[i] = p
	}
	tr, err := New(make([]State, 7), pts)
	if err != nil {
		b.Fatal(err)
	}
	out := make([]State, 7)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		tr.At(float64(i%10000)*0.001, out)
	}
}
