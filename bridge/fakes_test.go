package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/actuators/actuatorsfake"
	"github.com/actbridge/actbridge/allowlist"
	"github.com/actbridge/actbridge/inflight"
	"github.com/actbridge/actbridge/safety"
	"github.com/actbridge/actbridge/spline"
)

// newFakeRobot is an arm (j1, j2), a gripper (finger) and a base that
// record every goal that reaches them; updates come only from Emit.
func newFakeRobot() *actuatorsfake.Robot { return actuatorsfake.New(actuatorsfake.Options{}) }

// fakeArm: two joints in [-2, 2] with a 1 rad/s velocity limit, checked by
// sampling the same spline the controller runs.
type fakeArm struct{}

func (fakeArm) Range(j string) (float64, float64, bool, bool) {
	return -2, 2, true, j == "j1" || j == "j2"
}
func (fakeArm) Describe() []JointLimits {
	lo, hi := -2.0, 2.0
	return []JointLimits{{Name: "j1", Type: "revolute", Lower: &lo, Upper: &hi, MaxVelocity: 1}, {Name: "j2", Type: "revolute", Lower: &lo, Upper: &hi, MaxVelocity: 1}}
}
func (fakeArm) MinDuration(_ []string, from, to []float64, scale float64) float64 {
	d := 0.5
	for i := range from {
		d = math.Max(d, 1.875*math.Abs(to[i]-from[i])/(1*scale))
	}
	return d
}
func (fakeArm) Check(joints []string, start []spline.State, pts []spline.Point) (ArmCheck, error) {
	tr, err := spline.New(start, pts)
	if err != nil {
		return ArmCheck{}, RuleError(CodeInvalidArgument, "trajectory_valid", "points", err.Error())
	}
	out := ArmCheck{Duration: tr.Duration()}
	st := make([]spline.State, len(joints))
	peak := make([]float64, len(joints))
	seen := map[string]bool{}
	for k := 0; k <= 200; k++ {
		t := tr.Duration() * float64(k) / 200
		tr.At(t, st)
		for i, s := range st {
			peak[i] = math.Max(peak[i], math.Abs(s.Vel))
			if math.Abs(s.Vel) > 1+1e-9 && !seen[joints[i]+"v"] {
				seen[joints[i]+"v"] = true
				out.Violations = append(out.Violations, safety.Violation{Joint: joints[i], Kind: "velocity", Time: t, Value: math.Abs(s.Vel), Limit: 1})
			}
			if math.Abs(s.Pos) > 2 && !seen[joints[i]+"p"] {
				seen[joints[i]+"p"] = true
				out.Violations = append(out.Violations, safety.Violation{Joint: joints[i], Kind: "position", Time: t, Value: s.Pos, Limit: 2})
			}
		}
	}
	last := pts[len(pts)-1]
	for i, j := range joints {
		out.Joints = append(out.Joints, JointImpact{Joint: j, From: start[i].Pos, To: last.Positions[i], Delta: last.Positions[i] - start[i].Pos, PeakVelocity: peak[i], Limit: 1, PercentOfLimit: peak[i] * 100})
	}
	return out, nil
}

// fakeBase fences ±5 m in its odometry's frame, fence ("odom" when empty).
type fakeBase struct{ fence string }

func (fakeBase) Caps() (float64, float64) { return 0.5, 1 }
func (fakeBase) CheckGoal(_ string, x, y float64) []safety.Violation {
	if math.Abs(x) > 5 || math.Abs(y) > 5 {
		return []safety.Violation{{Kind: "geofence", Value: math.Max(math.Abs(x), math.Abs(y)), Limit: 5}}
	}
	return nil
}
func (fakeBase) OutsideFence(p actuators.Pose2D) []safety.OutOfRange {
	if math.Abs(p.X) > 5 || math.Abs(p.Y) > 5 {
		return []safety.OutOfRange{{Joint: "x", Position: p.X, Limit: math.Copysign(5, p.X), By: math.Abs(p.X) - 5}}
	}
	return nil
}
func (f fakeBase) FenceFrame() string {
	if f.fence == "" {
		return "odom"
	}
	return f.fence
}
func (f fakeBase) InFence(frame string, p actuators.Pose2D, _ *safety.FrameLink) (actuators.Pose2D, error) {
	if frame != f.FenceFrame() {
		return p, errors.New("not the fence's frame")
	}
	return p, nil
}
func (fakeBase) CheckDrive(s actuators.Pose2D, lin, ang, d float64) (actuators.Pose2D, []safety.Violation) {
	if math.Abs(lin) > 0.5 {
		return s, []safety.Violation{{Kind: "speed_cap", Value: math.Abs(lin), Limit: 0.5}}
	}
	return actuators.Pose2D{Frame: s.Frame, X: s.X + lin*d, Y: s.Y, Yaw: s.Yaw + ang*d}, nil
}

// rig is a full bridge over a fake robot and a real store.
type rig struct {
	robot    *actuatorsfake.Robot
	store    *inflight.Store
	p        *Pipeline
	m        *Motions
	estop    *DurableEStop
	operator bool // arm confirmed by operator
	now      time.Time
	nowMu    sync.Mutex
	// storePath is the store's file, for tests of what it holds.
	storePath string
}

func (r *rig) clock() time.Time { r.nowMu.Lock(); defer r.nowMu.Unlock(); return r.now }
func (r *rig) advance(d time.Duration) {
	r.nowMu.Lock()
	r.now = r.now.Add(d)
	r.nowMu.Unlock()
}

// newRig builds the rig; opts may change the previewer before its tools
// are registered (a real safety guard, other models).
func newRig(t testing.TB, opts ...func(*Previewer)) *rig {
	t.Helper()
	r := &rig{robot: newFakeRobot(), now: time.Now()}
	r.storePath = filepath.Join(t.TempDir(), "store.db")
	st, err := inflight.Open(r.storePath, inflight.Options{UnsafeNoSync: true, Now: r.clock})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	r.store = st
	if r.estop, err = RestoreEStop(st, r.clock); err != nil {
		t.Fatal(err)
	}
	signer := PreviewSigner{Key: []byte("test key")}
	r.m = &Motions{Robot: r.robot, Store: st, Signer: signer, Now: r.clock, ConsoleURL: "http://127.0.0.1:8765/console",
		Confirmer: func(a string) Role {
			if r.operator && a == "arm" {
				return RoleOperator
			}
			return RolePlanner
		},
		EStop: r.estop.State, StaleAfter: time.Second, StartTolerance: 0.01, PoseTolerance: 0.05}
	pv := &Previewer{Robot: r.robot, Store: st, Signer: signer, Motions: r.m, TTL: time.Minute, StaleAfter: time.Second,
		SpeedScale: func() float64 { return 1 }, Now: r.clock,
		Arms:     []*ArmModel{{Name: "arm", Joints: []string{"j1", "j2"}, Guard: fakeArm{}}},
		Grippers: []*GripperModel{{Name: "gripper", Joint: "finger", Min: 0, Max: 0.08, MaxEffort: 40, SpeedMS: 0.05}},
		Bases:    []*BaseModel{{Name: "base", Frame: "odom", MaxDriveS: 10, Guard: fakeBase{}}}}
	for _, o := range opts {
		o(pv)
	}
	r.m.Bases, r.m.Arms = pv.Bases, pv.Arms // as the wiring does: confirm reads what previews used
	if err := r.m.Start(); err != nil {
		t.Fatal(err)
	}
	reg := NewRegistry()
	reg.MustAdd(pv.ArmMoveJoints(), pv.ArmFollowTrajectory(), pv.GripperMove(), pv.BaseNavigate(), pv.BaseDrive())
	if pv.poseArms() {
		reg.MustAdd(pv.ArmMovePose(), pv.ArmMoveRelative())
	}
	reg.MustAdd(MotionTools(r.m, r.estop, func() any { return map[string]any{"joints": fakeArm{}.Describe(), "actuators": r.robot.Actuators()} }, NewSpeedScale(1))...)
	reg.MustAdd(JointsReadTool(r.robot, time.Second, time.Now), TopicsListTool(r.robot, allowlist.Globs{"/odom"}), TopicSampleTool(r.robot, t.TempDir(), allowlist.Globs{"/odom"}), OutputReadTool(t.TempDir()))
	r.p = NewPipeline(reg, PipelineDeps{})
	reg.MustAdd(DiscoveryTools()...)
	return r
}

func (r *rig) call(t testing.TB, role Role, tool string, args string) (map[string]any, *Error) {
	t.Helper()
	out, e := r.p.Call(context.Background(), tool, json.RawMessage(args), Invocation{Role: role, Session: "s"})
	if e != nil {
		return nil, e
	}
	b, _ := json.Marshal(out)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return m, nil
}
