package ros2

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/config"
	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/ros2/action"
	"github.com/actbridge/actbridge/ros2/graph"
	"github.com/actbridge/actbridge/ros2/node"
	"github.com/actbridge/actbridge/ros2/qos"
	"github.com/actbridge/actbridge/ros2/service"
	"github.com/actbridge/actbridge/test/netns"
)

const fjtType = "control_msgs/action/FollowJointTrajectory"

// armServer is a FollowJointTrajectory server of this library's in a
// node (name, namespace) of its own participant on domain: it counts the
// goals it was sent, and succeeds each after release is closed (nil:
// at once).
type armServer struct {
	ctx  *node.Context
	node *node.Node
	srv  *action.Server
	seen atomic.Int32
	// started and finished count the goals whose execution began, and
	// those that ran to their end (succeeded, not canceled).
	started, finished atomic.Int32
	goal              chan struct{} // closed at the first goal's send_goal
	once              sync.Once
	block             chan struct{} // send_goal's decision waits for it, when not nil
	runs              time.Duration // how long a goal runs unless canceled
}

// newNode is a node (name, namespace) of a participant of its own on
// domain, closed with t.
func newNode(t *testing.T, domain int, name, ns string) (*node.Context, *node.Node) {
	t.Helper()
	return newNodeOn(t, node.Discovery{Domain: domain, Range: node.Localhost}, name, ns)
}

// newNodeOn is newNode with discovery d.
func newNodeOn(t *testing.T, d node.Discovery, name, ns string) (*node.Context, *node.Node) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	rctx, err := node.NewContext(ctx, node.Options{Distro: msgs.Jazzy, Discovery: d})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rctx.Close() })
	n, err := rctx.NewNode(name, ns)
	if err != nil {
		t.Fatal(err)
	}
	return rctx, n
}

func newArmServer(t *testing.T, domain int, name, ns string, block chan struct{}) *armServer {
	t.Helper()
	return newArmServerOn(t, node.Discovery{Domain: domain, Range: node.Localhost}, name, ns, block)
}

// newArmServerOn is newArmServer with discovery d.
func newArmServerOn(t *testing.T, d node.Discovery, name, ns string, block chan struct{}) *armServer {
	t.Helper()
	rctx, n := newNodeOn(t, d, name, ns)
	s := &armServer{ctx: rctx, node: n, goal: make(chan struct{}), block: block, runs: 100 * time.Millisecond}
	if block != nil {
		s.runs = 5 * time.Second // long enough to be canceled
	}
	set, err := msgs.Load(msgs.Jazzy)
	if err != nil {
		t.Fatal(err)
	}
	resT, err := set.Struct(fjtType + "_Result")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(wg.Wait)
	s.srv, err = action.NewServer(rctx.Participant(), set, armAction, fjtType, action.Handlers{
		Goal: func(action.GoalID, *cdr.Message) action.GoalResponse {
			s.seen.Add(1)
			s.once.Do(func() { close(s.goal) })
			if s.block != nil {
				<-s.block // the bridge's send gives up meanwhile
			}
			return action.AcceptAndExecute
		},
		Accepted: func(g *action.ServerGoal) {
			s.started.Add(1)
			wg.Go(func() {
				select {
				case <-g.Canceling():
					g.Canceled(cdr.Zero(resT))
				case <-time.After(s.runs):
					s.finished.Add(1)
					g.Succeed(cdr.Zero(resT))
				}
			})
		},
	}, action.ServerOptions{Service: service.Options{Endpoints: n.Announce}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.srv.Close() })
	return s
}

// openArmOn opens a robot with an arm on the action of armServer, extra
// applied to its config.
func openArmOn(t *testing.T, domain int, extra func(*config.ActuatorConfig)) (*Robot, *updates) {
	t.Helper()
	a := config.ActuatorConfig{Name: "arm", Kind: actuators.KindArm, Action: armAction, Joints: simArmJoints,
		GoalConnectTimeout: config.Duration(2 * time.Second)}
	if extra != nil {
		extra(&a)
	}
	r := openRobot(t, &config.Config{Transport: config.TransportROS2,
		ROS2:      config.ROS2{Distro: string(msgs.Jazzy), DomainID: &domain, DiscoveryRange: config.DiscoveryLocalhost},
		Actuators: []config.ActuatorConfig{a}})
	h := &updates{}
	r.SetObserver(h.push)
	return r, h
}

// waitServers waits until r's graph lists n participants serving the arm's
// action, each with its node.
func waitServers(t *testing.T, r *Robot, n int) {
	t.Helper()
	waitSources(t, r, n, func(g graph.Graph) []source { return serversOf(g, r.acts["arm"].lanes[0].sendGoal) })
}

// A robot_stop while a goal's send_goal is unanswered (the server
// decides after the bridge gave up) cancels it by UUID, which the server
// does not know yet, and keeps it on sight: once the server lists the goal
// it arrives late, and is canceled at once, never run to its end.
func TestStopAllCancelsAGoalThatArrivesLateOnSight(t *testing.T) {
	netns.Require(t)
	const domain = 157
	release := make(chan struct{})
	releaseOnce := sync.OnceFunc(func() { close(release) })
	srv := newArmServer(t, domain, "joint_trajectory_controller", "", release)
	r, h := openArmOn(t, domain, func(a *config.ActuatorConfig) { a.GoalConnectTimeout = config.Duration(500 * time.Millisecond) })
	t.Cleanup(releaseOnce)
	waitServers(t, r, 1)
	id := newUUID()
	if err := r.Send(t.Context(), "arm", id, simArmGoal(0.2)); err != nil {
		t.Fatalf("an unanswered send: %v, want nil (followed)", err)
	}
	<-srv.goal
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	if err := r.StopAll(ctx); err != nil {
		t.Fatalf("StopAll: %v", err)
	}
	releaseOnce() // the goal reaches the server's executor now
	if u := h.end(t, id, 10*time.Second); u.State != actuators.GoalCanceled {
		t.Fatalf("the late goal ended %+v, want canceled on sight", u)
	}
}

// waitPublishers waits until r's graph lists n participants publishing
// /joint_states, each with its node.
func waitPublishers(t *testing.T, r *Robot, n int) {
	t.Helper()
	waitSources(t, r, n, func(g graph.Graph) []source { return publishersOf(g, "/joint_states") })
}

// waitSources waits until list gives n sources, each with its node.
func waitSources(t *testing.T, r *Robot, n int, list func(graph.Graph) []source) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	if _, err := r.rctx.WaitGraph(ctx, func(g graph.Graph) bool {
		srcs := list(g)
		for _, s := range srcs {
			if s.node == "" {
				return false
			}
		}
		return len(srcs) == n
	}); err != nil {
		t.Fatalf("%d sources never listed with their nodes: %v", n, err)
	}
}

// Two robots on one domain without namespaces (or a stray test node):
// two participants serve the arm's action. Every motion on the arm is
// refused, the refusal and the actuator's status naming both nodes and
// participants, and neither server gets a goal; with server_node naming
// one, that one alone gets it.
func TestTwoServersOfTheArmsActionRefuseItsMotionsUnlessServerNodeNamesOne(t *testing.T) {
	netns.Require(t)
	const domain = 153
	one := newArmServer(t, domain, "joint_trajectory_controller", "/r1", nil)
	two := newArmServer(t, domain, "joint_trajectory_controller", "/r2", nil)
	r, _ := openArmOn(t, domain, nil)
	waitServers(t, r, 2)
	st := r.Actuators()[0]
	for _, want := range []string{"/r1/joint_trajectory_controller", "/r2/joint_trajectory_controller", prefixHex(one.ctx), prefixHex(two.ctx)} {
		if !strings.Contains(st.Ambiguous, want) {
			t.Fatalf("the arm's status %q does not name %s", st.Ambiguous, want)
		}
	}
	err := r.Send(t.Context(), "arm", newUUID(), simArmGoal(0.2))
	if !errors.Is(err, actuators.ErrAmbiguousServer) || !strings.Contains(err.Error(), "/r2/joint_trajectory_controller") {
		t.Fatalf("send with two servers: %v, want ErrAmbiguousServer naming both", err)
	}

	pinned, h := openArmOn(t, domain, func(a *config.ActuatorConfig) { a.ServerNode = "/r2/joint_trajectory_controller" })
	waitServers(t, pinned, 2)
	if st := pinned.Actuators()[0]; st.Ambiguous != "" || !st.Connected {
		t.Fatalf("the pinned arm's status: %+v", st)
	}
	id := newUUID()
	if err := pinned.Send(t.Context(), "arm", id, simArmGoal(0.2)); err != nil {
		t.Fatal(err)
	}
	if u := h.end(t, id, 10*time.Second); u.State != actuators.GoalSucceeded {
		t.Fatalf("the pinned goal ended %+v", u)
	}
	time.Sleep(200 * time.Millisecond) // a goal to the other would have arrived by now
	if a, b := one.seen.Load(), two.seen.Load(); a != 0 || b != 1 {
		t.Fatalf("the servers got %d and %d goals, want 0 and 1", a, b)
	}
}

// prefixHex is a Context's participant GUID prefix as the refusals print it.
func prefixHex(c *node.Context) string {
	p := c.Participant().GUID().Prefix
	return fmt.Sprintf("%x", p[:])
}

// Two publishers of /joint_states: motion on the arm is refused
// (ErrAmbiguousServer, naming both), until state_node names one.
func TestTwoJointStatePublishersRefuseArmMotionUnlessStateNodeNamesOne(t *testing.T) {
	netns.Require(t)
	const domain = 154
	srv := newArmServer(t, domain, "joint_trajectory_controller", "", nil)
	for _, ns := range []string{"/r1", "/r2"} {
		n, err := srv.ctx.NewNode("joint_state_broadcaster", ns)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := n.NewPublisher("/joint_states", jointStateType, qos.SensorData); err != nil {
			t.Fatal(err)
		}
	}
	r, _ := openArmOn(t, domain, nil)
	waitServers(t, r, 1)
	waitPublishers(t, r, 1)
	// One participant, two nodes: one source. A second participant
	// publishing makes two.
	_, other := newNode(t, domain, "joint_state_broadcaster", "/r3")
	if _, err := other.NewPublisher("/joint_states", jointStateType, qos.SensorData); err != nil {
		t.Fatal(err)
	}
	waitPublishers(t, r, 2)
	if st := r.Actuators()[0]; !strings.Contains(st.Ambiguous, "publishers of /joint_states") || !strings.Contains(st.Ambiguous, "/r3/joint_state_broadcaster") {
		t.Fatalf("the arm's status: %+v", st)
	}
	if err := r.Send(t.Context(), "arm", newUUID(), simArmGoal(0.2)); !errors.Is(err, actuators.ErrAmbiguousServer) {
		t.Fatalf("send with two joint_states publishers: %v, want ErrAmbiguousServer", err)
	}
	if n := srv.seen.Load(); n != 0 {
		t.Fatalf("the server got %d goals", n)
	}
	pinned, _ := openArmOn(t, domain, func(a *config.ActuatorConfig) { a.StateNode = "/r3/joint_state_broadcaster" })
	waitServers(t, pinned, 1)
	waitPublishers(t, pinned, 2)
	if st := pinned.Actuators()[0]; st.Ambiguous != "" {
		t.Fatalf("the pinned arm's status: %+v", st)
	}
	if err := pinned.Send(t.Context(), "arm", newUUID(), simArmGoal(0.2)); err != nil {
		t.Fatalf("send with state_node: %v", err)
	}
}

// A send_goal whose answer never came (the server took longer than the
// bridge's goal_connect_timeout, as a server whose reply or executor
// lags does) leaves the goal on the server's reader: a get_result that
// the server answers first says UNKNOWN. The goal is followed, never
// lost, while its server may hold it, and ends as the server ends it.
func TestUnansweredGoalIsFollowedNotLostWhileItsServerMayHoldIt(t *testing.T) {
	netns.Require(t)
	const domain = 155
	release := make(chan struct{})
	releaseOnce := sync.OnceFunc(func() { close(release) })
	srv := newArmServer(t, domain, "joint_trajectory_controller", "", release)
	t.Cleanup(releaseOnce) // before the server closes: a failed test must not leave its decision waiting
	r, h := openArmOn(t, domain, func(a *config.ActuatorConfig) { a.GoalConnectTimeout = config.Duration(500 * time.Millisecond) })
	waitServers(t, r, 1)
	id := newUUID()
	if err := r.Send(t.Context(), "arm", id, simArmGoal(0.2)); err != nil {
		t.Fatalf("an unanswered send: %v, want nil (followed)", err)
	}
	<-srv.goal
	// get_result has been answered UNKNOWN by now (the server knows no
	// goal while its decision waits): the goal must not have ended.
	time.Sleep(500 * time.Millisecond)
	for _, u := range h.of(id) {
		if u.State == actuators.GoalLost || u.State.Terminal() {
			t.Fatalf("the goal ended %+v while its server held it", u)
		}
	}
	releaseOnce()
	u := h.end(t, id, 10*time.Second)
	if u.State != actuators.GoalSucceeded {
		t.Fatalf("the goal ended %+v, want succeeded", u)
	}
	if n := srv.seen.Load(); n != 1 {
		t.Fatalf("the server got %d goals, want 1", n)
	}
}

// An action client closed while its send waits for the server's answer
// (the robot closing under it) may have written the request (here the
// server holds it, deciding): Send says ErrMaybeSent, never the "nothing
// was sent" of a plain error, so the bridge records the motion unknown
// and keeps its arm busy.
func TestSendCutShortByCloseSaysTheGoalMayHaveLeft(t *testing.T) {
	netns.Require(t)
	const domain = 193
	release := make(chan struct{})
	releaseOnce := sync.OnceFunc(func() { close(release) })
	srv := newArmServer(t, domain, "joint_trajectory_controller", "", release)
	t.Cleanup(releaseOnce)
	r, _ := openArmOn(t, domain, func(a *config.ActuatorConfig) { a.GoalConnectTimeout = config.Duration(20 * time.Second) })
	waitServers(t, r, 1)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- r.Send(ctx, "arm", "c7a1d0f2-55e1-4a61-9a1e-0d3c58b1e0aa", simArmGoal(0.2)) }()
	select {
	case <-srv.goal: // the request is at the server, its answer held
	case err := <-done:
		t.Fatalf("Send returned %v before the server had the goal", err)
	case <-ctx.Done():
		t.Fatal("the server never got the goal")
	}
	r.acts["arm"].lanes[0].client.Close() // as Close does, before the robot's context ends
	select {
	case err := <-done:
		if !errors.Is(err, actuators.ErrMaybeSent) {
			t.Fatalf("Send closed under a written request: %v, want ErrMaybeSent", err)
		}
	case <-ctx.Done():
		t.Fatal("Send did not return after Close")
	}
}
