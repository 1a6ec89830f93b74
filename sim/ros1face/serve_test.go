package ros1face

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bluenviron/goroslib/v2"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/actionlib_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_srvs"

	"github.com/actbridge/actbridge/msgs/ros1"
	"github.com/actbridge/actbridge/ros1/roslink"
	"github.com/actbridge/actbridge/ros1/rostest"
	"github.com/actbridge/actbridge/sim"
)

// serveForTest runs a robot on a fresh rosmaster and stops both at the end.
func serveForTest(t *testing.T, mod ...func(*sim.Config)) (*rostest.Master, *sim.Robot) {
	t.Helper()
	m := rostest.StartMaster(t)
	cfg := sim.DefaultConfig()
	for _, f := range mod {
		f(&cfg)
	}
	r, err := sim.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- Serve(ctx, r, ServeConfig{
			Env:  roslink.Env{MasterAddress: m.Address(), Host: "127.0.0.1"},
			Name: "simrobot", Ready: func() { close(ready) }, Logf: t.Logf,
		})
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Serve: %v", err)
			}
		case <-time.After(3 * roslink.CloseTimeout):
			t.Errorf("Serve did not return after cancel")
		}
	})
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("Serve: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("simrobot not registered after 30s")
	}
	return m, r
}

// armClient speaks the actionlib client protocol on plain topics, with ids
// it chooses, the way the bridge does.
type armClient struct {
	t      *testing.T
	n      *goroslib.Node
	goal   *goroslib.Publisher
	cancel *goroslib.Publisher

	mu      sync.Mutex
	results map[string]msgs.FollowJointTrajectoryActionResult
	status  map[string]uint8
}

func newArmClient(t *testing.T, m *rostest.Master) *armClient {
	t.Helper()
	n, err := goroslib.NewNode(goroslib.NodeConf{Name: "arm_client", MasterAddress: m.Address(), Host: "127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	c := &armClient{t: t, n: n, results: map[string]msgs.FollowJointTrajectoryActionResult{}, status: map[string]uint8{}}
	var closers []interface{ Close() }
	t.Cleanup(func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i].Close()
		}
		n.Close()
	})
	must := func(x interface{ Close() }, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		closers = append(closers, x)
	}
	c.goal, err = goroslib.NewPublisher(goroslib.PublisherConf{Node: n, Topic: sim.ArmAction + "/goal", Msg: &msgs.FollowJointTrajectoryActionGoal{}})
	must(c.goal, err)
	c.cancel, err = goroslib.NewPublisher(goroslib.PublisherConf{Node: n, Topic: sim.ArmAction + "/cancel", Msg: &actionlib_msgs.GoalID{}})
	must(c.cancel, err)
	sub, err := goroslib.NewSubscriber(goroslib.SubscriberConf{Node: n, Topic: sim.ArmAction + "/result",
		Callback: func(r *msgs.FollowJointTrajectoryActionResult) {
			c.mu.Lock()
			c.results[r.Status.GoalId.Id] = *r
			c.mu.Unlock()
		}})
	must(sub, err)
	sub, err = goroslib.NewSubscriber(goroslib.SubscriberConf{Node: n, Topic: sim.ArmAction + "/status",
		Callback: func(a *actionlib_msgs.GoalStatusArray) {
			c.mu.Lock()
			for _, s := range a.StatusList {
				c.status[s.GoalId.Id] = s.Status
			}
			c.mu.Unlock()
		}})
	must(sub, err)
	for _, topic := range []string{sim.ArmAction + "/goal", sim.ArmAction + "/cancel"} {
		rostest.Eventually(t, 20*time.Second, "simrobot connected to "+topic, func() error {
			conns, err := n.NodeGetConns("/arm_client")
			if err != nil {
				return err
			}
			for _, cn := range conns {
				if cn.Topic == topic && cn.Direction == 'o' && cn.Connected {
					return nil
				}
			}
			return fmt.Errorf("no outbound connection on %s: %+v", topic, conns)
		})
	}
	return c
}

func (c *armClient) send(id string, stamp time.Time, g msgs.FollowJointTrajectoryGoal) {
	c.goal.Write(&msgs.FollowJointTrajectoryActionGoal{GoalId: actionlib_msgs.GoalID{Id: id, Stamp: stamp}, Goal: g})
}

func (c *armClient) sendCancel(id string, stamp time.Time) {
	c.cancel.Write(&actionlib_msgs.GoalID{Id: id, Stamp: stamp})
}

// result waits for the goal's result message.
func (c *armClient) result(id string) msgs.FollowJointTrajectoryActionResult {
	c.t.Helper()
	var res msgs.FollowJointTrajectoryActionResult
	rostest.Eventually(c.t, 30*time.Second, "result of "+id, func() error {
		c.mu.Lock()
		defer c.mu.Unlock()
		r, ok := c.results[id]
		if !ok {
			return fmt.Errorf("no result for %s yet (status %v)", id, c.status)
		}
		res = r
		return nil
	})
	return res
}

func (c *armClient) trigger(name string) string {
	c.t.Helper()
	sc, err := goroslib.NewServiceClient(goroslib.ServiceClientConf{Node: c.n, Name: name, Srv: &std_srvs.Trigger{}})
	if err != nil {
		c.t.Fatal(err)
	}
	defer sc.Close()
	var res std_srvs.TriggerRes
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := sc.CallContext(ctx, &std_srvs.TriggerReq{}, &res); err != nil {
		c.t.Fatalf("call %s: %v", name, err)
	}
	if !res.Success {
		c.t.Fatalf("%s failed: %s", name, res.Message)
	}
	return res.Message
}

func (c *armClient) goals() sim.GoalLog {
	c.t.Helper()
	var log sim.GoalLog
	if err := json.Unmarshal([]byte(c.trigger("/simrobot/goals")), &log); err != nil {
		c.t.Fatal(err)
	}
	return log
}

func TestROSToolsSeeTheRobot(t *testing.T) {
	m, _ := serveForTest(t)

	out, err := m.Run(30*time.Second, "rostopic", "type", sim.ArmAction+"/goal")
	if err != nil || strings.TrimSpace(out) != "control_msgs/FollowJointTrajectoryActionGoal" {
		t.Errorf("rostopic type: %q, %v", out, err)
	}
	out, err = m.Run(30*time.Second, "rostopic", "echo", "-n", "1", TopicJointStates)
	if err != nil || !strings.Contains(out, "shoulder_pan_joint") || !strings.Contains(out, "gripper_finger_joint") {
		t.Errorf("rostopic echo /joint_states: %q, %v", out, err)
	}
	out, err = m.Run(30*time.Second, "rosparam", "get", ParamRobotDescription)
	if err != nil || !strings.Contains(out, `<robot name=\"simrobot\">`) || !strings.Contains(out, "safety_controller") {
		t.Errorf("rosparam get /robot_description: %.300q, %v", out, err)
	}
	out, err = m.Run(30*time.Second, "rosparam", "get", ParamJointLimits+"/elbow_joint/max_acceleration")
	if err != nil || strings.TrimSpace(out) != "4.0" {
		t.Errorf("joint limit parameter: %q, %v", out, err)
	}
	out, err = m.Run(30*time.Second, "rosservice", "call", "/simrobot/goals")
	if err != nil || !strings.Contains(out, "success: True") || !strings.Contains(out, "duplicates") {
		t.Errorf("rosservice call /simrobot/goals: %q, %v", out, err)
	}
}

func TestRostopicHzSeesConfiguredRate(t *testing.T) {
	m, _ := serveForTest(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := m.Command(ctx, "rostopic", "hz", "-w", "200", TopicJointStates)
	buf := &rostest.Buffer{}
	cmd.Stdout, cmd.Stderr = buf, buf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	rate := regexp.MustCompile(`average rate: ([0-9.]+)`)
	var got []float64
	rostest.Eventually(t, 25*time.Second, "rostopic hz reports", func() error {
		got = got[:0]
		for _, mm := range rate.FindAllStringSubmatch(buf.String(), -1) {
			v, _ := strconv.ParseFloat(mm[1], 64)
			got = append(got, v)
		}
		if len(got) < 3 {
			return fmt.Errorf("output so far: %q", buf.String())
		}
		return nil
	})
	cancel()
	_ = cmd.Wait()
	// Python's rostopic on a busy machine undercounts, and a starved sim
	// slows down rather than burst; the last window is the settled one.
	last := got[len(got)-1]
	if last < 40 || last > 160 {
		t.Errorf("rostopic hz average %g Hz (all: %v), want about 100", last, got)
	}
}

func TestTrajectoryGoalsOverROS(t *testing.T) {
	m, r := serveForTest(t)
	c := newArmClient(t, m)
	names := r.ArmJoints()
	goal := func(secs float64, pos ...float64) msgs.FollowJointTrajectoryGoal {
		g := msgs.FollowJointTrajectoryGoal{}
		g.Trajectory.JointNames = names
		g.Trajectory.Points = append(g.Trajectory.Points, trajectoryPoint(pos, secs))
		return g
	}
	target := []float64{0.3, -0.2, 0.4, 0.1, -0.1, 0.5}

	t.Run("reaches target and succeeds", func(t *testing.T) {
		c.send("ok-1", time.Now(), goal(0.5, target...))
		res := c.result("ok-1")
		if res.Status.Status != sim.StatusSucceeded || res.Result.ErrorCode != sim.ErrorSuccessful {
			t.Fatalf("result %+v", res)
		}
		if got := r.ArmPositions(); !near(got, target, 0.02) {
			t.Errorf("positions %v, want %v", got, target)
		}
	})

	t.Run("unknown joint is INVALID_JOINTS", func(t *testing.T) {
		g := goal(0.5, target...)
		g.Trajectory.JointNames = append(names[:5:5], "bogus_joint")
		c.send("bad-joints", time.Now(), g)
		res := c.result("bad-joints")
		if res.Status.Status != sim.StatusRejected || res.Result.ErrorCode != sim.ErrorInvalidJoints {
			t.Errorf("result %+v, want REJECTED/INVALID_JOINTS", res)
		}
	})

	t.Run("duplicate goal id starts nothing", func(t *testing.T) {
		c.send("dup", time.Now(), goal(0.3, 0, 0, 0, 0, 0, 0))
		if res := c.result("dup"); res.Status.Status != sim.StatusSucceeded {
			t.Fatalf("first dup: %+v", res)
		}
		before := r.ArmPositions()
		c.send("dup", time.Now(), goal(0.3, target...))
		rostest.Eventually(t, 20*time.Second, "duplicate logged", func() error {
			if a := c.goals()[sim.Arm]; a.Count("dup") != 2 || a.Duplicates != 1 || !a.Goals[len(a.Goals)-1].Duplicate {
				return fmt.Errorf("arm log %+v", a)
			}
			return nil
		})
		time.Sleep(500 * time.Millisecond) // long enough for a 0.3 s motion, had it started
		if got := r.ArmPositions(); !near(got, before, 1e-9) {
			t.Errorf("duplicate goal moved the arm: %v → %v", before, got)
		}
	})

	t.Run("cancel before goal recalls it", func(t *testing.T) {
		c.sendCancel("early", time.Time{})
		rostest.Eventually(t, 20*time.Second, "cancel logged", func() error {
			if log := c.goals()[sim.Arm]; len(log.CancelLog) == 0 || log.CancelLog[len(log.CancelLog)-1].ID != "early" {
				return fmt.Errorf("cancel log %+v", log.CancelLog)
			}
			return nil
		})
		c.send("early", time.Now(), goal(0.3, target...))
		if res := c.result("early"); res.Status.Status != sim.StatusRecalled {
			t.Errorf("result %+v, want RECALLED", res)
		}
	})

	t.Run("second goal preempts the first", func(t *testing.T) {
		c.send("first", time.Now(), goal(3, 0, 0, 0, 0, 0, 0))
		rostest.Eventually(t, 20*time.Second, "first goal active", func() error {
			if o, _ := r.Goal(sim.Arm, "first"); o.Status != sim.StatusActive {
				return fmt.Errorf("first is %s", sim.StatusName(o.Status))
			}
			return nil
		})
		c.send("second", time.Now(), goal(0.3, target...))
		if res := c.result("first"); res.Status.Status != sim.StatusPreempted {
			t.Errorf("first: %+v, want PREEMPTED", res)
		}
		if res := c.result("second"); res.Status.Status != sim.StatusSucceeded {
			t.Errorf("second: %+v, want SUCCEEDED", res)
		}
	})

	t.Run("path tolerance fault aborts", func(t *testing.T) {
		if err := c.n.ParamSetFloat64("/simrobot/faults/arm/tracking_offset", 0.3); err != nil {
			t.Fatal(err)
		}
		var applied map[string]any
		if err := json.Unmarshal([]byte(c.trigger("/simrobot/apply_faults")), &applied); err != nil {
			t.Fatal(err)
		}
		if applied["arm/tracking_offset"] != 0.3 {
			t.Fatalf("apply_faults answered %v", applied)
		}
		c.send("off-path", time.Now(), goal(0.5, 0, 0, 0, 0, 0, 0))
		res := c.result("off-path")
		if res.Status.Status != sim.StatusAborted || res.Result.ErrorCode != sim.ErrorPathToleranceViolated {
			t.Errorf("result %+v, want ABORTED/PATH_TOLERANCE_VIOLATED", res)
		}
		c.trigger("/simrobot/clear_faults")
		if f := r.Faults(); f.Arm.TrackingOffset != 0 {
			t.Errorf("faults after clear_faults: %+v", f)
		}
		if ok, err := c.n.ParamIsSet("/simrobot/faults"); err != nil || ok {
			t.Errorf("/simrobot/faults still set after clear_faults (%v)", err)
		}
	})
}

func TestSimpleActionClientDrivesMoveBase(t *testing.T) {
	m, r := serveForTest(t)
	out, err := m.Run(90*time.Second, rostest.Python, "testdata/move_base_client.py", "0.6", "-0.3", "1.0", "60")
	if err != nil {
		t.Fatalf("move_base client: %v", err)
	}
	if !strings.Contains(out, "state=3") {
		t.Errorf("client output %q, want state=3 (SUCCEEDED)", out)
	}
	p := r.BasePose()
	if d := (p.X-0.6)*(p.X-0.6) + (p.Y+0.3)*(p.Y+0.3); d > 0.05*0.05 {
		t.Errorf("base at %+v, want near (0.6, -0.3)", p)
	}
}

// The collision log travels as the goal log does: an arm that starts
// level over a table in front of the robot is reported touching it.
func TestCollisionLogIsReadOverROS(t *testing.T) {
	table := sim.Box{Min: [3]float64{0.5, -1, 0}, Max: [3]float64{2, 1, 0.4}}
	m, r := serveForTest(t, func(c *sim.Config) {
		c.Table = &table
		c.ArmInitial = []float64{0, math.Pi / 2, 0, 0, 0, 0}
	})
	c := newArmClient(t, m)
	var log sim.CollisionLog
	if err := json.Unmarshal([]byte(c.trigger("/simrobot/collisions")), &log); err != nil {
		t.Fatal(err)
	}
	if log.Table == nil || *log.Table != table || !slices.Contains(log.Touching, "gripper_base_link") ||
		!slices.Equal(log.Links(sim.TableObject), r.Collisions().Links(sim.TableObject)) {
		t.Fatalf("collision log over ROS %+v, want the table and the gripper touching it", log)
	}
}
