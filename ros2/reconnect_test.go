package ros2

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/config"
	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/ros2/graph"
	"github.com/actbridge/actbridge/ros2/node"
	"github.com/actbridge/actbridge/rtps/wire"
)

// reconnectBound is how long a send may wait for a sim restarted on the
// same domain: the dead sim's lease (rtps' default, 20 s, which the sim
// announces) and a margin for discovery.
const reconnectBound = 20*time.Second + 8*time.Second

// holdIndex opens a localhost participant on domain, taking the lowest
// free participant index (as any other process on the robot does), closed
// with the test.
func holdIndex(t *testing.T, domain int) int {
	t.Helper()
	c, err := node.NewContext(t.Context(), node.Options{Distro: msgs.Jazzy, Discovery: node.Discovery{Domain: domain, Range: node.Localhost}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c.Participant().Index()
}

// openArm opens a robot with the sim's arm on domain, its sends waiting
// up to reconnectBound for a server, every update recorded.
func openArm(t *testing.T, d msgs.Distro, domain int) (*Robot, *updates) {
	r, h, _ := openArmSet(t, d, domain)
	return r, h
}

// openArmSet is openArm that also gives the distro's message set.
func openArmSet(t *testing.T, d msgs.Distro, domain int) (*Robot, *updates, *msgs.Set) {
	t.Helper()
	r, set := openOnSim(t, d, domain, []config.ActuatorConfig{
		{Name: "arm", Kind: actuators.KindArm, Action: armAction, Joints: simArmJoints,
			GoalConnectTimeout: config.Duration(reconnectBound)},
	})
	h := &updates{}
	r.SetObserver(h.push)
	return r, h, set
}

// newServer waits until r's graph lists a server of the arm's send_goal on
// a participant not in seen (a sim started since), adds it to seen and
// returns it. Until then a goal goes to the dead sim alone, whose lease
// still runs, and ends lost (TestGoalSentDuringTheDeadSimsLeaseEndsWithinIt):
// "serving" in the new sim's output says nothing of when the bridge
// discovers it.
func newServer(t *testing.T, r *Robot, seen map[wire.GUIDPrefix]bool) wire.GUIDPrefix {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), reconnectBound)
	defer cancel()
	var found wire.GUIDPrefix
	g, err := r.rctx.WaitGraph(ctx, func(g graph.Graph) bool {
		for _, s := range g.Services {
			if s.Name != r.acts["arm"].lanes[0].sendGoal {
				continue
			}
			for _, e := range s.Servers {
				if !seen[e.GUID.Prefix] {
					found = e.GUID.Prefix
					return true
				}
			}
		}
		return false
	})
	if err != nil {
		t.Fatalf("no new server of the arm's send_goal: %v; graph's services: %+v", err, g.Services)
	}
	seen[found] = true
	return found
}

// soleServer waits until r's graph lists one participant serving the
// arm's send_goal: a dead sim's lease has ended.
func soleServer(t *testing.T, r *Robot) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), reconnectBound)
	defer cancel()
	if _, err := r.rctx.WaitGraph(ctx, func(g graph.Graph) bool { return len(serversOf(g, r.acts["arm"].lanes[0].sendGoal)) == 1 }); err != nil {
		t.Fatalf("the dead sim's server never left the graph: %v", err)
	}
}

// A sim SIGKILLed and started again on the same domain is discovered by
// the bridge that stayed up, even when other participants took the low
// participant indices meanwhile (the sim and the bridge then both sit
// past the first few indices). While the dead sim's lease runs the graph
// lists two servers of the arm's action: a goal is refused
// (ErrAmbiguousServer, naming both) and reaches neither; once the dead
// one's lease ended, a goal reaches the new sim once and ends succeeded.
func TestSendReachesASimRestartedOnTheSameDomain(t *testing.T) {
	for _, c := range []struct {
		name string
		// before is how many other participants take indices before the
		// first sim; between, how many while a sim is down.
		before, between int
	}{
		{"alone", 0, 0},
		{"others took the dead sim's index", 3, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			const domain = 150
			d := msgs.Jazzy
			for range c.before {
				holdIndex(t, domain)
			}
			sim := startSim(t, d, domain)
			r, h, set := openArmSet(t, d, domain)
			rig := &missionRig{robot: r, set: set} // for its goal log
			seen := map[wire.GUIDPrefix]bool{}
			const rounds = 2
			for round := range rounds {
				start := time.Now()
				server := newServer(t, r, seen)
				t.Logf("round %d: the bridge lists the sim's server %v after %v", round, server, time.Since(start))
				if round > 0 {
					refused := newUUID()
					err := r.Send(t.Context(), "arm", refused, simArmGoal(0.2))
					if !errors.Is(err, actuators.ErrAmbiguousServer) || !strings.Contains(err.Error(), fmt.Sprintf("%x", server[:])) {
						t.Fatalf("round %d: a send while the dead sim is listed: %v, want ErrAmbiguousServer naming %x", round, err, server[:])
					}
					soleServer(t, r)
					if n := onWire(rig.goalLog(t.Context(), t), "arm", refused); n != 0 {
						t.Fatalf("round %d: the refused goal reached the sim %d times", round, n)
					}
				}
				id := newUUID()
				start = time.Now()
				if err := r.Send(t.Context(), "arm", id, simArmGoal(0.2)); err != nil {
					t.Fatalf("round %d: send after %v: %v\nsim:\n%s", round, time.Since(start), err, sim.Output())
				}
				if u := h.end(t, id, 200*time.Millisecond+reconnectBound); u.State != actuators.GoalSucceeded {
					t.Fatalf("round %d: goal ended %+v", round, u)
				}
				if n := onWire(rig.goalLog(t.Context(), t), "arm", id); n != 1 {
					t.Fatalf("round %d: the live sim received the goal %d times, want once", round, n)
				}
				if round == rounds-1 {
					break
				}
				sim.Kill()
				for range c.between {
					t.Logf("another participant at index %d", holdIndex(t, domain))
				}
				sim = startSim(t, d, domain)
			}
		})
	}
}

// A goal sent right after the sim crashed, before its lease ended and
// before the new sim is up, goes to the dead server only (it is all that
// is known, and looks ready): it is never resent, and ends within the
// dead sim's lease and a margin, lost (outcome unknown) unless the new
// sim got it; the next goal reaches the new sim. This is the window a
// crash leaves: the bridge cannot tell a crashed server from a live one
// until its lease ends (20 s for our sim).
func TestGoalSentDuringTheDeadSimsLeaseEndsWithinIt(t *testing.T) {
	const domain = 151
	d := msgs.Jazzy
	sim := startSim(t, d, domain)
	r, h := openArm(t, d, domain)
	if err := r.Send(t.Context(), "arm", newUUID(), simArmGoal(0.2)); err != nil {
		t.Fatal(err)
	}
	sim.Kill()
	id, start := newUUID(), time.Now()
	sent := make(chan error, 1)
	go func() { sent <- r.Send(t.Context(), "arm", id, simArmGoal(0.2)) }()
	time.Sleep(time.Second)
	startSim(t, d, domain)
	err := <-sent
	t.Logf("send during the dead lease: %v after %v", err, time.Since(start))
	u := h.end(t, id, reconnectBound-time.Since(start))
	t.Logf("it ended %s (%s) after %v", u.State, u.Text, time.Since(start))
	soleServer(t, r)
	next := newUUID()
	if err := r.Send(t.Context(), "arm", next, simArmGoal(0.2)); err != nil {
		t.Fatalf("send after the dead lease: %v", err)
	}
	if u := h.end(t, next, reconnectBound); u.State != actuators.GoalSucceeded {
		t.Fatalf("the next goal ended %+v", u)
	}
}
