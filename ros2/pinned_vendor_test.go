package ros2

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/config"
	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/test/ddspeers"
	"github.com/actbridge/actbridge/test/netns"
)

// goalsSeen is how many goals a peer action server logged.
func goalsSeen(t *testing.T, p *ddspeers.Proc) int {
	t.Helper()
	evs, err := ddspeers.JSONLines[ddspeers.ActionEvent](p.Stdout())
	if err != nil {
		t.Errorf("server log: %v", err)
	}
	n := 0
	for _, e := range evs {
		if e.Event == "goal" {
			n++
		}
	}
	return n
}

// A CycloneDDS and a Fast DDS joint_trajectory_controller stand-in serve
// one action name (two robots on one domain, without namespaces on the
// action): a goal naming neither is refused, naming both nodes and
// participants, and neither peer logs a goal; a robot whose config names
// one node sends to that peer alone, each vendor in turn, and the other
// never sees it (its reader got a GAP).
func TestTwoVendorServersOnOneActionRefuseUnpinnedGoalsAndServeThePinnedOne(t *testing.T) {
	p := ddspeers.BuildNodes(t, msgs.Jazzy)
	ns := netns.Require(t)
	const domain = 156
	servers := map[string]*ddspeers.Proc{}
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	for _, v := range []struct{ ns, bin string }{{"/r1", p.Cyclone}, {"/r2", p.Fast}} {
		s := p.StartActionServer(t, ns, v.bin, armAction, "--domain", strconv.Itoa(domain), "--node", "joint_trajectory_controller", "--namespace", v.ns)
		if err := s.WaitStderr(ctx, "ready"); err != nil {
			t.Fatalf("%v: %s", err, s.Stderr())
		}
		servers[v.ns] = s
	}
	open := func(node string) (*Robot, *updates) {
		r := openRobot(t, &config.Config{Transport: config.TransportROS2,
			ROS2: config.ROS2{Distro: string(msgs.Jazzy), DomainID: ptr(domain), DiscoveryRange: config.DiscoverySubnet},
			Actuators: []config.ActuatorConfig{{Name: "arm", Kind: actuators.KindArm, Action: armAction, Joints: []string{"j1", "j2"},
				ServerNode: node, GoalConnectTimeout: config.Duration(10 * time.Second)}}})
		h := &updates{}
		r.SetObserver(h.push)
		waitServers(t, r, 2)
		return r, h
	}
	r, _ := open("")
	st := r.Actuators()[0]
	for _, want := range []string{"/r1/joint_trajectory_controller", "/r2/joint_trajectory_controller"} {
		if !strings.Contains(st.Ambiguous, want) {
			t.Fatalf("the arm's status %q does not name %s", st.Ambiguous, want)
		}
	}
	if err := r.Send(t.Context(), "arm", newUUID(), armGoal(0.5)); !errors.Is(err, actuators.ErrAmbiguousServer) {
		t.Fatalf("send with two servers: %v, want ErrAmbiguousServer", err)
	}
	for _, pin := range []string{"/r2", "/r1"} {
		pr, h := open(pin + "/joint_trajectory_controller")
		id := newUUID()
		if err := pr.Send(t.Context(), "arm", id, armGoal(0.5)); err != nil {
			t.Fatalf("send pinned to %s: %v", pin, err)
		}
		if u := h.end(t, id, 20*time.Second); u.State != actuators.GoalSucceeded {
			t.Fatalf("the goal pinned to %s ended %+v", pin, u)
		}
	}
	time.Sleep(300 * time.Millisecond) // a goal to the other would have been logged by now
	for name, s := range servers {
		if n := goalsSeen(t, s); n != 1 {
			t.Fatalf("the server in %s logged %d goals, want 1 (its own pinned one)\n%s", name, n, s.Stdout())
		}
	}
}

func ptr[T any](v T) *T { return &v }
