package ros2

import (
	"context"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/config"
	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/ros2/node"
	"github.com/actbridge/actbridge/rtps/wire"
	"github.com/actbridge/actbridge/test/netns"
	"github.com/actbridge/actbridge/test/udprelay"
)

// cutLink is a robot with an arm whose server it discovers through a
// relay alone (the relay's loopback alias as its one static peer,
// discovery range off), so that the relay can cut the robot's user traffic
// to the server while discovery passes.
type cutLink struct {
	relay *udprelay.Relay
	r     *Robot
	h     *updates
}

// cutAlias is the loopback address the robot and the servers discover:
// the relay's alone.
var cutAlias = netip.MustParseAddr("127.0.0.2")

// openCutLink opens the robot on domain, behind relay, and waits until it
// knows the arm's server, at the relay's proxies alone.
func openCutLink(t *testing.T, relay *udprelay.Relay, domain int) *cutLink {
	t.Helper()
	r := openRobot(t, &config.Config{Transport: config.TransportROS2,
		ROS2: config.ROS2{Distro: string(msgs.Jazzy), DomainID: ptr(domain), DiscoveryRange: config.DiscoveryOff, StaticPeers: []string{cutAlias.String()}},
		Actuators: []config.ActuatorConfig{{Name: "arm", Kind: actuators.KindArm, Action: armAction, Joints: simArmJoints,
			GoalConnectTimeout: config.Duration(time.Second)}}})
	h := &updates{}
	r.SetObserver(h.push)
	waitServers(t, r, 1)
	for _, d := range r.rctx.Participant().Participants() {
		for _, l := range append(append([]wire.Locator{}, d.MetatrafficUnicast...), d.DefaultUnicast...) {
			if ap, ok := l.AddrPort(); !ok || !relay.IsProxy(ap) {
				t.Fatalf("the robot knows the server at %v, not through the relay", l)
			}
		}
	}
	return &cutLink{relay: relay, r: r, h: h}
}

// newCutLink is a cut link to this library's arm server (block as in
// newArmServer), both participants discovering the relay alone.
func newCutLink(t *testing.T, domain int, block chan struct{}) (*cutLink, *armServer) {
	t.Helper()
	relay := udprelay.New(t, 0, 1)
	relay.Alias(cutAlias, domain, 4)
	srv := newArmServerOn(t, node.Discovery{Domain: domain, Range: node.Off, StaticPeers: []string{cutAlias.String()}}, "joint_trajectory_controller", "", block)
	if block != nil {
		srv.runs = 2 * time.Second // long enough to be canceled, short enough to fail soon without the cancel
	}
	return openCutLink(t, relay, domain), srv
}

// sendCutOff sends a goal with the robot's user traffic cut (robot_stop
// then, while cut), heals the link, retries robot_stop until the server
// answers it, and sends a second goal, which succeeds: the two goals' ids.
// The server's request reader delivers in order, so the first request, had
// it been left to arrive, would have reached the server before the second.
func (c *cutLink) sendCutOff(t *testing.T) (cut, after string) {
	t.Helper()
	ours := c.r.rctx.Participant().GUID().Prefix
	c.relay.Cut(ours)
	id := newUUID()
	if err := c.r.Send(t.Context(), "arm", id, simArmGoal(0.2)); err != nil {
		t.Fatalf("a send cut off: %v, want nil (followed)", err)
	}
	c.stopWhileCut(t)
	if _, _, _, cut := c.relay.Counts(); cut == 0 {
		t.Fatal("the relay cut nothing")
	}
	c.relay.Heal(ours)
	c.stopAfterHeal(t)
	after = newUUID()
	if err := c.r.Send(t.Context(), "arm", after, simArmGoal(0.2)); err != nil {
		t.Fatalf("a send after the link healed: %v", err)
	}
	if u := c.h.end(t, after, 20*time.Second); u.State != actuators.GoalSucceeded {
		t.Fatalf("the goal sent after the link healed ended %+v, want succeeded", u)
	}
	return id, after
}

// stopWhileCut is robot_stop while the link is cut: its cancels go
// unanswered, and its error says so.
func (c *cutLink) stopWhileCut(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	if err := c.r.StopAll(ctx); err == nil || !strings.Contains(err.Error(), "cancel unanswered") {
		t.Fatalf("StopAll while the link is cut: %v, want a cancel unanswered", err)
	}
}

// stopAfterHeal is robot_stop retried after the link healed until the
// server answers every cancel (StopAll's error empty), within 10 s.
func (c *cutLink) stopAfterHeal(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		err := c.r.StopAll(ctx)
		cancel()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("StopAll after the link healed: %v", err)
		}
	}
}

// neverLost fails if goal id was ever reported lost (outcome unknown) or
// ended otherwise than want ("": not ended).
func (c *cutLink) neverLost(t *testing.T, id string, want actuators.GoalState) {
	t.Helper()
	for _, u := range c.h.of(id) {
		if u.State == actuators.GoalLost || u.State.Terminal() && u.State != want {
			t.Fatalf("the goal was reported %+v; updates: %+v", u, c.h.of(id))
		}
	}
}

// The robot's user traffic to its arm's server is cut (a relay drops it,
// discovery passes) for longer than goal_connect_timeout; the goal is
// sent, robot_stop comes while the link is cut, then the link heals.
//
// Cut before the request reached the server: Send gives up and follows
// the goal; the request, withdrawn, never reaches the server when the link
// heals (its send_goal handler never sees the goal: "never executes"),
// the goal is never reported lost while followed, and robot_stop is
// answered by the server once the link is back.
//
// Cut after the server's reader took the request, while the server's
// decision waits: the goal is followed; robot_stop's cancel by UUID is
// cut off, so the goal stays on sight, and when the server accepts it
// after the link healed it is canceled at once ("never executes": its
// execution never runs to its end), the cancel is acknowledged (the goal
// ends canceled), never lost.
func TestGoalCutOffFromItsServerPastTheSendTimeoutNeverRunsAndItsStopIsAcknowledged(t *testing.T) {
	netns.Require(t)
	t.Run("cut before the request reached the server", func(t *testing.T) {
		c, srv := newCutLink(t, 158, nil)
		id, _ := c.sendCutOff(t)
		if n := srv.seen.Load(); n != 1 {
			t.Fatalf("the server got %d goals, want 1 (the one sent after the link healed, not the one cut off)", n)
		}
		c.neverLost(t, id, "")
	})
	t.Run("cut while the server decides", func(t *testing.T) {
		release := make(chan struct{})
		releaseOnce := sync.OnceFunc(func() { close(release) })
		c, srv := newCutLink(t, 159, release)
		t.Cleanup(releaseOnce) // before the server closes
		ours := c.r.rctx.Participant().GUID().Prefix
		id := newUUID()
		sent := make(chan error, 1)
		go func() { sent <- c.r.Send(t.Context(), "arm", id, simArmGoal(0.2)) }()
		select {
		case <-srv.goal: // the server has the request, its decision held
		case err := <-sent:
			t.Fatalf("Send returned %v before the server had the goal", err)
		}
		c.relay.Cut(ours)
		if err := <-sent; err != nil {
			t.Fatalf("an unanswered send: %v, want nil (followed)", err)
		}
		c.stopWhileCut(t)
		c.relay.Heal(ours)
		releaseOnce() // the goal reaches the server's executor now
		if u := c.h.end(t, id, 10*time.Second); u.State != actuators.GoalCanceled {
			t.Fatalf("the late goal ended %+v, want canceled on sight; updates: %+v", u, c.h.of(id))
		}
		c.neverLost(t, id, actuators.GoalCanceled)
		if n := srv.finished.Load(); n != 0 {
			t.Fatalf("the server ran %d goals to their end, want none", n)
		}
	})
}

// The first case of
// TestGoalCutOffFromItsServerPastTheSendTimeoutNeverRunsAndItsStopIsAcknowledged
// against `simrobot --ros 2` (discovering the relay alone): its goal log
// (/simrobot/goals) never lists the goal, which is never reported lost,
// and robot_stop is answered once the link is back.
func TestGoalCutOffFromTheSimPastTheSendTimeoutNeverReachesIt(t *testing.T) {
	const domain = 162
	relay := udprelay.New(t, 0, 1)
	relay.Alias(cutAlias, domain, 4)
	sim := startSimEnv(t, msgs.Jazzy, domain, "ROS_AUTOMATIC_DISCOVERY_RANGE=OFF", "ROS_STATIC_PEERS="+cutAlias.String())
	c := openCutLink(t, relay, domain)
	id, after := c.sendCutOff(t)
	set, err := msgs.Load(msgs.Jazzy)
	if err != nil {
		t.Fatal(err)
	}
	rig := &missionRig{sim: sim, robot: c.r, set: set}
	log := rig.goalLog(t.Context(), t)
	if n := onWire(log, "arm", id); n != 0 {
		t.Fatalf("the sim got the goal cut off %d times, want never", n)
	}
	if n := onWire(log, "arm", after); n != 1 {
		t.Fatalf("the sim got the goal sent after the link healed %d times, want once", n)
	}
	c.neverLost(t, id, "")
}
