package ros2

import (
	"context"
	"errors"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/config"
	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/ros2/action"
	"github.com/actbridge/actbridge/ros2/node"
	"github.com/actbridge/actbridge/ros2/qos"
	"github.com/actbridge/actbridge/ros2/service"
	"github.com/actbridge/actbridge/test/netns"
)

// frankaGripper is a franka_gripper of this library's: ~/move and ~/grasp
// on its own participant, the fingers on ~/joint_states (each width/2),
// an object of objectWidth between the fingers, and libfranka's rules:
// a closing motion stops on the object; a grasp succeeds only when it
// ends within its epsilon of the target width, a move only when it ends
// at the target.
type frankaGripper struct {
	mu     sync.Mutex
	width  float64 // the fingers' opening now
	object float64 // the object's width; 0: none
	grasps []*cdr.Message
	moves  []*cdr.Message
}

func newFrankaGripper(t *testing.T, domain int, d msgs.Distro, width, object float64) *frankaGripper {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	rctx, err := node.NewContext(ctx, node.Options{Distro: d, Discovery: node.Discovery{Domain: domain, Range: node.Localhost}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rctx.Close() })
	n, err := rctx.NewNode("franka_gripper", "")
	if err != nil {
		t.Fatal(err)
	}
	f := &frankaGripper{width: width, object: object}
	set, err := msgs.Load(d)
	if err != nil {
		t.Fatal(err)
	}
	js, err := n.NewPublisher("/franka_gripper/joint_states", jointStateType, qos.SensorData)
	if err != nil {
		t.Fatal(err)
	}
	life, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	t.Cleanup(wg.Wait)
	t.Cleanup(stop)
	publish := func() {
		f.mu.Lock()
		w := f.width
		f.mu.Unlock()
		m := js.New()
		m.Set("name", []string{"fr3_finger_joint1", "fr3_finger_joint2"})
		m.Set("position", []float64{w / 2, w / 2})
		js.Publish(m)
	}
	wg.Go(func() { // as franka_gripper does, all the time
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-life.Done():
				return
			case <-tick.C:
				publish()
			}
		}
	})
	for _, typ := range []string{frankaMove, frankaGrasp} {
		resT, err := set.Struct(typ + "_Result")
		if err != nil {
			t.Fatal(err)
		}
		fbT, err := set.Struct(typ + "_Feedback")
		if err != nil {
			t.Fatal(err)
		}
		name := "/franka_gripper/move"
		if typ == frankaGrasp {
			name = "/franka_gripper/grasp"
		}
		srv, err := action.NewServer(rctx.Participant(), set, name, typ, action.Handlers{
			Accepted: func(g *action.ServerGoal) {
				wg.Go(func() { f.run(g, typ == frankaGrasp, resT, fbT, publish) })
			},
		}, action.ServerOptions{Service: service.Options{Endpoints: n.Announce}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { srv.Close() })
	}
	return f
}

// run moves the fingers to the goal's width, or onto the object when it
// closes on one, then ends the goal by libfranka's rule.
func (f *frankaGripper) run(g *action.ServerGoal, grasp bool, resT, fbT *cdr.Struct, publish func()) {
	goal := g.Goal()
	target := goal.Get("width").(float64)
	f.mu.Lock()
	if grasp {
		f.grasps = append(f.grasps, goal)
	} else {
		f.moves = append(f.moves, goal)
	}
	end := target
	if f.object > 0 && target < f.object && f.width >= f.object {
		end = f.object // the fingers close on it
	}
	start := f.width
	f.mu.Unlock()
	for i := 1; i <= 5; i++ {
		w := start + (end-start)*float64(i)/5
		f.mu.Lock()
		f.width = w
		f.mu.Unlock()
		fb := cdr.Zero(fbT)
		fb.Set("current_width", w)
		g.Feedback(fb)
		publish()
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond) // the joint states carry the end first
	ok := math.Abs(end-target) < 1e-9
	if grasp {
		eps := goal.Get("epsilon").(*cdr.Message)
		ok = target-eps.Get("inner").(float64) <= end && end <= target+eps.Get("outer").(float64)
	}
	res := cdr.Zero(resT)
	res.Set("success", ok)
	if !ok {
		res.Set("error", "command failed")
		g.Abort(res)
		return
	}
	g.Succeed(res)
}

func (f *frankaGripper) sent() (moves, grasps []*cdr.Message) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*cdr.Message(nil), f.moves...), append([]*cdr.Message(nil), f.grasps...)
}

// openFranka opens a robot with the FR3 preset's gripper on domain.
func openFranka(t *testing.T, domain int, d msgs.Distro) (*Robot, *updates) {
	t.Helper()
	r := openRobot(t, &config.Config{Transport: config.TransportROS2,
		ROS2: config.ROS2{Distro: string(d), DomainID: &domain, DiscoveryRange: config.DiscoveryLocalhost},
		Actuators: []config.ActuatorConfig{{Name: "gripper", Kind: actuators.KindGripper, Action: "/franka_gripper",
			ActionType: config.GripperActionFranka, Joints: []string{"fr3_finger_joint1"},
			JointStatesTopic: "/franka_gripper/joint_states", GoalConnectTimeout: config.Duration(10 * time.Second)}}})
	h := &updates{}
	r.SetObserver(h.push)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	for ctx.Err() == nil { // both actions served and the fingers' state known
		_, known := r.jointPosition("fr3_finger_joint1")
		if st := r.Actuators()[0]; st.Connected && known {
			return r, h
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("the gripper never connected: %+v", r.Actuators())
	return nil, nil
}

// Closing on a 30 mm object from 80 mm to 0 goes to ~/grasp with the
// starting width as outer tolerance, so it succeeds by libfranka's rule
// and reports the full width 0.03 (position 0.015, a finger's); opening
// again goes to ~/move at twice the finger position, and reports 0.08.
// (franka_gripper's own gripper_action, 5 mm either way, aborts that grasp.)
func TestFrankaGraspOnAnObjectSucceedsAndReportsTheFullWidth(t *testing.T) {
	netns.Require(t)
	for i, d := range []msgs.Distro{msgs.Humble, msgs.Jazzy} {
		t.Run(string(d), func(t *testing.T) {
			domain := 221 + i
			f := newFrankaGripper(t, domain, d, 0.08, 0.03)
			r, h := openFranka(t, domain, d)

			closeID := newUUID()
			if err := r.Send(t.Context(), "gripper", closeID, actuators.GripperCommand{Position: 0, MaxEffort: 20}); err != nil {
				t.Fatal(err)
			}
			u := h.end(t, closeID, 10*time.Second)
			res, _ := u.Result.(map[string]any)
			if u.State != actuators.GoalSucceeded || res["width"] != 0.03 || res["position"] != 0.015 || res["success"] != true {
				t.Fatalf("closing on a 30 mm object: %+v, want succeeded at width 0.03, position 0.015", u)
			}
			if !h.progressed(closeID) {
				t.Errorf("no progress from the grasp's feedback: %+v", h.of(closeID))
			}
			moves, grasps := f.sent()
			if len(moves) != 0 || len(grasps) != 1 {
				t.Fatalf("%d moves and %d grasps sent, want the grasp alone", len(moves), len(grasps))
			}
			g := grasps[0]
			eps := g.Get("epsilon").(*cdr.Message)
			if g.Get("width") != 0.0 || g.Get("force") != 20.0 || g.Get("speed") != frankaSpeed ||
				eps.Get("inner") != frankaInner || eps.Get("outer") != 0.08 {
				t.Errorf("the grasp %s", g.AppendJSON(nil))
			}

			openID := newUUID()
			if err := r.Send(t.Context(), "gripper", openID, actuators.GripperCommand{Position: 0.04}); err != nil {
				t.Fatal(err)
			}
			u = h.end(t, openID, 10*time.Second)
			res, _ = u.Result.(map[string]any)
			if u.State != actuators.GoalSucceeded || res["width"] != 0.08 || res["position"] != 0.04 {
				t.Fatalf("opening: %+v, want succeeded at width 0.08", u)
			}
			moves, _ = f.sent()
			if len(moves) != 1 || moves[0].Get("width") != 0.08 {
				t.Fatalf("moves sent: %d, want one to width 0.08", len(moves))
			}

		})
	}
}

// Without the fingers' joint state the codec cannot tell an opening from
// a closing goal, and nothing is sent.
func TestFrankaGoalWithoutTheFingersStateIsNotSent(t *testing.T) {
	c := newFrankaCodec(config.ActuatorConfig{Joints: []string{"fr3_finger_joint1"}}, func(string) (float64, bool) { return 0, false })
	if _, err := c.laneOf(actuators.GripperCommand{Position: 0.01}); !errors.Is(err, actuators.ErrNotConnected) {
		t.Fatalf("laneOf without a joint state: %v, want ErrNotConnected", err)
	}
	for _, g := range []actuators.GripperCommand{{Position: -0.01}, {Position: math.NaN()}, {Position: 0.01, MaxEffort: -1}} {
		if _, err := c.laneOf(g); !errors.Is(err, actuators.ErrInvalidArgument) {
			t.Errorf("laneOf(%+v): %v, want ErrInvalidArgument", g, err)
		}
	}
}

// A Franka goal tracked after a restart is found on the action that holds
// it (the grasp, here, not the move) and ends as it ended there.
func TestFrankaGoalTrackedAfterARestartIsFoundOnItsAction(t *testing.T) {
	netns.Require(t)
	const domain = 225
	newFrankaGripper(t, domain, msgs.Jazzy, 0.08, 0.03)
	r, h := openFranka(t, domain, msgs.Jazzy)
	// An opening first, so ~/move's status lists a goal (not this one):
	// the grasp must still be found on ~/grasp, not taken as ~/move's
	// UNKNOWN.
	open := newUUID()
	if err := r.Send(t.Context(), "gripper", open, actuators.GripperCommand{Position: 0.04, MaxEffort: 0}); err != nil {
		t.Fatal(err)
	}
	if u := h.end(t, open, 10*time.Second); u.State != actuators.GoalSucceeded {
		t.Fatalf("the opening: %+v", u)
	}
	id := newUUID()
	if err := r.Send(t.Context(), "gripper", id, actuators.GripperCommand{Position: 0, MaxEffort: 20}); err != nil {
		t.Fatal(err)
	}
	if u := h.end(t, id, 10*time.Second); u.State != actuators.GoalSucceeded {
		t.Fatalf("the grasp: %+v", u)
	}
	again, h2 := openFranka(t, domain, msgs.Jazzy)
	again.Track("gripper", id)
	u := h2.end(t, id, 10*time.Second)
	res, _ := u.Result.(map[string]any)
	if u.State != actuators.GoalSucceeded || res["width"] != 0.03 || res["success"] != true {
		t.Fatalf("the tracked grasp: %+v, want succeeded at width 0.03", u)
	}
}
