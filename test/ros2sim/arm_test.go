package ros2sim

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/ros2/action"
	"github.com/actbridge/actbridge/ros2/node"
	"github.com/actbridge/actbridge/ros2/qos"
	"github.com/actbridge/actbridge/ros2/service"
	"github.com/actbridge/actbridge/sim"
	"github.com/actbridge/actbridge/test/netns"
)

const (
	fjt       = "control_msgs/action/FollowJointTrajectory"
	armAction = "/joint_trajectory_controller/follow_joint_trajectory"
)

// armRig is a sim and our client of its arm's action.
type armRig struct {
	sim    *netns.Peer
	set    *msgs.Set
	ctx    *node.Context
	client *action.Client
	joints []string
	domain int
	ns     string // the sim's --namespace ("" for none): a prefix of every name
}

func newArmRig(t *testing.T, d msgs.Distro, domain int, args ...string) *armRig {
	t.Helper()
	return newArmRigIn(t, d, domain, "", args...)
}

// newArmRigIn is newArmRig for a sim under --namespace ns.
func newArmRigIn(t *testing.T, d msgs.Distro, domain int, ns string, args ...string) *armRig {
	t.Helper()
	return newArmRigOn(t, d, node.Discovery{Domain: domain, Range: node.Localhost}, nil, ns, args...)
}

// newArmRigOn is newArmRigIn with the rig's discovery disc and env added
// to the sim's (a discovery server's client: ROS_DISCOVERY_SERVER).
func newArmRigOn(t *testing.T, d msgs.Distro, disc node.Discovery, env []string, ns string, args ...string) *armRig {
	t.Helper()
	if ns != "" {
		args = append([]string{"--namespace", ns}, args...)
	}
	r := &armRig{sim: startSimEnv(t, disc.Domain, env, append([]string{"--distro", string(d)}, args...)...), domain: disc.Domain, ns: ns}
	var n *node.Node
	r.ctx, n = clientContextOn(t, d, disc, "planner")
	var err error
	if r.set, err = msgs.Load(d); err != nil {
		t.Fatal(err)
	}
	if r.client, err = action.NewClient(r.ctx.Participant(), r.set, ns+armAction, fjt, service.Options{Endpoints: n.Announce}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.client.Close() })
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	js := subscribe(t, n, ns+"/joint_states", "sensor_msgs/msg/JointState", qos.Default)
	r.joints = take(ctx, t, js, r.sim).Get("name").([]string)[:6]
	return r
}

func newID(t *testing.T) action.GoalID {
	var id action.GoalID
	if _, err := rand.Read(id[:]); err != nil {
		t.Fatal(err)
	}
	return id
}

func simID(id action.GoalID) string {
	return fmt.Sprintf("%x-%x-%x-%x-%x", id[0:4], id[4:6], id[6:8], id[8:10], id[10:16])
}

func setDuration(m *cdr.Message, d time.Duration) {
	m.Set("sec", int32(d/time.Second))
	m.Set("nanosec", uint32(d%time.Second))
}

// goal moves every arm joint to pos in dur, the last point's velocities
// lastVel, with a 1 s goal_time_tolerance.
func (r *armRig) goal(t *testing.T, pos float64, dur time.Duration, lastVel float64) *cdr.Message {
	t.Helper()
	positions := make([]float64, len(r.joints))
	for i := range positions {
		positions[i] = pos
	}
	return r.goalTo(t, positions, dur, lastVel, time.Second)
}

// goalTo moves the arm to positions in dur, the last point's velocities
// lastVel, with goal_time_tolerance goalTime.
func (r *armRig) goalTo(t *testing.T, positions []float64, dur time.Duration, lastVel float64, goalTime time.Duration) *cdr.Message {
	t.Helper()
	s, err := r.set.Struct(fjt + "_Goal")
	if err != nil {
		t.Fatal(err)
	}
	g := cdr.Zero(s)
	jt := g.Get("trajectory").(*cdr.Message)
	jt.Set("joint_names", r.joints)
	pts := cdr.MakeSlice(jt.Type.Field(jt.Type.FieldIndex("points")).Type, 1).([]*cdr.Message)
	p := pts[0]
	vels := make([]float64, len(r.joints))
	for i := range vels {
		vels[i] = lastVel
	}
	p.Set("positions", positions)
	p.Set("velocities", vels)
	setDuration(p.Get("time_from_start").(*cdr.Message), dur)
	jt.Set("points", pts)
	setDuration(g.Get("goal_time_tolerance").(*cdr.Message), goalTime)
	return g
}

// send sends a goal once the server is discovered (nothing is sent
// while ErrNoServer says so).
func (r *armRig) send(ctx context.Context, t *testing.T, id action.GoalID, g *cdr.Message) error {
	t.Helper()
	return sendGoal(ctx, r.client, id, g)
}

func sendGoal(ctx context.Context, c *action.Client, id action.GoalID, g *cdr.Message) error {
	for {
		_, err := c.SendGoal(ctx, id, g)
		if !errors.Is(err, service.ErrNoServer) || ctx.Err() != nil {
			return err
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// goalLog calls the sim's /simrobot/goals Trigger service (in its namespace).
func (r *armRig) goalLog(ctx context.Context, t *testing.T) sim.GoalLog {
	t.Helper()
	var log sim.GoalLog
	if err := json.Unmarshal([]byte(r.trigger(ctx, t, r.ns+"/simrobot/goals")), &log); err != nil {
		t.Fatalf("goals: %v", err)
	}
	return log
}

// TestTrajectoryGoalGivesFeedbackAndSucceedsOnce: on every distro a
// FollowJointTrajectory goal is accepted, sends feedback (Kilted's and
// Lyrical's with the point index) and ends SUCCEEDED with error_code 0; the sim's goal
// log holds it once, under the goal UUID.
func TestTrajectoryGoalGivesFeedbackAndSucceedsOnce(t *testing.T) {
	for i, d := range msgs.Distros() {
		t.Run(string(d), func(t *testing.T) {
			r := newArmRig(t, d, 60+i)
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			id := newID(t)
			if err := r.send(ctx, t, id, r.goal(t, 0.3, 2*time.Second, 0)); err != nil {
				t.Fatalf("send: %v\nsim:\n%s", err, r.sim.Output())
			}
			fb, err := r.client.Feedback(id)
			if err != nil {
				t.Fatal(err)
			}
			select {
			case m := <-fb:
				if names := m.Get("joint_names").([]string); len(names) != 6 {
					t.Fatalf("feedback: %s", m.AppendJSON(nil))
				}
				if hasIndex := d == msgs.Kilted || d == msgs.Lyrical; (m.Type.FieldIndex("index") >= 0) != hasIndex {
					t.Fatalf("feedback of %s: index field present %v", d, !hasIndex)
				}
			case <-ctx.Done():
				t.Fatalf("no feedback\nsim:\n%s", r.sim.Output())
			}
			res, err := r.client.Result(ctx, id)
			if err != nil || res.Status.Name != "SUCCEEDED" || res.Message.Get("error_code") != int32(0) {
				t.Fatalf("result: %+v %v", res, err)
			}
			a := r.goalLog(ctx, t)["arm"]
			if a.Count(simID(id)) != 1 || a.Duplicates != 0 || a.Goals[len(a.Goals)-1].State != "SUCCEEDED" {
				t.Fatalf("goal log: %+v", a)
			}
		})
	}
}

// TestNonZeroLastVelocityIsRejected: as ros2_controllers' controller
// (allow_nonzero_velocity_at_trajectory_end false), a trajectory whose
// last point moves is refused, and the arm never ran it.
func TestNonZeroLastVelocityIsRejected(t *testing.T) {
	r := newArmRig(t, msgs.Jazzy, 70)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	id := newID(t)
	if err := r.send(ctx, t, id, r.goal(t, 0.3, 500*time.Millisecond, 0.1)); !errors.Is(err, action.ErrRejected) {
		t.Fatalf("send: %v, want ErrRejected", err)
	}
	if a := r.goalLog(ctx, t)["arm"]; a.Received != 0 {
		t.Fatalf("the sim's arm received the goal: %+v", a)
	}
}

// TestPreemptedGoalEndsPerDistro: a new goal preempts the active one,
// which ends ABORTED (Jazzy, Kilted, Lyrical) with INVALID_GOAL and the
// controller's text, or CANCELED with a zero result (Humble); the new
// goal succeeds.
func TestPreemptedGoalEndsPerDistro(t *testing.T) {
	for i, c := range []struct {
		d          msgs.Distro
		want, text string
		code       int32
	}{
		{msgs.Humble, "CANCELED", "", 0},
		{msgs.Jazzy, "ABORTED", "Current goal preempted by new incoming action.", -1},
		{msgs.Kilted, "ABORTED", "Current goal preempted by new incoming action.", -1},
		{msgs.Lyrical, "ABORTED", "Current goal preempted by new incoming action.", -1},
	} {
		t.Run(string(c.d), func(t *testing.T) {
			r := newArmRig(t, c.d, 71+i)
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			first, second := newID(t), newID(t)
			if err := r.send(ctx, t, first, r.goal(t, 1, 5*time.Second, 0)); err != nil {
				t.Fatal(err)
			}
			if _, err := r.client.WaitStatus(ctx, first, func(s action.Status) bool { return s.Name == "EXECUTING" }); err != nil {
				t.Fatal(err)
			}
			if err := r.send(ctx, t, second, r.goal(t, 0.1, 300*time.Millisecond, 0)); err != nil {
				t.Fatal(err)
			}
			res, err := r.client.Result(ctx, first)
			if err != nil || res.Status.Name != c.want || res.Message.Get("error_code") != c.code || res.Message.Get("error_string") != c.text {
				t.Fatalf("preempted: %+v %s %v", res.Status, res.Message.AppendJSON(nil), err)
			}
			if res, err := r.client.Result(ctx, second); err != nil || res.Status.Name != "SUCCEEDED" {
				t.Fatalf("preempting: %+v %v", res.Status, err)
			}
		})
	}
}

// TestDuplicateGoalUUIDIsLoggedCountedAndNotRunTwice: a raw send_goal
// client (not our action client, which refuses to resend) sends one
// UUID twice; the sim answers both as rclcpp does, runs the goal once,
// logs the second as a duplicate, counts it and says so on its log.
func TestDuplicateGoalUUIDIsLoggedCountedAndNotRunTwice(t *testing.T) {
	r := newArmRig(t, msgs.Jazzy, 75)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	types, err := service.ResolveTypes(r.set, fjt+"_SendGoal")
	if err != nil {
		t.Fatal(err)
	}
	c, err := service.NewClient(r.ctx.Participant(), types, armAction+"/_action/send_goal", service.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.WaitServer(ctx); err != nil {
		t.Fatal(err)
	}
	id := newID(t)
	req := cdr.Zero(types.Request)
	req.Get("goal_id").(*cdr.Message).Set("uuid", id[:])
	req.Set("goal", r.goal(t, 0.2, 300*time.Millisecond, 0))
	for i := range 2 {
		rep, err := c.Call(ctx, req)
		if err != nil || rep.Get("accepted") != true {
			t.Fatalf("send %d: %v %v", i, err, rep)
		}
		time.Sleep(500 * time.Millisecond) // the first has ended before the second
	}
	a := r.goalLog(ctx, t)["arm"]
	sid := simID(id)
	if a.Received != 2 || a.Duplicates != 1 || a.Count(sid) != 2 || a.Goals[0].State != "SUCCEEDED" || !a.Goals[1].Duplicate {
		t.Fatalf("goal log: %+v", a)
	}
	if out := r.sim.Output(); !strings.Contains(out, "duplicate goal UUID "+sid) {
		t.Fatalf("the sim did not log the duplicate:\n%s", out)
	}
}

// actionClient is a client of the sim's action name of type typ, closed
// with the test, and a zero goal of that type.
func (r *armRig) actionClient(t *testing.T, name, typ string) (*action.Client, *cdr.Message) {
	t.Helper()
	c, err := action.NewClient(r.ctx.Participant(), r.set, name, typ, service.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	s, err := r.set.Struct(typ + "_Goal")
	if err != nil {
		t.Fatal(err)
	}
	return c, cdr.Zero(s)
}

// TestCancelEndsTheGoalCanceledAndHolds: a client's cancel of the active
// trajectory ends it CANCELED, and the arm stops where it was.
func TestCancelEndsTheGoalCanceledAndHolds(t *testing.T) {
	r := newArmRig(t, msgs.Jazzy, 76)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	id := newID(t)
	if err := r.send(ctx, t, id, r.goal(t, 1, 3*time.Second, 0)); err != nil {
		t.Fatal(err)
	}
	if _, err := r.client.WaitStatus(ctx, id, func(s action.Status) bool { return s.Name == "EXECUTING" }); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	if _, err := r.client.Cancel(ctx, id); err != nil {
		t.Fatal(err)
	}
	if res, err := r.client.Result(ctx, id); err != nil || res.Status.Name != "CANCELED" {
		t.Fatalf("result: %+v %v", res.Status, err)
	}
	if a := r.goalLog(ctx, t)["arm"]; a.Cancels != 1 || a.Goals[0].State != "PREEMPTED" {
		t.Fatalf("goal log: %+v", a)
	}
}

// TestSecondArmServesItsOwnController: with --second-arm the second arm
// is /arm2_controller/follow_joint_trajectory; its goal succeeds and is
// logged under "arm2", the first arm's log untouched.
func TestSecondArmServesItsOwnController(t *testing.T) {
	const domain = 77
	sim := startSim(t, domain, "--second-arm")
	c, n := clientContext(t, msgs.Jazzy, domain, "planner")
	set, err := msgs.Load(msgs.Jazzy)
	if err != nil {
		t.Fatal(err)
	}
	r := &armRig{sim: sim, set: set, ctx: c, domain: domain}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	js := subscribe(t, n, "/joint_states", "sensor_msgs/msg/JointState", qos.Default)
	for _, name := range take(ctx, t, js, sim).Get("name").([]string) {
		if strings.HasPrefix(name, "arm2_") {
			r.joints = append(r.joints, name)
		}
	}
	if len(r.joints) != 6 {
		t.Fatalf("second arm joints %v", r.joints)
	}
	client, _ := r.actionClient(t, "/arm2_controller/follow_joint_trajectory", fjt)
	id := newID(t)
	if err := sendGoal(ctx, client, id, r.goal(t, 0.2, 400*time.Millisecond, 0)); err != nil {
		t.Fatal(err)
	}
	if res, err := client.Result(ctx, id); err != nil || res.Status.Name != "SUCCEEDED" {
		t.Fatalf("result: %+v %v\nsim:\n%s", res.Status, err, sim.Output())
	}
	log := r.goalLog(ctx, t)
	if log["arm2"].Count(simID(id)) != 1 || log["arm"].Received != 0 {
		t.Fatalf("goal log: %+v", log)
	}
}

// TestGoalTimeToleranceIsHonoured: a joint sent past its hard stop never
// reaches the goal; the goal ends ABORTED, GOAL_TOLERANCE_VIOLATED, no
// sooner than the trajectory's end plus the goal's goal_time_tolerance.
func TestGoalTimeToleranceIsHonoured(t *testing.T) {
	r := newArmRig(t, msgs.Jazzy, 78)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	positions := make([]float64, len(r.joints))
	positions[slices.Index(r.joints, "elbow_joint")] = 2.7                // hard stop at 2.6: within path tolerance, never within goal tolerance
	const dur, goalTime = 500 * time.Millisecond, 1500 * time.Millisecond // the controller's default is 0.5 s
	id := newID(t)
	start := time.Now()
	if err := r.send(ctx, t, id, r.goalTo(t, positions, dur, 0, goalTime)); err != nil {
		t.Fatal(err)
	}
	res, err := r.client.Result(ctx, id)
	took := time.Since(start)
	if err != nil || res.Status.Name != "ABORTED" || res.Message.Get("error_code") != int32(-5) {
		t.Fatalf("result: %+v %v", res.Status, err)
	}
	if took < dur+goalTime {
		t.Fatalf("aborted after %v, before the trajectory's end plus goal_time_tolerance (%v)", took, dur+goalTime)
	}
}
