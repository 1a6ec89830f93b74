package ros1

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bluenviron/goroslib/v2"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/geometry_msgs"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/config"
	"github.com/actbridge/actbridge/ros1/roslink"
	"github.com/actbridge/actbridge/ros1/rostest"
	"github.com/actbridge/actbridge/sim"
	"github.com/actbridge/actbridge/sim/ros1face"
	"github.com/actbridge/actbridge/spline"
)

// These tests run a real rosmaster (Debian's) and the simulated robot
// in-process (ros1face.Serve), and talk to it only over ROS.

// rig is one master, one simrobot and the bridge's Robot on it.
type rig struct {
	t      *testing.T
	m      *rostest.Master
	sim    *sim.Robot
	robot  *Robot
	ups    *updates
	cfg    *config.Config
	simCtx context.CancelFunc
	simErr chan error
}

func (g *rig) env() roslink.Env {
	return roslink.Env{MasterAddress: g.m.Address(), Host: "127.0.0.1"}
}

// newRig starts a master and, unless noSim, the sim; then opens a Robot.
func newRig(t *testing.T, noSim bool) *rig {
	t.Helper()
	g := &rig{t: t, m: rostest.StartMaster(t)}
	cfg, err := config.Load("../launch/robots/sim.yaml")
	if err != nil {
		t.Fatal(err)
	}
	g.cfg = cfg
	if !noSim {
		g.startSim()
	}
	g.robot, g.ups = g.open(cfg.NodeName)
	return g
}

func (g *rig) startSim() {
	t := g.t
	t.Helper()
	r, err := sim.New(sim.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	g.sim = r
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- ros1face.Serve(ctx, r, ros1face.ServeConfig{Env: g.env(), Name: "simrobot", Ready: func() { close(ready) }, Logf: quiet(t)})
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("ros1face.Serve: %v", err)
			}
		case <-time.After(3 * roslink.CloseTimeout):
			t.Errorf("ros1face.Serve did not return")
		}
	})
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("ros1face.Serve: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("simrobot not registered after 30s")
	}
}

// open opens a Robot under a node name, with an observer.
func (g *rig) open(name string) (*Robot, *updates) {
	t := g.t
	t.Helper()
	cfg := *g.cfg
	cfg.NodeName = name
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r, err := Open(ctx, &cfg, Options{Env: g.env(), CheckInterval: 500 * time.Millisecond, Logf: quiet(t)})
	if err != nil {
		t.Fatal(err)
	}
	ups := &updates{}
	r.SetObserver(ups.push)
	var once sync.Once
	t.Cleanup(func() { once.Do(func() { _ = r.Close() }) })
	return r, ups
}

// quiet logs only while the test runs (goroslib goroutines may log later).
func quiet(t *testing.T) func(string, ...any) {
	var mu sync.Mutex
	done := false
	t.Cleanup(func() { mu.Lock(); done = true; mu.Unlock() })
	return func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		if !done {
			t.Logf(format, args...)
		}
	}
}

func (g *rig) waitConnected(r *Robot) {
	g.t.Helper()
	rostest.Eventually(g.t, 30*time.Second, "every actuator connected", func() error {
		for _, a := range r.Actuators() {
			if !a.Connected {
				return fmt.Errorf("%s: %s", a.Name, a.Detail)
			}
		}
		return nil
	})
}

// waitState waits for an update of goal id in state.
func waitState(t *testing.T, u *updates, id string, state actuators.GoalState, timeout time.Duration) actuators.GoalUpdate {
	t.Helper()
	var got actuators.GoalUpdate
	rostest.Eventually(t, timeout, id+" "+string(state), func() error {
		u.mu.Lock()
		defer u.mu.Unlock()
		for _, x := range u.all {
			if x.GoalID == id && x.State == state {
				got = x
				return nil
			}
		}
		return fmt.Errorf("updates so far: %v", statesOf(u.all, id))
	})
	return got
}

func statesOf(all []actuators.GoalUpdate, id string) []string {
	var out []string
	for _, x := range all {
		if x.GoalID == id {
			out = append(out, fmt.Sprintf("%s(%.2f %q)", x.State, x.Progress, x.Text))
		}
	}
	return out
}

// move is a trajectory taking the arm's first joint to pos in d seconds.
func move(pos, d float64) ([]string, []spline.Point) {
	joints := []string{"shoulder_pan_joint", "shoulder_lift_joint", "elbow_joint", "wrist_1_joint", "wrist_2_joint", "wrist_3_joint"}
	p := make([]float64, len(joints))
	p[0] = pos
	return joints, []spline.Point{{Positions: p, Velocities: make([]float64, len(joints)), Time: d}}
}

func armLog(s *sim.Robot) sim.ActionGoals { return s.Goals()[sim.Arm] }

func TestFirstGoalOfAFreshNodeReachesTheRobotOnceAndSucceeds(t *testing.T) {
	g := newRig(t, false)
	// No waiting for Connected: the send itself must wait for the
	// subscription, or the first goal is lost.
	joints, points := move(0.3, 1.0)
	if err := g.robot.Send(context.Background(), "arm", "traj-1", actuators.Trajectory{Joints: joints, Points: points}); err != nil {
		t.Fatal(err)
	}
	waitState(t, g.ups, "traj-1", actuators.GoalActive, 20*time.Second)
	done := waitState(t, g.ups, "traj-1", actuators.GoalSucceeded, 20*time.Second)
	if done.Progress != 1 || done.Result == nil {
		t.Errorf("final update = %+v, want progress 1 and a result", done)
	}
	if got := statesOf(g.ups.snapshot(), "traj-1"); !strings.HasPrefix(got[0], string(actuators.GoalPending)) && !strings.HasPrefix(got[0], string(actuators.GoalActive)) {
		t.Errorf("first update %s, want pending or active", got[0])
	}
	midway := 0
	for _, u := range g.ups.snapshot() {
		if u.GoalID == "traj-1" && u.State == actuators.GoalActive && u.Progress > 0 && u.Progress < 1 {
			midway++
		}
	}
	if midway == 0 {
		t.Errorf("no progress while active: %v", statesOf(g.ups.snapshot(), "traj-1"))
	}
	log := armLog(g.sim)
	if log.Count("traj-1") != 1 || log.Received != 1 || log.Duplicates != 0 {
		t.Errorf("arm server received %d goal messages (%d with our id), want exactly one", log.Received, log.Count("traj-1"))
	}
	if err := g.robot.Send(context.Background(), "arm", "traj-1", actuators.Trajectory{Joints: joints, Points: points}); !errors.Is(err, actuators.ErrDuplicateGoal) {
		t.Errorf("resend = %v, want actuators.ErrDuplicateGoal", err)
	}
	if pos := g.sim.JointPositions()["shoulder_pan_joint"]; math.Abs(pos-0.3) > 0.03 {
		t.Errorf("shoulder_pan_joint at %.3f, want 0.3", pos)
	}

	// A second node started now also gets its first goal through.
	r2, u2 := g.open("actbridge_second")
	if err := r2.Send(context.Background(), "gripper", "grip-1", actuators.GripperCommand{Position: 0.02, MaxEffort: 10}); err != nil {
		t.Fatal(err)
	}
	waitState(t, u2, "grip-1", actuators.GoalSucceeded, 20*time.Second)
	if n := g.sim.Goals()[sim.Gripper].Count("grip-1"); n != 1 {
		t.Errorf("gripper received grip-1 %d times", n)
	}
}

func TestRobotReportsStateTopicsAndLimits(t *testing.T) {
	g := newRig(t, false)
	g.waitConnected(g.robot)
	ctx := context.Background()

	rostest.Eventually(t, 10*time.Second, "joint states and odom", func() error {
		js := g.robot.Joints()
		if len(js.Joints) != 7 || js.Received.IsZero() {
			return fmt.Errorf("joints = %+v", js)
		}
		if p, ok := g.robot.Odom("base"); !ok || p.Frame != "odom" {
			return fmt.Errorf("odom = %+v %v", p, ok)
		}
		return nil
	})
	if !g.robot.Connected() {
		t.Error("master not reachable")
	}

	topics, err := g.robot.Topics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"/joint_states": "sensor_msgs/JointState", "/odom": "nav_msgs/Odometry",
		"/arm_controller/follow_joint_trajectory/status": "actionlib_msgs/GoalStatusArray"}
	for _, ti := range topics {
		if w, ok := want[ti.Name]; ok && w == ti.Type {
			delete(want, ti.Name)
		}
	}
	if len(want) != 0 {
		t.Errorf("Topics misses %v; got %v", want, topics)
	}

	// Our node subscribes /joint_states already: served from a tap.
	msgs, err := g.robot.SampleTopic(ctx, "/joint_states", 3, 5*time.Second)
	if err != nil || len(msgs) != 3 {
		t.Fatalf("sample /joint_states: %d msgs, %v", len(msgs), err)
	}
	js := msgs[0].(map[string]any)
	if names, _ := js["name"].([]any); len(names) != 7 {
		t.Errorf("sampled joint state %v", js)
	}
	// Not subscribed by us: a temporary subscriber.
	msgs, err = g.robot.SampleTopic(ctx, "/arm_controller/state", 2, 5*time.Second)
	if err != nil || len(msgs) != 2 {
		t.Fatalf("sample /arm_controller/state: %d msgs, %v", len(msgs), err)
	}
	if _, ok := msgs[0].(map[string]any)["desired"]; !ok {
		t.Errorf("sampled controller state %v", msgs[0])
	}
	if _, err := g.robot.SampleTopic(ctx, "/no_such_topic", 1, time.Second); !errors.Is(err, actuators.ErrUnknownTopic) {
		t.Errorf("sample unknown topic = %v", err)
	}
	n, err := goroslib.NewNode(goroslib.NodeConf{Name: "joy", MasterAddress: g.m.Address(), Host: "127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	p, err := goroslib.NewPublisher(goroslib.PublisherConf{Node: n, Topic: "/wrench_raw", Msg: &geometry_msgs.Wrench{}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if _, err := g.robot.SampleTopic(ctx, "/wrench_raw", 1, time.Second); !errors.Is(err, actuators.ErrUnsupportedType) || !strings.Contains(err.Error(), "geometry_msgs/Wrench") {
		t.Errorf("sample of an unsupported type = %v, want actuators.ErrUnsupportedType naming geometry_msgs/Wrench", err)
	}

	urdf, err := g.robot.RobotDescription(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cfg := g.robot.Config()
	lim, _, err := cfg.LoadLimits([]byte(urdf))
	if err != nil {
		t.Fatal(err)
	}
	if j, ok := lim.Joint("shoulder_pan_joint"); !ok || j.MaxVelocity.Value != 1.5 {
		t.Errorf("shoulder_pan_joint limits = %+v, want max_velocity 1.5 from joint_limits.yaml", j)
	}
}

func TestCancelMidMotionPreempts(t *testing.T) {
	g := newRig(t, false)
	joints, points := move(1.0, 5.0)
	ctx := context.Background()
	if err := g.robot.Send(ctx, "arm", "long", actuators.Trajectory{Joints: joints, Points: points}); err != nil {
		t.Fatal(err)
	}
	waitState(t, g.ups, "long", actuators.GoalActive, 20*time.Second)
	if err := g.robot.Cancel(ctx, "arm", "long"); err != nil {
		t.Fatal(err)
	}
	waitState(t, g.ups, "long", actuators.GoalCanceled, 20*time.Second)
	if pos := g.sim.JointPositions()["shoulder_pan_joint"]; pos > 0.9 {
		t.Errorf("arm went on to %.2f after the cancel", pos)
	}
}

func TestCancelBeforePublishIsNeverSentBeforeTheGoal(t *testing.T) {
	g := newRig(t, false)
	ctx := context.Background()
	var mu sync.Mutex
	var wire []string
	arm := g.robot.byName["arm"].client
	arm.onWire = func(topic, id string) {
		mu.Lock()
		wire = append(wire, topic+" "+id)
		mu.Unlock()
		if topic == "goal" && id == "raced" {
			// The goal is being published: a cancel now must follow it.
			if err := g.robot.Cancel(ctx, "arm", "raced"); err != nil {
				t.Error(err)
			}
		}
	}
	joints, points := move(0.5, 3.0)
	if err := g.robot.Send(ctx, "arm", "raced", actuators.Trajectory{Joints: joints, Points: points}); err != nil {
		t.Fatal(err)
	}
	var final actuators.GoalState
	rostest.Eventually(t, 20*time.Second, "raced ends canceled", func() error {
		st := g.ups.states("raced")
		if len(st) > 0 && st[len(st)-1].Terminal() {
			final = st[len(st)-1]
			return nil
		}
		return fmt.Errorf("states %v", st)
	})
	if final != actuators.GoalCanceled && final != actuators.GoalRecalled {
		t.Errorf("raced ended %s, want preempted or recalled", final)
	}
	mu.Lock()
	// The goal first, then its cancel; a server that has not shown the
	// cancel within cancelRetry is sent it again (by design), so a loaded
	// machine may see more than one.
	if len(wire) < 2 || wire[0] != "goal raced" || slices.ContainsFunc(wire[1:], func(w string) bool { return w != "cancel raced" }) {
		t.Errorf("wire order %v, want the goal then its cancel", wire)
	}
	mu.Unlock()
	if log := armLog(g.sim); log.Count("raced") != 1 {
		t.Errorf("server got raced %d times", log.Count("raced"))
	}

	// A cancel while the send still waits for its connection: nothing at all
	// goes out. A second Robot with no sim-side subscriber yet is hard to
	// arrange, so hold the arm's wire back instead.
	box := arm.wire.Load()
	arm.wire.Store(nil)
	done := make(chan error, 1)
	go func() {
		done <- g.robot.Send(ctx, "arm", "never", actuators.Trajectory{Joints: joints, Points: points})
	}()
	time.Sleep(300 * time.Millisecond)
	if err := g.robot.Cancel(ctx, "arm", "never"); err != nil {
		t.Fatal(err)
	}
	if err := <-done; !errors.Is(err, actuators.ErrCanceledBeforeSend) {
		t.Errorf("send = %v, want actuators.ErrCanceledBeforeSend", err)
	}
	arm.wire.CompareAndSwap(nil, box)
	waitState(t, g.ups, "never", actuators.GoalRecalled, 5*time.Second)
	time.Sleep(500 * time.Millisecond)
	log := armLog(g.sim)
	if log.Count("never") != 0 {
		t.Errorf("a goal canceled before it was sent reached the robot")
	}
	for _, c := range log.CancelLog {
		if c.ID == "never" {
			t.Errorf("a cancel for a goal never sent reached the robot")
		}
	}
}

func TestAbortedTrajectoryIsFollowedByAHoldGoal(t *testing.T) {
	g := newRig(t, false)
	g.sim.SetFaults(sim.Faults{Arm: sim.ArmFaults{AbortAfter: 500 * time.Millisecond}})
	joints, points := move(1.0, 4.0)
	if err := g.robot.Send(context.Background(), "arm", "doomed", actuators.Trajectory{Joints: joints, Points: points}); err != nil {
		t.Fatal(err)
	}
	up := waitState(t, g.ups, "doomed", actuators.GoalAborted, 20*time.Second)
	if !strings.Contains(up.Text, `"doomed/hold"`) {
		t.Errorf("aborted update text %q does not name the hold goal", up.Text)
	}
	if res, _ := up.Result.(map[string]any); res["error_name"] != "path_tolerance_violated" {
		t.Errorf("result = %v", up.Result)
	}
	rostest.Eventually(t, 10*time.Second, "hold goal on the robot", func() error {
		if n := armLog(g.sim).Count("doomed/hold"); n != 1 {
			return fmt.Errorf("hold goal received %d times", n)
		}
		return nil
	})
	// The arm stops near where it was, far from the trajectory's end.
	time.Sleep(time.Second)
	if pos := g.sim.JointPositions()["shoulder_pan_joint"]; pos > 0.6 {
		t.Errorf("arm kept moving after the abort: at %.2f", pos)
	}
}

// cmdVelLog records /cmd_vel as another node sees it.
type cmdVelLog struct {
	mu  sync.Mutex
	all []geometry_msgs.Twist
}

func (l *cmdVelLog) last() (geometry_msgs.Twist, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.all) == 0 {
		return geometry_msgs.Twist{}, 0
	}
	return l.all[len(l.all)-1], len(l.all)
}

func watchCmdVel(t *testing.T, g *rig) *cmdVelLog {
	t.Helper()
	l := &cmdVelLog{}
	n, err := goroslib.NewNode(goroslib.NodeConf{Name: "cmd_vel_watch", MasterAddress: g.m.Address(), Host: "127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	s, err := goroslib.NewSubscriber(goroslib.SubscriberConf{Node: n, Topic: "/cmd_vel", Callback: func(m *geometry_msgs.Twist) {
		l.mu.Lock()
		l.all = append(l.all, *m)
		l.mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(); n.Close() })
	rostest.Eventually(t, 20*time.Second, "watcher connected to /cmd_vel", func() error {
		counts, err := g.robot.bus.outbound(g.robot.link.Node())
		if err != nil {
			return err
		}
		if counts["/cmd_vel"] < 2 {
			return fmt.Errorf("/cmd_vel has %d subscribers", counts["/cmd_vel"])
		}
		return nil
	})
	return l
}

func TestDriveMovesTheBaseAndAlwaysEndsWithZero(t *testing.T) {
	g := newRig(t, false)
	g.waitConnected(g.robot)
	watch := watchCmdVel(t, g)
	ctx := context.Background()
	isZero := func(tw geometry_msgs.Twist) bool { return tw.Linear.X == 0 && tw.Angular.Z == 0 }

	// Runs to its end.
	start := g.sim.BasePose()
	if err := g.robot.Send(ctx, "base", "drive-1", actuators.Drive{Linear: 0.3, Angular: 0, Duration: 1500 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	waitState(t, g.ups, "drive-1", actuators.GoalActive, 5*time.Second)
	rostest.Eventually(t, 5*time.Second, "base moving", func() error {
		if v := g.sim.BaseVelocity(); v.Linear < 0.29 {
			return fmt.Errorf("base velocity %+v", v)
		}
		return nil
	})
	waitState(t, g.ups, "drive-1", actuators.GoalSucceeded, 10*time.Second)
	time.Sleep(300 * time.Millisecond)
	if last, n := watch.last(); n < 5 || !isZero(last) {
		t.Errorf("after the drive: %d twists, last %+v, want many and a zero last", n, last)
	}
	if moved := g.sim.BasePose().X - start.X; moved < 0.2 {
		t.Errorf("base moved %.2f m, want about 0.45", moved)
	}
	if v := g.sim.BaseVelocity(); v.Linear != 0 {
		t.Errorf("base still moving at %+v", v)
	}

	// StopAll ends a drive at once.
	if err := g.robot.Send(ctx, "base", "drive-2", actuators.Drive{Linear: 0.3, Angular: 0.2, Duration: 8 * time.Second}); err != nil {
		t.Fatal(err)
	}
	waitState(t, g.ups, "drive-2", actuators.GoalActive, 5*time.Second)
	if err := g.robot.Send(ctx, "base", "drive-x", actuators.Drive{Linear: 0.1, Angular: 0, Duration: time.Second}); !errors.Is(err, actuators.ErrBusy) {
		t.Errorf("second concurrent drive = %v, want actuators.ErrBusy", err)
	}
	time.Sleep(500 * time.Millisecond)
	if err := g.robot.StopAll(ctx); err != nil {
		t.Fatal(err)
	}
	up := waitState(t, g.ups, "drive-2", actuators.GoalCanceled, 5*time.Second)
	if !strings.Contains(up.Text, "StopAll") {
		t.Errorf("preempted text %q", up.Text)
	}
	time.Sleep(300 * time.Millisecond)
	if last, _ := watch.last(); !isZero(last) {
		t.Errorf("last twist after StopAll %+v", last)
	}
	if v := g.sim.BaseVelocity(); v.Linear != 0 || v.Angular != 0 {
		t.Errorf("base still moving after StopAll: %+v", v)
	}

	// The caller's context ends (session lost): the base stops.
	sctx, endSession := context.WithCancel(ctx)
	if err := g.robot.Send(sctx, "base", "drive-3", actuators.Drive{Linear: 0.2, Angular: 0, Duration: 8 * time.Second}); err != nil {
		t.Fatal(err)
	}
	waitState(t, g.ups, "drive-3", actuators.GoalActive, 5*time.Second)
	time.Sleep(300 * time.Millisecond)
	endSession()
	waitState(t, g.ups, "drive-3", actuators.GoalCanceled, 5*time.Second)
	time.Sleep(300 * time.Millisecond)
	if last, _ := watch.last(); !isZero(last) {
		t.Errorf("last twist after the session ended %+v", last)
	}
	if v := g.sim.BaseVelocity(); v.Linear != 0 {
		t.Errorf("base still moving after the session ended: %+v", v)
	}

	// Cancel by id ends a drive too.
	if err := g.robot.Send(ctx, "base", "drive-4", actuators.Drive{Linear: 0.2, Angular: 0, Duration: 8 * time.Second}); err != nil {
		t.Fatal(err)
	}
	waitState(t, g.ups, "drive-4", actuators.GoalActive, 5*time.Second)
	if err := g.robot.Cancel(ctx, "base", "drive-4"); err != nil {
		t.Fatal(err)
	}
	waitState(t, g.ups, "drive-4", actuators.GoalCanceled, 5*time.Second)
	if err := g.robot.Send(ctx, "base", "drive-4", actuators.Drive{Linear: 0.2, Angular: 0, Duration: time.Second}); !errors.Is(err, actuators.ErrDuplicateGoal) {
		t.Errorf("drive id reused = %v, want actuators.ErrDuplicateGoal", err)
	}
}

func TestStopAllCancelsRunningGoalsOfEveryAction(t *testing.T) {
	g := newRig(t, false)
	ctx := context.Background()
	joints, points := move(1.0, 5.0)
	if err := g.robot.Send(ctx, "arm", "arm-run", actuators.Trajectory{Joints: joints, Points: points}); err != nil {
		t.Fatal(err)
	}
	if err := g.robot.Send(ctx, "base", "nav-run", actuators.Navigate{Target: actuators.Pose2D{X: 3}}); err != nil {
		t.Fatal(err)
	}
	waitState(t, g.ups, "arm-run", actuators.GoalActive, 20*time.Second)
	waitState(t, g.ups, "nav-run", actuators.GoalActive, 20*time.Second)
	if err := g.robot.StopAll(ctx); err != nil {
		t.Fatal(err)
	}
	waitState(t, g.ups, "arm-run", actuators.GoalCanceled, 20*time.Second)
	waitState(t, g.ups, "nav-run", actuators.GoalCanceled, 20*time.Second)
}

func TestTrackAfterRestartResumesOrReportsLost(t *testing.T) {
	g := newRig(t, false)
	ctx := context.Background()
	// Long enough to still run after a slow close (goroslib's may take its
	// whole 5 s bound on a loaded machine) and the status grace below.
	joints, points := move(0.6, 12.0)
	if err := g.robot.Send(ctx, "arm", "before-restart", actuators.Trajectory{Joints: joints, Points: points}); err != nil {
		t.Fatal(err)
	}
	waitState(t, g.ups, "before-restart", actuators.GoalActive, 20*time.Second)
	// The bridge goes down; the goal runs on. goroslib's close can exceed
	// its bound on a loaded machine: that is reported, not a failure here.
	if err := g.robot.Close(); err != nil && !errors.Is(err, roslink.ErrCloseTimeout) {
		t.Fatal(err)
	}

	r2, u2 := g.open("actbridge")
	r2.Track("arm", "before-restart")
	r2.Track("arm", "never-sent")
	start := time.Now()
	waitState(t, u2, "never-sent", actuators.GoalLost, 20*time.Second)
	if took := time.Since(start); took < g.cfg.StatusGrace.D() {
		t.Errorf("unknown goal reported lost after %s, before the %s grace", took, g.cfg.StatusGrace.D())
	}
	waitState(t, u2, "before-restart", actuators.GoalSucceeded, 30*time.Second)
	if got := u2.states("before-restart"); got[0] != actuators.GoalActive {
		t.Errorf("tracked goal updates %v, want active first", got)
	}
	if n := armLog(g.sim).Count("before-restart"); n != 1 {
		t.Errorf("tracked goal sent %d times", n)
	}
}

func TestMasterRestartMidMotionIsTrackedToTheEnd(t *testing.T) {
	g := newRig(t, false)
	ctx := context.Background()
	joints, points := move(0.8, 6.0)
	if err := g.robot.Send(ctx, "arm", "through-restart", actuators.Trajectory{Joints: joints, Points: points}); err != nil {
		t.Fatal(err)
	}
	waitState(t, g.ups, "through-restart", actuators.GoalActive, 20*time.Second)
	g.m.Restart()
	waitState(t, g.ups, "through-restart", actuators.GoalSucceeded, 40*time.Second)
	for _, s := range g.ups.states("through-restart") {
		if s == actuators.GoalLost {
			t.Errorf("reported lost during the restart: %v", statesOf(g.ups.snapshot(), "through-restart"))
		}
	}
	if n := armLog(g.sim).Count("through-restart"); n != 1 {
		t.Errorf("goal reached the robot %d times", n)
	}
	// The link is usable again: a new goal goes through.
	g.waitConnected(g.robot)
	if err := g.robot.Send(ctx, "gripper", "after-restart", actuators.GripperCommand{Position: 0.01, MaxEffort: 5}); err != nil {
		t.Fatal(err)
	}
	waitState(t, g.ups, "after-restart", actuators.GoalSucceeded, 20*time.Second)
}
