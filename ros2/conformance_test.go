package ros2

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/actuators/actuatorstest"
	"github.com/actbridge/actbridge/config"
	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/ros2/action"
	"github.com/actbridge/actbridge/ros2/service/servicetest"
	"github.com/actbridge/actbridge/spline"
	"github.com/actbridge/actbridge/test/ddspeers"
	"github.com/actbridge/actbridge/test/netns"
)

func TestMain(m *testing.M) { netns.Main(m) }

const armAction = "/joint_trajectory_controller/follow_joint_trajectory"

func canonical(id action.GoalID) string { return uuid.UUID(id).String() }

// peerRig is one vendor's scripted FollowJointTrajectory server and our
// robot opened on its domain.
type peerRig struct {
	server *ddspeers.Proc
	robot  *Robot
	ids    idNames
}

// idNames maps the goal UUIDs of the ids handed to a robot back to the
// ids, to read a server's log in the suite's terms.
type idNames struct {
	mu  sync.Mutex
	ids map[string]string
}

// name records the UUID an id goes out under.
func (n *idNames) name(id string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.ids == nil {
		n.ids = map[string]string{}
	}
	n.ids[canonical(GoalUUID(id))] = id
}

// idOf is the id a logged UUID went out for, or the UUID when no id maps
// to it.
func (n *idNames) idOf(u string) string {
	n.mu.Lock()
	defer n.mu.Unlock()
	if id, ok := n.ids[u]; ok {
		return id
	}
	return u
}

// startPeerRig starts bin's action server (script args) on domain, and a
// robot with an arm on it and a ghost arm nobody serves.
func startPeerRig(t *testing.T, p *ddspeers.NodePeers, bin string, domain int, args ...string) *peerRig {
	t.Helper()
	ns := netns.Require(t)
	g := &peerRig{}
	g.server = p.StartActionServer(t, ns, bin, armAction, append(args, "--domain", strconv.Itoa(domain))...)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if err := g.server.WaitStderr(ctx, "ready"); err != nil {
		t.Fatalf("%v: %s", err, g.server.Stderr())
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("server stdout:\n%s\nstderr:\n%s", g.server.Stdout(), g.server.Stderr())
		}
	})
	cfg := &config.Config{Transport: config.TransportROS2,
		ROS2: config.ROS2{Distro: string(p.Distro), DomainID: &domain, DiscoveryRange: config.DiscoverySubnet},
		Actuators: []config.ActuatorConfig{
			{Name: "arm", Kind: actuators.KindArm, Action: armAction, Joints: []string{"j1", "j2"}},
			// An arm whose controller never comes: its sends wait.
			{Name: "ghost", Kind: actuators.KindArm, Action: "/ghost_controller/follow_joint_trajectory",
				Joints: []string{"ghost_joint"}, GoalConnectTimeout: config.Duration(15 * time.Second)},
		}}
	r, err := Open(ctx, cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	g.robot = r
	for !r.Actuators()[0].Connected {
		select {
		case <-ctx.Done():
			t.Fatalf("the arm's server was never discovered: %+v", r.Actuators())
		case <-time.After(50 * time.Millisecond):
		}
	}
	if !r.Connected() || r.Actuators()[1].Connected {
		t.Fatalf("Connected %v, actuators %+v", r.Connected(), r.Actuators())
	}
	return g
}

// wire is the server's log of send_goal requests, a goal received twice
// listed twice, in the ids' terms (a UUID no id maps to as itself).
func (g *peerRig) wire(t *testing.T) []string {
	evs, err := ddspeers.JSONLines[ddspeers.ActionEvent](g.server.Stdout())
	if err != nil {
		t.Errorf("server log: %v", err)
	}
	var out []string
	for _, e := range evs {
		if e.Event == "goal" {
			out = append(out, g.ids.idOf(e.GoalID))
		}
	}
	return out
}

// naming is the robot with every id it is handed named for the log, and
// each goal first passed through vary when it is set.
type naming struct {
	*Robot
	ids  *idNames
	vary func(actuator string, g actuators.Goal) actuators.Goal
}

func (n naming) Send(ctx context.Context, actuator, id string, goal actuators.Goal) error {
	n.ids.name(id)
	if n.vary != nil {
		goal = n.vary(actuator, goal)
	}
	return n.Robot.Send(ctx, actuator, id, goal)
}

func (n naming) Track(actuator, id string) {
	n.ids.name(id)
	n.Robot.Track(actuator, id)
}

// The ROS 2 transport keeps the robot contract against each vendor's
// scripted joint_trajectory_controller stand-in: what reached the robot
// is the server's own log of goal UUIDs, and it exits on a UUID twice.
func TestROS2TransportPassesTheContractAgainstEachVendor(t *testing.T) {
	p := ddspeers.BuildNodes(t, msgs.Jazzy)
	for i, v := range vendorPeers(p.Cyclone, p.Fast, p.Fast3(t)) {
		t.Run(v.name, func(t *testing.T) {
			v.need(t)
			actuatorstest.TestRobot(t, func(t *testing.T) actuatorstest.Rig {
				// 15 feedback messages 0.1 s apart: a goal runs 1.5 s, long enough to cancel.
				g := startPeerRig(t, p, v.bin, 60+i, "--outcome", "succeed", "--feedback", "15", "--feedback-period", "0.1")
				return actuatorstest.Rig{Robot: naming{Robot: g.robot, ids: &g.ids}, Wire: func() []string { return g.wire(t) },
					Arm: "arm", Goal: armGoal(1.5), Held: "ghost",
					HeldGoal: actuators.Trajectory{Joints: []string{"ghost_joint"}, Points: []spline.Point{{Positions: []float64{0.1}, Time: 1}}},
					Timeout:  20 * time.Second}
			})
		})
	}
}

func armGoal(seconds float64) actuators.Trajectory {
	return actuators.Trajectory{Joints: []string{"j1", "j2"}, Points: []spline.Point{{Positions: []float64{0.2, -0.1}, Time: seconds}}}
}

// A new goal preempts the running one: Jazzy's controller ends it ABORTED
// (INVALID_GOAL), Humble's CANCELED; the planner sees canceled on both.
func TestPreemptedGoalEndsCanceledOnHumbleAndJazzy(t *testing.T) {
	for j, d := range []msgs.Distro{msgs.Jazzy, msgs.Humble} {
		p := ddspeers.BuildNodes(t, d)
		for i, v := range vendorPeers(p.Cyclone, p.Fast, p.Fast3(t)) {
			t.Run(fmt.Sprintf("%s/%s", d, v.name), func(t *testing.T) {
				v.need(t)
				g := startPeerRig(t, p, v.bin, 70+3*j+i, "--outcome", "hold")
				var u updates
				g.robot.SetObserver(u.push)
				ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
				defer cancel()
				first, second := uuid.NewString(), uuid.NewString()
				if err := g.robot.Send(ctx, "arm", first, armGoal(1)); err != nil {
					t.Fatal(err)
				}
				if err := g.robot.Send(ctx, "arm", second, armGoal(1)); err != nil {
					t.Fatal(err)
				}
				if end := u.end(t, first, 10*time.Second); end.State != actuators.GoalCanceled {
					t.Errorf("preempted goal ended %s (%s), want canceled", end.State, end.Text)
				}
				if err := g.robot.StopAll(ctx); err != nil {
					t.Fatal(err)
				}
				if end := u.end(t, second, 10*time.Second); end.State != actuators.GoalCanceled {
					t.Errorf("stopped goal ended %s (%s), want canceled", end.State, end.Text)
				}
				seen := map[string]int{}
				for _, id := range g.wire(t) {
					seen[id]++
				}
				if seen[first] != 1 || seen[second] != 1 || len(seen) != 2 {
					t.Errorf("server saw %v, want each goal once", seen)
				}
			})
		}
	}
}

// openAgain is a second robot on g's domain, as a restarted bridge.
func (g *peerRig) openAgain(t *testing.T) *Robot {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	r, err := Open(ctx, &g.robot.cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// A restarted bridge re-attaches to a running goal through the status and
// get_result and follows it to its end; one whose result the server has
// forgotten is lost. Neither is sent again: the server, which exits on a
// UUID twice, saw each once.
func TestRestartedBridgeReattachesWithoutResending(t *testing.T) {
	p := ddspeers.BuildNodes(t, msgs.Jazzy)
	for i, v := range vendorPeers(p.Cyclone, p.Fast, p.Fast3(t)) {
		t.Run(v.name, func(t *testing.T) {
			v.need(t)
			g := startPeerRig(t, p, v.bin, 80+i, "--outcome", "succeed", "--feedback", "10", "--feedback-period", "0.1", "--result-timeout", "1")
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			running, done := uuid.NewString(), uuid.NewString()
			var before updates
			g.robot.SetObserver(before.push)
			if err := g.robot.Send(ctx, "arm", done, armGoal(1)); err != nil {
				t.Fatal(err)
			}
			if end := before.end(t, done, 10*time.Second); end.State != actuators.GoalSucceeded {
				t.Fatalf("first goal ended %s", end.State)
			}
			if err := g.server.WaitStdout(ctx, `"forgotten","goal_id":"`+done); err != nil {
				t.Fatal(err)
			}
			if err := g.robot.Send(ctx, "arm", running, armGoal(1)); err != nil {
				t.Fatal(err)
			}
			g.robot.Close() // the bridge dies; the goal runs on

			again := g.openAgain(t)
			var after updates
			again.SetObserver(after.push)
			again.Track("arm", running)
			again.Track("arm", done)
			if end := after.end(t, running, 15*time.Second); end.State != actuators.GoalSucceeded {
				t.Errorf("re-attached goal ended %s (%s), want succeeded", end.State, end.Text)
			}
			if end := after.end(t, done, 15*time.Second); end.State != actuators.GoalLost {
				t.Errorf("forgotten goal: %s (%s), want lost", end.State, end.Text)
			}
			if err := again.Send(ctx, "arm", running, armGoal(1)); !errors.Is(err, actuators.ErrDuplicateGoal) {
				t.Errorf("Send of a tracked goal: %v, want ErrDuplicateGoal", err)
			}
			seen := map[string]int{}
			for _, id := range g.wire(t) {
				seen[id]++
			}
			if seen[running] != 1 || seen[done] != 1 {
				t.Errorf("server saw %v, want each goal once", seen)
			}
			if err := g.server.Wait(servicetest.Timeout(t, 200*time.Millisecond)); !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("server exited: %v: %s", err, g.server.Stderr())
			}
		})
	}
}

// A server that dies mid-goal (no goodbye: only its lease tells) leaves
// the goal lost, not failed and never resent. Each vendor's lease is cut
// to 2 s (Cyclone's from the environment, fastnode's by --lease) to keep
// the wait short.
func TestGoalOfAKilledServerIsLost(t *testing.T) {
	ns := netns.Require(t)
	p := ddspeers.BuildNodes(t, msgs.Jazzy)
	for i, v := range vendorPeers(p.Cyclone, p.Fast, p.Fast3(t)) {
		t.Run(v.name, func(t *testing.T) {
			v.need(t)
			domain := 95 + i
			env := []string{"CYCLONEDDS_URI=<Domain><Discovery><LeaseDuration>2 s</LeaseDuration></Discovery></Domain>"}
			args := []string{"action-server", "--action", armAction, "--preempt", "aborted", "--outcome", "hold", "--domain", strconv.Itoa(domain)}
			if v.fastDDS {
				env, args = nil, append(args, "--lease", "2")
			}
			server := ddspeers.StartPeerEnv(t, ns, v.bin, env, nil, args...)
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			if err := server.WaitStderr(ctx, "ready"); err != nil {
				t.Fatalf("%v: %s", err, server.Stderr())
			}
			d := domain
			r, err := Open(ctx, &config.Config{Transport: config.TransportROS2,
				ROS2:      config.ROS2{Distro: "jazzy", DomainID: &d, DiscoveryRange: config.DiscoverySubnet},
				Actuators: []config.ActuatorConfig{{Name: "arm", Kind: actuators.KindArm, Action: armAction, Joints: []string{"j1", "j2"}}}}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			var u updates
			r.SetObserver(u.push)
			id := uuid.NewString()
			if err := r.Send(ctx, "arm", id, armGoal(1)); err != nil {
				t.Fatal(err)
			}
			time.Sleep(300 * time.Millisecond) // executing
			server.Kill()
			if end := u.end(t, id, 10*time.Second); end.State != actuators.GoalLost {
				t.Errorf("goal of a killed server: %s (%s), want lost", end.State, end.Text)
			}
			if err := r.Send(ctx, "arm", id, armGoal(1)); !errors.Is(err, actuators.ErrDuplicateGoal) {
				t.Errorf("resend of a lost goal: %v, want ErrDuplicateGoal", err)
			}
		})
	}
}

// TestRefusedGoalsNeverReachTheServer: a goal the transport refuses (a
// joint not the arm's, a last point that moves, a gripper command to an
// arm, an unknown actuator) is refused before anything is sent: each
// vendor's server logs only the one valid goal sent after them.
func TestRefusedGoalsNeverReachTheServer(t *testing.T) {
	p := ddspeers.BuildNodes(t, msgs.Jazzy)
	for i, v := range vendorPeers(p.Cyclone, p.Fast, p.Fast3(t)) {
		t.Run(v.name, func(t *testing.T) {
			v.need(t)
			g := startPeerRig(t, p, v.bin, 90+i, "--outcome", "succeed")
			ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
			defer cancel()
			moving := armGoal(1)
			moving.Points[0].Velocities = []float64{0.1, 0}
			for _, c := range []struct {
				name, actuator string
				goal           actuators.Goal
				err            error
			}{
				{"joint of another arm", "arm", actuators.Trajectory{Joints: []string{"ghost_joint"}, Points: []spline.Point{{Positions: []float64{0.1}, Time: 1}}}, actuators.ErrInvalidArgument},
				{"last point moving", "arm", moving, actuators.ErrInvalidArgument},
				{"gripper command to an arm", "arm", actuators.GripperCommand{Position: 0.01, MaxEffort: 1}, actuators.ErrInvalidArgument},
				{"unknown actuator", "left_arm", armGoal(1), actuators.ErrUnknownActuator},
			} {
				if err := g.robot.Send(ctx, c.actuator, uuid.NewString(), c.goal); !errors.Is(err, c.err) {
					t.Errorf("%s: %v, want %v", c.name, err, c.err)
				}
			}
			valid := uuid.NewString()
			if err := g.robot.Send(ctx, "arm", valid, armGoal(0.5)); err != nil {
				t.Fatal(err)
			}
			// The server's log line may trail its accept reply.
			for len(g.wire(t)) == 0 && ctx.Err() == nil {
				time.Sleep(20 * time.Millisecond)
			}
			time.Sleep(200 * time.Millisecond)
			if got := g.wire(t); len(got) != 1 || got[0] != valid {
				t.Fatalf("server saw %v, want only %s", got, valid)
			}
		})
	}
}
