package console

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"path/filepath"
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

// fakeArm: joints j1, j2 in [-2, 2] rad, 1 rad/s; the plot samples the
// spline the controller would run.
type fakeArm struct{}

func (fakeArm) Range(string) (float64, float64, bool, bool) { return -2, 2, true, true }
func (fakeArm) Describe() []bridge.JointLimits {
	lo, hi := -2.0, 2.0
	return []bridge.JointLimits{{Name: "j1", Type: "revolute", Lower: &lo, Upper: &hi, MaxVelocity: 1},
		{Name: "j2", Type: "revolute", Lower: &lo, Upper: &hi, MaxVelocity: 1}}
}
func (fakeArm) MinDuration(_ []string, from, to []float64, scale float64) float64 {
	d := 0.5
	for i := range from {
		d = math.Max(d, 1.875*math.Abs(to[i]-from[i])/scale)
	}
	return d
}
func (fakeArm) Check(joints []string, start []spline.State, pts []spline.Point) (bridge.ArmCheck, error) {
	tr, err := spline.New(start, pts)
	if err != nil {
		return bridge.ArmCheck{}, err
	}
	out := bridge.ArmCheck{Duration: tr.Duration(), Plot: map[string][][2]float64{}, Warnings: []string{"j1 comes within 10% of its limit"}}
	st := make([]spline.State, len(joints))
	for k := 0; k <= 10; k++ {
		t := tr.Duration() * float64(k) / 10
		tr.At(t, st)
		for i, s := range st {
			out.Plot[joints[i]] = append(out.Plot[joints[i]], [2]float64{t, s.Pos})
		}
	}
	last := pts[len(pts)-1]
	out.Use = map[string]bridge.LimitUse{}
	for i, j := range joints {
		out.Joints = append(out.Joints, bridge.JointImpact{Joint: j, From: start[i].Pos, To: last.Positions[i],
			Delta: last.Positions[i] - start[i].Pos, PeakVelocity: 0.5, Limit: 1, PercentOfLimit: 50})
		pos, vel := bridge.PositionUse(-2, 2, math.Min(start[i].Pos, last.Positions[i]), math.Max(start[i].Pos, last.Positions[i])), 50.0
		out.Use[j] = bridge.LimitUse{Position: &pos, Velocity: &vel}
	}
	return out, nil
}

type fakeBase struct{}

func (fakeBase) Caps() (float64, float64)                              { return 0.5, 1 }
func (fakeBase) CheckGoal(string, float64, float64) []safety.Violation { return nil }
func (fakeBase) CheckDrive(s actuators.Pose2D, lin, ang, d float64) (actuators.Pose2D, []safety.Violation) {
	return actuators.Pose2D{Frame: s.Frame, X: s.X + lin*d, Yaw: s.Yaw + ang*d}, nil
}
func (fakeBase) OutsideFence(actuators.Pose2D) []safety.OutOfRange { return nil }
func (fakeBase) FenceFrame() string                                { return "odom" }
func (fakeBase) InFence(_ string, p actuators.Pose2D, _ *safety.FrameLink) (actuators.Pose2D, error) {
	return p, nil
}

// observed collects the pipeline's call records (the audit feed).
type observed struct {
	mu   sync.Mutex
	recs []bridge.CallRecord
}

func (o *observed) ObserveCall(r bridge.CallRecord) {
	o.mu.Lock()
	o.recs = append(o.recs, r)
	o.mu.Unlock()
}
func (o *observed) tools() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []string
	for _, r := range o.recs {
		out = append(out, fmt.Sprintf("%s:%s:%s", r.Tool, r.Role, r.Outcome))
	}
	return out
}

// rig is a console over a real pipeline, a real store and a fake robot;
// the arm's motions are confirmed by an operator.
type rig struct {
	robot   *actuatorsfake.Robot
	store   *inflight.Store
	motions *bridge.Motions
	estop   *bridge.DurableEStop
	obs     *observed
	pipe    *bridge.Pipeline
	console *Console
}

const (
	plannerToken  = "planner-secret"
	operatorToken = "operator-secret"
)

func newRig(t *testing.T, tokens bridge.Tokens) *rig {
	t.Helper()
	// A two-joint arm, a gripper and a base whose controller is down.
	r := &rig{robot: actuatorsfake.New(actuatorsfake.Options{}), obs: &observed{}}
	r.robot.SetActuator("base", false, "no status from /move_base")
	st, err := inflight.Open(filepath.Join(t.TempDir(), "store.db"), inflight.Options{UnsafeNoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	r.store = st
	if r.estop, err = bridge.RestoreEStop(st, time.Now); err != nil {
		t.Fatal(err)
	}
	signer := bridge.PreviewSigner{Key: []byte("test key")}
	r.motions = &bridge.Motions{Robot: r.robot, Store: st, Signer: signer, Now: time.Now, ConsoleURL: "http://127.0.0.1:8765/console/",
		Confirmer: func(a string) bridge.Role {
			if a == "arm" {
				return bridge.RoleOperator
			}
			return bridge.RolePlanner
		},
		EStop:     r.estop.State,
		Approvals: &bridge.Approvals{Denials: st}, StaleAfter: time.Second, StartTolerance: 0.01, PoseTolerance: 0.05}
	pv := &bridge.Previewer{Robot: r.robot, Store: st, Signer: signer, Motions: r.motions, TTL: time.Minute, StaleAfter: time.Second,
		SpeedScale: func() float64 { return 1 }, Now: time.Now,
		Arms:     []*bridge.ArmModel{{Name: "arm", Joints: []string{"j1", "j2"}, Guard: fakeArm{}}},
		Grippers: []*bridge.GripperModel{{Name: "gripper", Joint: "finger", Min: 0, Max: 0.08, MaxEffort: 40, SpeedMS: 0.05}},
		Bases:    []*bridge.BaseModel{{Name: "base", Frame: "odom", MaxDriveS: 10, Guard: fakeBase{}}}}
	events := bridge.NewEvents(100, time.Now)
	r.motions.Changed = events.MotionChanged
	if err := r.motions.Start(); err != nil {
		t.Fatal(err)
	}
	reg := bridge.NewRegistry()
	describe := func() any {
		latched, ev, reason := r.estop.State()
		return map[string]any{"joints": fakeArm{}.Describe(), "actuators": r.robot.Actuators(), "master_reachable": true,
			"gripper": map[string]any{"joint": "finger", "min": 0, "max": 0.08},
			"base":    map[string]any{"geofence": map[string]any{"frame": "odom", "min_x": -5, "max_x": 5, "min_y": -5, "max_y": 5}},
			"estop":   map[string]any{"latched": latched, "event": ev, "reason": reason}}
	}
	reg.MustAdd(pv.ArmMoveJoints(), pv.GripperMove(), pv.BaseNavigate(), pv.BaseDrive())
	reg.MustAdd(bridge.MotionTools(r.motions, r.estop, describe, bridge.NewSpeedScale(1))...)
	reg.MustAdd(bridge.JointsReadTool(r.robot, time.Second, time.Now), bridge.EventsReadTool(events))
	r.pipe = bridge.NewPipeline(reg, bridge.PipelineDeps{})
	r.pipe.Observer = r.obs
	r.console = New(r.pipe, st, tokens)
	return r
}

func withTokens() bridge.Tokens { return bridge.Tokens{Planner: plannerToken, Operator: operatorToken} }

// plan makes a preview as the planner and returns its preview_id.
func (r *rig) plan(t *testing.T, tool, args string) string {
	t.Helper()
	out, e := r.pipe.Call(context.Background(), tool, json.RawMessage(args), bridge.Invocation{Role: bridge.RolePlanner, Session: "planner"})
	if e != nil {
		t.Fatalf("%s: %v", tool, e)
	}
	return out.(map[string]any)["preview_id"].(string)
}

// do sends one request to the console as a loopback browser would.
func (r *rig) do(t *testing.T, method, path, token string, body any) (int, map[string]any) {
	t.Helper()
	var rd *bytes.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	} else {
		rd = bytes.NewReader(nil)
	}
	req := httptest.NewRequest(method, "http://127.0.0.1:8765"+path, rd)
	req.RemoteAddr = "127.0.0.1:50000"
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	w := httptest.NewRecorder()
	r.console.ServeHTTP(w, req)
	var m map[string]any
	_ = json.Unmarshal(w.Body.Bytes(), &m)
	return w.Code, m
}

var _ http.Handler = (*Console)(nil)
