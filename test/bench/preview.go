package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/actuators/actuatorsfake"
	"github.com/actbridge/actbridge/bridge"
	"github.com/actbridge/actbridge/inflight"
	"github.com/actbridge/actbridge/safety"
	"github.com/actbridge/actbridge/spline"
)

// Joints7 is a 7-joint arm (the sim has 6): the size the preview budget is
// set for.
var joints7 = [7]string{"j1_shoulder_pan", "j2_shoulder_lift", "j3_upper_roll", "j4_elbow", "j5_forearm_roll", "j6_wrist_pitch", "j7_wrist_roll"}

// Limits7 builds the 7-joint limits in code: revolute, ±π, 2 rad/s, 4 rad/s².
func Limits7() (*safety.Limits, error) {
	var js []safety.JointLimits
	for _, n := range joints7 {
		js = append(js, safety.JointLimits{Name: n, Type: safety.Revolute,
			MinPosition:     safety.Limit{Value: -math.Pi, Source: safety.SourceURDF},
			MaxPosition:     safety.Limit{Value: math.Pi, Source: safety.SourceURDF},
			MaxVelocity:     safety.Limit{Value: 2, Source: safety.SourceYAML},
			MaxAcceleration: safety.Limit{Value: 4, Source: safety.SourceYAML},
			MaxEffort:       safety.Limit{Value: 100, Source: safety.SourceURDF}})
	}
	return safety.NewLimits(js)
}

// trajectory7 is a smooth 10 s rest-to-rest-shaped motion through n
// waypoints with positions, velocities and accelerations (quintic
// segments, the expensive case), well inside the limits.
func trajectory7(n int) []spline.Point {
	const T = 10.0
	w := math.Pi / T
	pts := make([]spline.Point, n)
	for i := range pts {
		tm := T * float64(i+1) / float64(n)
		p := spline.Point{Positions: make([]float64, 7), Velocities: make([]float64, 7), Accelerations: make([]float64, 7), Time: tm}
		for j := range 7 {
			a := 0.5 + 0.1*float64(j)
			p.Positions[j] = a * (1 - math.Cos(w*tm)) / 2
			p.Velocities[j] = a * w * math.Sin(w*tm) / 2
			p.Accelerations[j] = a * w * w * math.Cos(w*tm) / 2
		}
		pts[i] = p
	}
	return pts
}

// restRobot is a 7-joint arm at rest at zero, with fresh joint states:
// the shared fake, which passes the contract's conformance suite.
func restRobot() *actuatorsfake.Robot {
	return actuatorsfake.New(actuatorsfake.Options{
		Actuators: []actuators.ActuatorStatus{{Name: "arm", Kind: actuators.KindArm}}, Joints: joints7[:]})
}

// lastPreviewStore keeps only the last preview: the pure benchmark measures
// computing a preview, not storing it (the bbolt variant does that).
type lastPreviewStore struct {
	mu   sync.Mutex
	last inflight.Preview
	n    int
}

func (s *lastPreviewStore) PutPreview(_ context.Context, p inflight.Preview) error {
	s.mu.Lock()
	s.last, s.n = p, s.n+1
	s.mu.Unlock()
	return nil
}
func (s *lastPreviewStore) GetPreview(string) (inflight.Preview, error) {
	return inflight.Preview{}, inflight.ErrNotFound
}
func (s *lastPreviewStore) ConfirmPreview(context.Context, inflight.Preview, inflight.Motion) (inflight.Motion, bool, error) {
	return inflight.Motion{}, false, inflight.ErrNotFound
}
func (s *lastPreviewStore) Transition(context.Context, string, inflight.State, func(*inflight.Motion)) (inflight.Motion, error) {
	return inflight.Motion{}, inflight.ErrNotFound
}
func (s *lastPreviewStore) Get(string) (inflight.Motion, error) {
	return inflight.Motion{}, inflight.ErrNotFound
}
func (s *lastPreviewStore) NonTerminal() ([]inflight.Motion, error) {
	return nil, nil
}
func (s *lastPreviewStore) List(inflight.Filter, string, int) ([]inflight.Motion, int, string, error) {
	return nil, 0, "", nil
}
func (s *lastPreviewStore) Healthy() error { return nil }

// PreviewHarness is the bridge's tool layer for a 7-joint arm, in process:
// the registry, the pipeline, the previewer with the real safety checks.
type PreviewHarness struct {
	Pipeline *bridge.Pipeline
	Args     json.RawMessage // arm_follow_trajectory's arguments
	Limits   *safety.Limits
	Joints   []string
	Points   []spline.Point
	start    []spline.State
	guard    bridge.SafetyArm
}

// NewPreviewHarness wires the tool layer to store (nil: a memory store
// keeping the last preview) for an n-point trajectory.
func NewPreviewHarness(n int, store bridge.MotionStore) (*PreviewHarness, error) {
	lim, err := Limits7()
	if err != nil {
		return nil, err
	}
	if store == nil {
		store = &lastPreviewStore{}
	}
	h := &PreviewHarness{Limits: lim, Joints: joints7[:], Points: trajectory7(n), start: make([]spline.State, 7),
		guard: bridge.SafetyArm{Limits: lim, PlotSamples: 40}}
	signer := bridge.PreviewSigner{Key: []byte("bench-preview-key-0123456789abcdef")}
	robot := restRobot()
	m := &bridge.Motions{Robot: robot, Store: store, Signer: signer, Now: time.Now,
		Confirmer: func(string) bridge.Role { return bridge.RolePlanner },
		EStop:     func() (bool, uint64, string) { return false, 0, "" }}
	p := &bridge.Previewer{Robot: robot, Store: store, Signer: signer, Motions: m,
		Arms: []*bridge.ArmModel{{Name: "arm", Joints: h.Joints, Guard: bridge.SafetyArm{Limits: lim, PlotSamples: 40}}},
		TTL:  time.Minute, StaleAfter: time.Second, SpeedScale: func() float64 { return 1 },
		Now: time.Now, LongDuration: 30}
	reg := bridge.NewRegistry()
	if err := reg.Add(p.ArmFollowTrajectory()); err != nil {
		return nil, err
	}
	h.Pipeline = bridge.NewPipeline(reg, bridge.PipelineDeps{})

	type point struct {
		Positions     []float64 `json:"positions"`
		Velocities    []float64 `json:"velocities"`
		Accelerations []float64 `json:"accelerations"`
		Time          float64   `json:"time_from_start"`
	}
	in := struct {
		Joints []string `json:"joints"`
		Points []point  `json:"points"`
	}{Joints: h.Joints}
	// A planner sends rounded numbers: full float64 precision would not
	// fit the bridge's 256 KB argument limit at 1000 points.
	r4 := func(xs []float64) []float64 {
		out := make([]float64, len(xs))
		for i, x := range xs {
			out[i] = math.Round(x*1e5) / 1e5
		}
		return out
	}
	for _, pt := range h.Points {
		in.Points = append(in.Points, point{r4(pt.Positions), r4(pt.Velocities), r4(pt.Accelerations), math.Round(pt.Time*1e5) / 1e5})
	}
	if h.Args, err = json.Marshal(in); err != nil {
		return nil, err
	}
	return h, nil
}

// Preview runs one arm_follow_trajectory call through the whole pipeline
// (decode, schema, semantic and resource checks, the full trajectory check,
// signing, the stored goal) and fails unless a preview comes back.
func (h *PreviewHarness) Preview() error {
	out, err := h.Pipeline.Call(context.Background(), "arm_follow_trajectory", h.Args, bridge.Invocation{Role: bridge.RolePlanner})
	if err != nil {
		return err
	}
	if m, ok := out.(map[string]any); !ok || m["preview_id"] == nil {
		return fmt.Errorf("no preview_id in %v", out)
	}
	return nil
}

// Compute is what the arm tools compute for a preview once the arguments
// are decoded: the full check, the per-joint impact and the console plot.
func (h *PreviewHarness) Compute() error {
	r, err := h.guard.Check(h.Joints, h.start, h.Points)
	if err != nil {
		return err
	}
	if len(r.Violations) > 0 {
		return fmt.Errorf("violations: %+v", r.Violations)
	}
	return nil
}

// Check runs the safety check alone: the floor of a preview.
func (h *PreviewHarness) Check() error {
	r, err := h.Limits.CheckTrajectory(h.Joints, h.start, h.Points, safety.CheckOptions{})
	if err != nil {
		return err
	}
	if !r.OK() {
		return fmt.Errorf("violations: %+v", r.Violations)
	}
	return nil
}

// opCost is one operation's time (per-call sample) and allocations.
type opCost struct {
	lat           Sample
	allocs, bytes float64
}

// measureOp runs f n times (after 3 warm-up runs), timing each run, and
// counts allocations over a further min(n, 20) runs.
func measureOp(n int, f func() error) (opCost, error) {
	var c opCost
	for range 3 {
		if err := f(); err != nil {
			return c, err
		}
	}
	for range n {
		t0 := time.Now()
		if err := f(); err != nil {
			return c, err
		}
		c.lat = append(c.lat, time.Since(t0))
	}
	k := min(n, 20)
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	for range k {
		if err := f(); err != nil {
			return c, err
		}
	}
	runtime.ReadMemStats(&m1)
	c.allocs = float64(m1.Mallocs-m0.Mallocs) / float64(k)
	c.bytes = float64(m1.TotalAlloc-m0.TotalAlloc) / float64(k)
	return c, nil
}

// MeasurePreview times the preview of a 7-joint, 1000-point trajectory in
// process, n runs each: the computation (the bridge's arm guard: the full
// limit check, the per-joint impact and the console plot), the whole
// arm_follow_trajectory call through the pipeline from its JSON arguments
// (memory store), and that call with a real bbolt store (fsync); the floor
// is safety.CheckTrajectory alone. Allocations are counted per operation.
func MeasurePreview(tb testing.TB, points, n int) Row {
	h, err := NewPreviewHarness(points, nil)
	if err != nil {
		tb.Fatal(err)
	}
	chk, err := measureOp(n, h.Check)
	if err != nil {
		tb.Fatalf("check: %v", err)
	}
	comp, err := measureOp(n, h.Compute)
	if err != nil {
		tb.Fatalf("compute: %v", err)
	}
	pv, err := measureOp(max(n/4, 3), h.Preview)
	if err != nil {
		tb.Fatalf("preview: %v", err)
	}
	// Where the rest goes: decoding the arguments alone.
	dec, err := measureOp(max(n/4, 3), func() error {
		if _, e := bridge.DecodeArgs(h.Args); e != nil {
			return e
		}
		return nil
	})
	if err != nil {
		tb.Fatalf("decode: %v", err)
	}
	st, err := inflight.Open(tb.TempDir()+"/previews.db", inflight.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	defer st.Close()
	hs, err := NewPreviewHarness(points, st)
	if err != nil {
		tb.Fatal(err)
	}
	stored, err := measureOp(max(n/10, 3), hs.Preview)
	if err != nil {
		tb.Fatalf("stored preview: %v", err)
	}
	return Row{
		Key:  "preview",
		What: fmt.Sprintf("preview of a 7-joint, %d-point trajectory with full limit checks, in process (n=%d)", points, n),
		Result: fmt.Sprintf("computation (check + impact + plot, bridge.SafetyArm.Check): p50 %s · p99 %s · %.0f allocs, %.0f KB; "+
			"whole arm_follow_trajectory call from its %.0f KB JSON arguments: p50 %s · p99 %s · %.0f allocs, %.0f KB, of which bridge.DecodeArgs %s; "+
			"the same call storing the preview in bbolt (fsync): p50 %s",
			ms(comp.lat.P50()), ms(comp.lat.P99()), comp.allocs, comp.bytes/1024,
			float64(len(h.Args))/1024, ms(pv.lat.P50()), ms(pv.lat.P99()), pv.allocs, pv.bytes/1024, ms(dec.lat.P50()), ms(stored.lat.P50())),
		Floor:  fmt.Sprintf("safety.CheckTrajectory alone: p50 %s · %.0f allocs, %.0f KB", ms(chk.lat.P50()), chk.allocs, chk.bytes/1024),
		Ratio:  fmt.Sprintf("computation %s · whole call %s", fx(ratio(comp.lat.P50(), chk.lat.P50())), fx(ratio(pv.lat.P50(), chk.lat.P50()))),
		Target: "≤ 1 ms; allocations reported",
		Met:    fmt.Sprintf("computation %s · whole call %s", yes(comp.lat.P50() <= time.Millisecond), yes(pv.lat.P50() <= time.Millisecond)),
		Values: map[string]float64{"compute_p50_ms": msf(comp.lat.P50()), "compute_allocs": comp.allocs,
			"p50_ms": msf(pv.lat.P50()), "p99_ms": msf(pv.lat.P99()), "allocs": pv.allocs, "bytes": pv.bytes,
			"check_p50_ms": msf(chk.lat.P50()), "decode_p50_ms": msf(dec.lat.P50()), "stored_p50_ms": msf(stored.lat.P50())},
	}
}
