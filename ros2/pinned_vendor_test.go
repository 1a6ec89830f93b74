package ros2

import (
	"context"
	"errors"
	"fmt"
	"slices"
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

// A CycloneDDS, a Fast DDS 2.9 and a 3.1 joint_trajectory_controller
// stand-in serve one action name (three robots on one domain, without
// namespaces on the action): a goal naming none is refused, naming every
// node and participant, and no peer logs a goal; a robot whose config
// names one node sends to that peer alone, each vendor in turn, and the
// others never see it (their readers got a GAP).
func TestTwoVendorServersOnOneActionRefuseUnpinnedGoalsAndServeThePinnedOne(t *testing.T) {
	p := ddspeers.BuildNodes(t, msgs.Jazzy)
	ns := netns.Require(t)
	const domain = 156
	servers := map[string]*ddspeers.Proc{}
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	var nodes []string // each server's node, one robot namespace per vendor
	for i, v := range vendorPeers(p.Cyclone, p.Fast, p.Fast3(t)) {
		if v.bin == "" {
			t.Log(ddspeers.MissingFast3)
			continue
		}
		robotNS := fmt.Sprintf("/r%d", i+1)
		s := p.StartActionServer(t, ns, v.bin, armAction, "--domain", strconv.Itoa(domain), "--node", "joint_trajectory_controller", "--namespace", robotNS)
		if err := s.WaitStderr(ctx, "ready"); err != nil {
			t.Fatalf("%v: %s", err, s.Stderr())
		}
		servers[robotNS] = s
		nodes = append(nodes, robotNS+"/joint_trajectory_controller")
	}
	open := func(node string) (*Robot, *updates) {
		r := openRobot(t, &config.Config{Transport: config.TransportROS2,
			ROS2: config.ROS2{Distro: string(msgs.Jazzy), DomainID: ptr(domain), DiscoveryRange: config.DiscoverySubnet},
			Actuators: []config.ActuatorConfig{{Name: "arm", Kind: actuators.KindArm, Action: armAction, Joints: []string{"j1", "j2"},
				ServerNode: node, GoalConnectTimeout: config.Duration(10 * time.Second)}}})
		h := &updates{}
		r.SetObserver(h.push)
		waitServers(t, r, len(nodes))
		return r, h
	}
	r, _ := open("")
	st := r.Actuators()[0]
	for _, want := range nodes {
		if !strings.Contains(st.Ambiguous, want) {
			t.Fatalf("the arm's status %q does not name %s", st.Ambiguous, want)
		}
	}
	if err := r.Send(t.Context(), "arm", newUUID(), armGoal(0.5)); !errors.Is(err, actuators.ErrAmbiguousServer) {
		t.Fatalf("send with %d servers: %v, want ErrAmbiguousServer", len(nodes), err)
	}
	for _, pin := range slices.Backward(nodes) {
		pr, h := open(pin)
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
