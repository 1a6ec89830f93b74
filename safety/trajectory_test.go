package safety

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/actbridge/actbridge/spline"
)

var armJoints = []string{"shoulder_pan_joint", "shoulder_lift_joint", "elbow_joint", "wrist_1_joint", "wrist_2_joint", "wrist_3_joint"}

// restToRest is a single-point move of the named joints, at rest at both ends.
func restToRest(from, to []float64, T float64) ([]spline.State, []spline.Point) {
	start := make([]spline.State, len(from))
	for j := range from {
		start[j].Pos = from[j]
	}
	n := len(to)
	return start, []spline.Point{{Positions: to, Velocities: make([]float64, n), Accelerations: make([]float64, n), Time: T}}
}

// quinticFraction is s in [0, 1] where a rest-to-rest quintic has covered frac of its motion.
func quinticFraction(frac float64) float64 {
	lo, hi := 0.0, 1.0
	for range 100 {
		s := (lo + hi) / 2
		if 10*s*s*s-15*s*s*s*s+6*s*s*s*s*s < frac {
			lo = s
		} else {
			hi = s
		}
	}
	return lo
}

func close(a, b float64) bool { return math.Abs(a-b) <= 1e-6*math.Max(1, math.Abs(b)) }

func TestMotionWithinLimitsHasNoViolationsAndSummarizesEachJoint(t *testing.T) {
	l := loadArm(t)
	start, pts := restToRest([]float64{0, 0.5}, []float64{1, 0.5}, 3)
	r, err := l.CheckTrajectory([]string{"shoulder_pan_joint", "elbow_joint"}, start, pts, CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !r.OK() || len(r.Warnings) != 0 || r.Duration != 3 {
		t.Fatalf("violations %+v warnings %+v duration %g", r.Violations, r.Warnings, r.Duration)
	}
	pan := r.Joints[0]
	want := JointSummary{Joint: "shoulder_pan_joint", From: 0, To: 1, Delta: 1, MinPosition: 0, MaxPosition: 1,
		PeakVelocity: 1.875 / 3, VelocityLimit: 1.5, PercentOfLimit: 100 * 1.875 / 3 / 1.5,
		PeakAcceleration: 5.7735026918962576 / 9, AccelerationLimit: 3}
	for _, f := range []struct {
		name      string
		got, want float64
	}{
		{"from", pan.From, want.From}, {"to", pan.To, want.To}, {"delta", pan.Delta, want.Delta},
		{"min", pan.MinPosition, want.MinPosition}, {"max", pan.MaxPosition, want.MaxPosition},
		{"peak velocity", pan.PeakVelocity, want.PeakVelocity}, {"velocity limit", pan.VelocityLimit, want.VelocityLimit},
		{"percent", pan.PercentOfLimit, want.PercentOfLimit}, {"peak acceleration", math.Abs(pan.PeakAcceleration), want.PeakAcceleration},
		{"acceleration limit", pan.AccelerationLimit, want.AccelerationLimit},
	} {
		if !close(f.got, f.want) {
			t.Errorf("%s = %.12g, want %.12g", f.name, f.got, f.want)
		}
	}
	if e := r.Joints[1]; e.Joint != "elbow_joint" || e.Delta != 0 || e.PeakVelocity != 0 || e.PercentOfLimit != 0 {
		t.Errorf("resting elbow summary %+v", e)
	}
}

func TestEachViolationKindNamesJointTimeValueAndLimit(t *testing.T) {
	l := loadArm(t)
	const any = math.MaxFloat64 // Start/End not checked exactly
	sElbow := quinticFraction(0.6 / 0.7)
	sAcc := (3 - math.Sqrt(3)) / 6
	sJerk := (6 - math.Sqrt(36-24*(1-200/262.5))) / 12
	for _, tc := range []struct {
		name   string
		joint  string
		start  []spline.State
		points []spline.Point
		want   []Violation
	}{
		{
			name: "position beyond the soft limit", joint: "elbow_joint",
			start:  []spline.State{{Pos: 2}},
			points: []spline.Point{{Positions: []float64{2.7}, Velocities: []float64{0}, Accelerations: []float64{0}, Time: 2}},
			want:   []Violation{{Kind: KindPosition, Time: 2, Value: 2.7, Limit: 2.6, Start: 2 * sElbow, End: 2}},
		},
		{
			name: "position below the lower limit", joint: "shoulder_lift_joint",
			start:  []spline.State{{Pos: 0}},
			points: []spline.Point{{Positions: []float64{-2.2}, Velocities: []float64{0}, Accelerations: []float64{0}, Time: 4}},
			want:   []Violation{{Kind: KindPosition, Time: 4, Value: -2.2, Limit: -2, Start: 4 * quinticFraction(2/2.2), End: 4}},
		},
		{
			name: "velocity over the limit at mid-move", joint: "shoulder_pan_joint",
			start:  []spline.State{{Pos: -1.5}},
			points: []spline.Point{{Positions: []float64{1.5}, Velocities: []float64{0}, Accelerations: []float64{0}, Time: 3}},
			want:   []Violation{{Kind: KindVelocity, Time: 1.5, Value: 1.875, Limit: 1.5, Start: any, End: any}},
		},
		{
			name: "velocity under the negative limit", joint: "shoulder_pan_joint",
			start:  []spline.State{{Pos: 1.5}},
			points: []spline.Point{{Positions: []float64{-1.5}, Velocities: []float64{0}, Accelerations: []float64{0}, Time: 3}},
			want:   []Violation{{Kind: KindVelocity, Time: 1.5, Value: -1.875, Limit: -1.5, Start: any, End: any}},
		},
		{
			name: "acceleration over the limit on both sides", joint: "shoulder_pan_joint",
			start:  []spline.State{{Pos: 0}},
			points: []spline.Point{{Positions: []float64{0.5}, Velocities: []float64{0}, Accelerations: []float64{0}, Time: 0.8}},
			want: []Violation{
				{Kind: KindAcceleration, Time: 0.8 * sAcc, Value: 5.7735026918962576 * 0.5 / 0.64, Limit: 3, Start: any, End: any},
				{Kind: KindAcceleration, Time: 0.8 * (1 - sAcc), Value: -5.7735026918962576 * 0.5 / 0.64, Limit: -3, Start: any, End: any},
			},
		},
		{
			name: "jerk over the limit at both ends", joint: "wrist_1_joint",
			start:  []spline.State{{Pos: 0}},
			points: []spline.Point{{Positions: []float64{0.035}, Velocities: []float64{0}, Accelerations: []float64{0}, Time: 0.2}},
			want: []Violation{
				{Kind: KindJerk, Time: 0, Value: 262.5, Limit: 200, Start: 0, End: 0.2 * sJerk},
				{Kind: KindJerk, Time: 0.2, Value: 262.5, Limit: 200, Start: 0.2 * (1 - sJerk), End: 0.2},
			},
		},
		{
			name: "velocity steps of a positions-only trajectory", joint: "shoulder_pan_joint",
			start:  []spline.State{{Pos: 0}},
			points: []spline.Point{{Positions: []float64{0.5}, Time: 1}, {Positions: []float64{0.5}, Time: 2}},
			want: []Violation{
				{Kind: KindVelocityStep, Time: 0, Value: 0.5, Start: 0, End: 0},
				{Kind: KindVelocityStep, Time: 1, Value: -0.5, Start: 1, End: 1},
			},
		},
		{
			name: "a final velocity is a step to the hold", joint: "elbow_joint",
			start:  []spline.State{{Pos: 0}},
			points: []spline.Point{{Positions: []float64{0.5}, Velocities: []float64{0.2}, Time: 2}},
			want:   []Violation{{Kind: KindVelocityStep, Time: 2, Value: -0.2, Start: 2, End: 2}},
		},
	} {
		r, err := l.CheckTrajectory([]string{tc.joint}, tc.start, tc.points, CheckOptions{})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if len(r.Violations) != len(tc.want) {
			t.Errorf("%s: %d violations %+v, want %d", tc.name, len(r.Violations), r.Violations, len(tc.want))
			continue
		}
		for i, w := range tc.want {
			g := r.Violations[i]
			ok := g.Joint == tc.joint && g.Kind == w.Kind && close(g.Time, w.Time) && close(g.Value, w.Value) && close(g.Limit, w.Limit) &&
				(w.Start == any || close(g.Start, w.Start)) && (w.End == any || close(g.End, w.End)) && g.Start <= g.Time && g.Time <= g.End
			if !ok {
				t.Errorf("%s: violation %d\n got %+v\nwant %+v", tc.name, i, g, w)
			}
		}
	}
}

// sineTrajectory samples p(t) = a·sin(ωt) as quintic points every dt until T.
func sineTrajectory(a, w, dt, T float64) ([]spline.State, []spline.Point) {
	start := []spline.State{{Pos: 0, Vel: a * w, Acc: 0}}
	var pts []spline.Point
	for t := dt; t <= T+1e-9; t += dt {
		pts = append(pts, spline.Point{
			Positions: []float64{a * math.Sin(w*t)}, Velocities: []float64{a * w * math.Cos(w*t)},
			Accelerations: []float64{-a * w * w * math.Sin(w*t)}, Time: t,
		})
	}
	return start, pts
}

func TestAViolationThatSpansWaypointsIsReportedOnce(t *testing.T) {
	l := loadArm(t)
	// 3·sin(4t/3) on wrist_2 (limit 3 rad/s): the velocity 4·cos(4t/3) exceeds
	// 3 from 0 until cos(4t/3) = 0.75, a stretch across ten 0.05 s points.
	start, pts := sineTrajectory(3, 4.0/3, 0.05, 1)
	r, err := l.CheckTrajectory([]string{"wrist_2_joint"}, start, pts, CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var vel []Violation
	for _, v := range r.Violations {
		if v.Kind == KindVelocity {
			vel = append(vel, v)
		}
	}
	wantEnd := math.Acos(0.75) / (4.0 / 3)
	if len(vel) != 1 || vel[0].Start != 0 || !close(vel[0].Value, 4) || vel[0].Time != 0 || math.Abs(vel[0].End-wantEnd) > 1e-6 {
		t.Fatalf("velocity violations %+v, want one from 0 to %g", vel, wantEnd)
	}
}

// TestExactAnalysisFindsEveryViolationDenseSamplingFinds cross-checks the
// closed-form analysis against brute force on random trajectories of every
// segment kind: each sample beyond a limit lies inside a reported violation,
// and every reported peak is confirmed by the samples.
func TestExactAnalysisFindsEveryViolationDenseSamplingFinds(t *testing.T) {
	l := loadArm(t)
	rng := rand.New(rand.NewPCG(1, 2))
	joints := []string{"shoulder_pan_joint", "elbow_joint", "wrist_1_joint"}
	for trial := range 60 {
		n := 1 + rng.IntN(6)
		start := make([]spline.State, 3)
		for j := range start {
			start[j] = spline.State{Pos: rng.Float64()*2 - 1, Vel: rng.NormFloat64() * 0.5, Acc: rng.NormFloat64()}
		}
		kind := trial % 3
		var pts []spline.Point
		tm := 0.0
		for range n {
			tm += 0.2 + rng.Float64()
			p := spline.Point{Positions: make([]float64, 3), Time: tm}
			if kind >= 1 {
				p.Velocities = make([]float64, 3)
			}
			if kind >= 2 {
				p.Accelerations = make([]float64, 3)
			}
			for j := range 3 {
				p.Positions[j] = rng.Float64()*6 - 3
				if kind >= 1 {
					p.Velocities[j] = rng.NormFloat64() * 2
				}
				if kind >= 2 {
					p.Accelerations[j] = rng.NormFloat64() * 4
				}
			}
			pts = append(pts, p)
		}
		r, err := l.CheckTrajectory(joints, start, pts, CheckOptions{})
		if err != nil {
			t.Fatal(err)
		}
		const samples = 20000
		out := make([]spline.State, 3)
		peakV := make([]float64, 3)
		for k := 0; k <= samples; k++ {
			at := r.Duration * float64(k) / samples
			r.Trajectory.At(at, out)
			for j, name := range joints {
				lim, _ := l.Joint(name)
				peakV[j] = math.Max(peakV[j], math.Abs(out[j].Vel))
				check := func(kind Kind, v, lo, hi float64) {
					if v <= hi+1e-6 && v >= lo-1e-6 {
						return
					}
					for _, viol := range r.Violations {
						if viol.Joint == name && viol.Kind == kind && at >= viol.Start-1e-9 && at <= viol.End+1e-9 {
							return
						}
					}
					t.Fatalf("trial %d: %s %s %g at %g outside [%g, %g] is in no violation: %+v", trial, name, kind, v, at, lo, hi, r.Violations)
				}
				check(KindPosition, out[j].Pos, lim.MinPosition.Value, lim.MaxPosition.Value)
				check(KindVelocity, out[j].Vel, -lim.MaxVelocity.Value, lim.MaxVelocity.Value)
				if kind > 0 { // linear segments' accelerations are the velocity steps
					check(KindAcceleration, out[j].Acc, -lim.MaxAcceleration.Value, lim.MaxAcceleration.Value)
				}
			}
		}
		for j := range joints {
			got := math.Abs(r.Joints[j].PeakVelocity)
			if peakV[j] > got+1e-9 || peakV[j] < got*(1-1e-3)-1e-6 {
				t.Errorf("trial %d: %s peak velocity %g, sampling finds %g", trial, joints[j], got, peakV[j])
			}
		}
		for _, v := range r.Violations {
			if v.Kind == KindVelocityStep || v.Kind == KindJerk {
				continue
			}
			// At a waypoint the samples come from the next segment; a peak
			// ending the previous one is its left limit.
			j := map[string]int{joints[0]: 0, joints[1]: 1, joints[2]: 2}[v.Joint]
			var got [2]float64
			for i, at := range [2]float64{v.Time, v.Time - 1e-9} {
				r.Trajectory.At(at, out)
				got[i] = map[Kind]float64{KindPosition: out[j].Pos, KindVelocity: out[j].Vel, KindAcceleration: out[j].Acc}[v.Kind]
			}
			if !close(got[0], v.Value) && !close(got[1], v.Value) {
				t.Errorf("trial %d: violation %+v, trajectory has %g there", trial, v, got)
			}
		}
	}
}

func TestWarningsFlagMotionsCloseToLimitsLargeOrLong(t *testing.T) {
	l := loadArm(t)
	free, err := NewLimits([]JointLimits{{Name: "free", Type: Continuous, MaxVelocity: Limit{10, SourceYAML}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		limits *Limits
		joint  string
		start  []spline.State
		points []spline.Point
		opt    CheckOptions
		want   []Warning
		mirror bool // the peak is as large on the other side; either may be reported
	}{
		{
			name: "near the position limit", limits: l, joint: "elbow_joint",
			start:  []spline.State{{Pos: 2}},
			points: []spline.Point{{Positions: []float64{2.55}, Velocities: []float64{0}, Accelerations: []float64{0}, Time: 3}},
			want:   []Warning{{Kind: WarnNearPositionLimit, Time: 3, Value: 2.55, Limit: 2.6}},
		},
		{
			name: "near the velocity limit", limits: l, joint: "shoulder_pan_joint",
			start:  []spline.State{{Pos: -1.5}},
			points: []spline.Point{{Positions: []float64{1.5}, Velocities: []float64{0}, Accelerations: []float64{0}, Time: 3.8}},
			want: []Warning{
				{Kind: WarnNearVelocityLimit, Time: 1.9, Value: 1.875 * 3 / 3.8, Limit: 1.5},
				{Kind: WarnLargeMotion, Time: 3.8, Value: 3, Limit: math.Pi / 2},
			},
		},
		{
			name: "near the acceleration limit", limits: l, joint: "shoulder_pan_joint",
			start:  []spline.State{{Pos: 0}},
			points: []spline.Point{{Positions: []float64{0.5}, Velocities: []float64{0}, Accelerations: []float64{0}, Time: 0.99}},
			want: []Warning{
				{Kind: WarnNearAccelerationLimit, Time: 0.99 * (3 - math.Sqrt(3)) / 6, Value: 5.7735026918962576 * 0.5 / (0.99 * 0.99), Limit: 3},
			},
			mirror: true,
		},
		{
			name: "large motion threshold is configurable", limits: l, joint: "wrist_2_joint",
			start:  []spline.State{{Pos: 0}},
			points: []spline.Point{{Positions: []float64{-0.6}, Velocities: []float64{0}, Accelerations: []float64{0}, Time: 2}},
			opt:    CheckOptions{LargeMotion: 0.5},
			want:   []Warning{{Kind: WarnLargeMotion, Time: 2, Value: -0.6, Limit: 0.5}},
		},
		{
			name: "long duration", limits: l, joint: "wrist_2_joint",
			start:  []spline.State{{Pos: 0}},
			points: []spline.Point{{Positions: []float64{0.1}, Velocities: []float64{0}, Accelerations: []float64{0}, Time: 40}},
			want:   []Warning{{Kind: WarnLongDuration, Time: 40, Value: 40, Limit: 30}},
		},
		{
			name: "velocity step without an acceleration limit", limits: free, joint: "free",
			start:  []spline.State{{Pos: 0}},
			points: []spline.Point{{Positions: []float64{1}, Time: 2}},
			want: []Warning{
				{Kind: WarnVelocityStep, Time: 0, Value: 0.5},
				{Kind: WarnVelocityStep, Time: 2, Value: -0.5},
			},
		},
		{
			name: "starting near a limit and moving away is not a warning", limits: l, joint: "elbow_joint",
			start:  []spline.State{{Pos: 2.58}},
			points: []spline.Point{{Positions: []float64{2}, Velocities: []float64{0}, Accelerations: []float64{0}, Time: 3}},
		},
	} {
		r, err := tc.limits.CheckTrajectory([]string{tc.joint}, tc.start, tc.points, tc.opt)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !r.OK() || len(r.Warnings) != len(tc.want) {
			t.Errorf("%s: violations %+v, warnings %+v, want %+v", tc.name, r.Violations, r.Warnings, tc.want)
			continue
		}
		for i, w := range tc.want {
			g := r.Warnings[i]
			if w.Kind != WarnLongDuration {
				w.Joint = tc.joint
			}
			if tc.mirror && g.Value < 0 {
				g.Time, g.Value = r.Duration-g.Time, -g.Value
			}
			if g.Joint != w.Joint || g.Kind != w.Kind || !close(g.Time, w.Time) || !close(g.Value, w.Value) || !close(g.Limit, w.Limit) {
				t.Errorf("%s: warning %d\n got %+v\nwant %+v", tc.name, i, g, w)
			}
		}
	}
}

func TestContinuousJointsMoveTheShortestWayRoundAsTheController(t *testing.T) {
	l := loadArm(t)
	start, pts := restToRest([]float64{3}, []float64{-3}, 1)
	r, err := l.CheckTrajectory([]string{"wrist_3_joint"}, start, pts, CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := r.Joints[0]
	if !r.OK() || !close(s.To, 2*math.Pi-3) || !close(s.Delta, 2*math.Pi-6) || !close(s.PeakVelocity, 1.875*(2*math.Pi-6)) {
		t.Errorf("summary %+v violations %+v", s, r.Violations)
	}
}

func TestMalformedRequestsAreStructuredErrorsNotViolations(t *testing.T) {
	l := loadArm(t)
	two := []string{"shoulder_pan_joint", "elbow_joint"}
	rest := []spline.State{{}, {}}
	pt := func(t float64, pos ...float64) spline.Point { return spline.Point{Positions: pos, Time: t} }
	nan, inf := math.NaN(), math.Inf(1)
	many := make([]spline.Point, 11)
	for i := range many {
		many[i] = pt(float64(i+1), 0, 0)
	}
	for _, tc := range []struct {
		name   string
		joints []string
		start  []spline.State
		points []spline.Point
		opt    CheckOptions
		want   error
		field  string
		joint  string
	}{
		{"no joints", nil, nil, []spline.Point{pt(1)}, CheckOptions{}, ErrEmpty, "joints", ""},
		{"unknown joint", []string{"shoulder_pan_joint", "gripper"}, rest, []spline.Point{pt(1, 0, 0)}, CheckOptions{}, ErrUnknownJoint, "joints[1]", "gripper"},
		{"fixed joint", []string{"tool0_fixed_joint"}, rest[:1], []spline.Point{pt(1, 0)}, CheckOptions{}, ErrUnknownJoint, "joints[0]", "tool0_fixed_joint"},
		{"duplicate joint", []string{"elbow_joint", "elbow_joint"}, rest, []spline.Point{pt(1, 0, 0)}, CheckOptions{}, ErrDuplicateJoint, "joints[1]", "elbow_joint"},
		{"more joints than the robot has", make([]string, 7), nil, nil, CheckOptions{}, ErrTooLarge, "joints", ""},
		{"start of the wrong length", two, rest[:1], []spline.Point{pt(1, 0, 0)}, CheckOptions{}, ErrLength, "start", ""},
		{"NaN in start", two, []spline.State{{}, {Vel: nan}}, []spline.Point{pt(1, 0, 0)}, CheckOptions{}, ErrNotFinite, "start[1]", "elbow_joint"},
		{"no points", two, rest, nil, CheckOptions{}, ErrEmpty, "points", ""},
		{"too many points", two, rest, many, CheckOptions{MaxPoints: 10}, ErrTooLarge, "points", ""},
		{"short positions", two, rest, []spline.Point{pt(1, 0)}, CheckOptions{}, ErrLength, "points[0].positions", ""},
		{"velocities of the wrong length", two, rest, []spline.Point{{Positions: []float64{0, 0}, Velocities: []float64{0}, Time: 1}}, CheckOptions{}, ErrLength, "points[0].velocities", ""},
		{"NaN position", two, rest, []spline.Point{pt(1, 0, 0), pt(2, nan, 0)}, CheckOptions{}, ErrNotFinite, "points[1].positions[0]", "shoulder_pan_joint"},
		{"Inf acceleration", two, rest, []spline.Point{{Positions: []float64{0, 0}, Velocities: []float64{0, 0}, Accelerations: []float64{0, -inf}, Time: 1}}, CheckOptions{}, ErrNotFinite, "points[0].accelerations[1]", "elbow_joint"},
		{"absurd magnitude", two, rest, []spline.Point{pt(1, 0, 1e300)}, CheckOptions{}, ErrOutOfRange, "points[0].positions[1]", "elbow_joint"},
		{"NaN time", two, rest, []spline.Point{pt(nan, 0, 0)}, CheckOptions{}, ErrNotFinite, "points[0].time_from_start", ""},
		{"zero time", two, rest, []spline.Point{pt(0, 0, 0)}, CheckOptions{}, ErrTimeOrder, "points[0].time_from_start", ""},
		{"time going back", two, rest, []spline.Point{pt(2, 0, 0), pt(1, 0, 0)}, CheckOptions{}, ErrTimeOrder, "points[1].time_from_start", ""},
		{"points a nanosecond apart", two, rest, []spline.Point{pt(1, 0, 0), pt(1+1e-9, 0, 0)}, CheckOptions{}, ErrTimeOrder, "points[1].time_from_start", ""},
		{"a month-long motion", two, rest, []spline.Point{pt(3e6, 0, 0)}, CheckOptions{}, ErrOutOfRange, "points[0].time_from_start", ""},
	} {
		r, err := l.CheckTrajectory(tc.joints, tc.start, tc.points, tc.opt)
		var ie *InputError
		if r != nil || !errors.Is(err, tc.want) || !errors.As(err, &ie) {
			t.Errorf("%s: got %v, %v; want %v", tc.name, r, err, tc.want)
			continue
		}
		if ie.Field != tc.field || ie.Joint != tc.joint || ie.Expected == "" {
			t.Errorf("%s: field %q joint %q expected %q, want field %q joint %q", tc.name, ie.Field, ie.Joint, ie.Expected, tc.field, tc.joint)
		}
	}
}

func TestMimicJointsCannotBeCommanded(t *testing.T) {
	l, _, err := LoadLimits([]byte(`<robot>
	  <joint name="a" type="prismatic"><limit lower="0" upper="0.04" velocity="0.1" effort="1"/></joint>
	  <joint name="b" type="prismatic"><limit lower="0" upper="0.04" velocity="0.1" effort="1"/><mimic joint="a"/></joint></robot>`), nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = l.CheckTrajectory([]string{"b"}, []spline.State{{}}, []spline.Point{{Positions: []float64{0.01}, Time: 1}}, CheckOptions{})
	if !errors.Is(err, ErrMimicJoint) || !strings.Contains(err.Error(), `"a"`) {
		t.Errorf("got %v", err)
	}
}

func TestMinDurationMeetsTheLimitsExactlyWhenCheckedBack(t *testing.T) {
	l := loadArm(t)
	for _, tc := range []struct {
		name     string
		joints   []string
		from, to []float64
		scale    float64
		binding  Kind // which limit sets the duration; "" for the floor
	}{
		{"long move is velocity bound", []string{"shoulder_pan_joint"}, []float64{-2.5}, []float64{2.5}, 1, KindVelocity},
		{"long move at half speed", []string{"shoulder_pan_joint"}, []float64{-2.5}, []float64{2.5}, 0.5, KindVelocity},
		{"short move is acceleration bound", []string{"elbow_joint"}, []float64{0}, []float64{0.8}, 1, KindAcceleration},
		{"tiny move gets the floor", []string{"elbow_joint"}, []float64{0}, []float64{0.01}, 1, ""},
		{"slowest joint decides", armJoints, []float64{0, 0, 0, 0, 0, 0}, []float64{0.3, -1.9, 2.5, 3, -3, 1}, 0.8, KindVelocity},
		{"continuous joint measured the short way", []string{"wrist_3_joint"}, []float64{3}, []float64{-3}, 1, KindAcceleration},
		{"no motion", armJoints[:2], []float64{1, 1}, []float64{1, 1}, 1, ""},
	} {
		T, err := l.MinDuration(tc.joints, tc.from, tc.to, tc.scale)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		start, pts := restToRest(tc.from, tc.to, T)
		r, err := l.CheckTrajectory(tc.joints, start, pts, CheckOptions{})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !r.OK() {
			t.Errorf("%s: T = %g violates %+v", tc.name, T, r.Violations)
		}
		// The binding joint reaches scale·limit exactly.
		worst := 0.0
		for _, s := range r.Joints {
			lim, _ := l.Joint(s.Joint)
			switch tc.binding {
			case KindVelocity:
				worst = math.Max(worst, math.Abs(s.PeakVelocity)/lim.MaxVelocity.Value)
			case KindAcceleration:
				worst = math.Max(worst, math.Abs(s.PeakAcceleration)/lim.MaxAcceleration.Value)
			}
		}
		switch {
		case tc.binding == "" && T != MinMoveDuration:
			t.Errorf("%s: T = %g, want the floor %g", tc.name, T, MinMoveDuration)
		case tc.binding != "" && !close(worst, tc.scale):
			t.Errorf("%s: binding %s at %.9g of its limit, want %g", tc.name, tc.binding, worst, tc.scale)
		}
		if tc.binding != "" && tc.scale == 1 {
			start, pts := restToRest(tc.from, tc.to, T*0.99)
			if r, _ := l.CheckTrajectory(tc.joints, start, pts, CheckOptions{}); r.OK() {
				t.Errorf("%s: 1%% faster than MinDuration is still within limits", tc.name)
			}
		}
	}
}

func TestMinDurationRejectsBadInput(t *testing.T) {
	l := loadArm(t)
	one := []string{"elbow_joint"}
	for _, tc := range []struct {
		name     string
		joints   []string
		from, to []float64
		scale    float64
		want     error
	}{
		{"zero scale", one, []float64{0}, []float64{1}, 0, ErrOutOfRange},
		{"scale above one", one, []float64{0}, []float64{1}, 1.5, ErrOutOfRange},
		{"NaN scale", one, []float64{0}, []float64{1}, math.NaN(), ErrOutOfRange},
		{"unknown joint", []string{"knee"}, []float64{0}, []float64{1}, 1, ErrUnknownJoint},
		{"length mismatch", one, []float64{0, 1}, []float64{1}, 1, ErrLength},
		{"NaN target", one, []float64{0}, []float64{math.NaN()}, 1, ErrNotFinite},
	} {
		if T, err := l.MinDuration(tc.joints, tc.from, tc.to, tc.scale); T != 0 || !errors.Is(err, tc.want) {
			t.Errorf("%s: got %g, %v; want %v", tc.name, T, err, tc.want)
		}
	}
}

// armTrajectory is a smooth rest-to-rest motion of every joint, n quintic
// points over 10 s, well within limits: p(t) = a·(1 − cos(πt/10))/2.
func armTrajectory(joints []string, n int) ([]spline.State, []spline.Point) {
	const T = 10.0
	w := math.Pi / T
	start := make([]spline.State, len(joints))
	pts := make([]spline.Point, n)
	for i := range pts {
		tm := T * float64(i+1) / float64(n)
		p := spline.Point{Positions: make([]float64, len(joints)), Velocities: make([]float64, len(joints)), Accelerations: make([]float64, len(joints)), Time: tm}
		for j := range joints {
			a := 0.5 + 0.1*float64(j)
			p.Positions[j] = a * (1 - math.Cos(w*tm)) / 2
			p.Velocities[j] = a * w * math.Sin(w*tm) / 2
			p.Accelerations[j] = a * w * w * math.Cos(w*tm) / 2
		}
		pts[i] = p
	}
	for j := range joints {
		start[j].Acc = (0.5 + 0.1*float64(j)) * w * w / 2
	}
	return start, pts
}

// arm7 is the test arm with a seventh joint, the size the budget is set for.
func arm7(t testing.TB) (*Limits, []string) {
	t.Helper()
	arm := loadArm(t)
	var js []JointLimits
	for _, n := range arm.Names() {
		j, _ := arm.Joint(n)
		js = append(js, j)
	}
	extra := js[3]
	extra.Name = "wrist_0_joint"
	js = append(js, extra)
	l, err := NewLimits(js)
	if err != nil {
		t.Fatal(err)
	}
	return l, l.Names()
}

func TestCheckingAPreviewAllocatesAConstantHandful(t *testing.T) {
	l, joints := arm7(t)
	start, pts := armTrajectory(joints, 1000)
	allocs := testing.AllocsPerRun(10, func() {
		if r, err := l.CheckTrajectory(joints, start, pts, CheckOptions{}); err != nil || !r.OK() {
			t.Fatalf("%v %+v", err, r.Violations)
		}
	})
	if allocs > 8 {
		t.Errorf("%v allocations per check", allocs)
	}
}

func BenchmarkCheckTrajectory7Joints1000Points(b *testing.B) {
	l, joints := arm7(b)
	start, pts := armTrajectory(joints, 1000)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := l.CheckTrajectory(joints, start, pts, CheckOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheckTrajectory7Joints1000StopAndGoPoints is the slow path: every
// segment is a rest-to-rest quintic, so every one has interior extremes to
// solve for.
func BenchmarkCheckTrajectory7Joints1000StopAndGoPoints(b *testing.B) {
	l, joints := arm7(b)
	start := make([]spline.State, len(joints))
	pts := make([]spline.Point, 1000)
	for i := range pts {
		p := spline.Point{Positions: make([]float64, len(joints)), Velocities: make([]float64, len(joints)), Accelerations: make([]float64, len(joints)), Time: float64(i + 1)}
		for j := range p.Positions {
			p.Positions[j] = 0.02 * float64(i%2) * float64(j+1)
		}
		pts[i] = p
	}
	b.ReportAllocs()
	for b.Loop() {
		if r, err := l.CheckTrajectory(joints, start, pts, CheckOptions{}); err != nil || !r.OK() {
			b.Fatal(err, r.Violations)
		}
	}
}
