package ros2rpc

import (
	"context"
	"errors"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/ros2/graph"
	"github.com/actbridge/actbridge/ros2/inspect"
	"github.com/actbridge/actbridge/ros2/node"
	"github.com/actbridge/actbridge/ros2/param"
	"github.com/actbridge/actbridge/ros2/service/servicetest"
	"github.com/actbridge/actbridge/test/ddspeers"
)

// openInspector joins domain as the peers discover: multicast on the
// namespace's loopback.
func openInspector(ctx context.Context, t *testing.T, domain int) *inspect.Inspector {
	t.Helper()
	in, err := inspect.Open(ctx, inspect.Options{Timeout: 20 * time.Second, Node: node.Options{Distro: msgs.Jazzy,
		Discovery: node.Discovery{Domain: domain, Range: node.Subnet, Interface: netip.MustParseAddr("127.0.0.1")}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close() })
	return in
}

// TestInspectorReadsEachVendorsNodeParameters: the inspector behind
// `actbridge ros2 params` finds a CycloneDDS and a Fast DDS node by the
// name it announces, lists its parameters and reads one in the vendor's
// dialect, and says which parameter the node lacks; a node nobody
// announced is ErrNotFound, and the node's parameter services are listed
// as ros2 service list lists them (not hidden).
func TestInspectorReadsEachVendorsNodeParameters(t *testing.T) {
	ns, _, vendors := setup(t)
	for i, v := range vendors {
		t.Run(v.name, func(t *testing.T) {
			domain := 170 + i
			ctx := servicetest.Timeout(t, 60*time.Second)
			srv := ddspeers.StartParamServer(t, ns, v.bin, "controller", []string{"speed=double:0.5", "frame=string:base"},
				"--namespace", "/arm", "--domain", strconv.Itoa(domain))
			if err := srv.WaitStderr(ctx, "ready"); err != nil {
				t.Fatalf("%v: %s", err, srv.Stderr())
			}
			in := openInspector(ctx, t, domain)
			names, err := in.Params(ctx, "/arm/controller")
			if err != nil || !slices.Contains(names, "speed") || !slices.Contains(names, "frame") || !slices.IsSorted(names) {
				t.Fatalf("params: %v %v", names, err)
			}
			if v, err := in.Param(ctx, "arm/controller", "speed"); err != nil || v.V != 0.5 {
				t.Fatalf("speed: %v %v", v, err)
			}
			if _, err := in.Param(ctx, "/arm/controller", "nope"); !errors.Is(err, param.ErrNotDeclared) {
				t.Fatalf("a parameter the node lacks: %v", err)
			}
			short, cancel := context.WithTimeout(ctx, time.Second)
			defer cancel()
			if _, err := in.Params(short, "/arm/nobody"); !errors.Is(err, inspect.ErrNotFound) {
				t.Fatalf("a node nobody announced: %v", err)
			}
			services, err := in.Services(ctx, inspect.HideHidden)
			if err != nil || !slices.ContainsFunc(services, func(s graph.Service) bool { return s.Name == "/arm/controller/get_parameters" }) {
				t.Fatalf("services: %v %v", services, err)
			}
			if line, ok := srv.Malformed(); ok {
				t.Fatalf("server refused our frame: %s", line)
			}
		})
	}
}

// TestInspectorListsEachVendorsActionAndHidesItsServices: a CycloneDDS
// and a Fast DDS action server, as rclcpp_action makes one, is an action
// of the inspector's Actions (type and server of the vendor), and its
// five entities' services are hidden from Services unless asked, as ros2
// action list and ros2 service list show them.
func TestInspectorListsEachVendorsActionAndHidesItsServices(t *testing.T) {
	ns, _, _ := setup(t)
	p := ddspeers.BuildNodes(t, msgs.Jazzy)
	for i, v := range actionServers(t, p) {
		t.Run(v.name, func(t *testing.T) {
			ddspeers.SkipMissing(t, v.bin)
			domain := 174 + i
			ctx := servicetest.Timeout(t, 60*time.Second)
			srv := p.StartActionServer(t, ns, v.bin, actionName, "--outcome", "hold", "--domain", strconv.Itoa(domain))
			if err := srv.WaitStderr(ctx, "ready"); err != nil {
				t.Fatalf("%v: %s", err, srv.Stderr())
			}
			in := openInspector(ctx, t, domain)
			actions, err := in.Actions(ctx)
			if err != nil || len(actions) != 1 || actions[0].Name != actionName || !slices.Equal(actions[0].Types, []string{"control_msgs/action/FollowJointTrajectory"}) ||
				len(actions[0].Servers) != 1 || actions[0].Servers[0].Vendor != v.id {
				t.Fatalf("actions: %+v %v", actions, err)
			}
			hidden := func(s graph.Service) bool { return strings.Contains(s.Name, "/_action/") }
			if all, err := in.Services(ctx, inspect.IncludeHidden); err != nil || !slices.ContainsFunc(all, func(s graph.Service) bool { return s.Name == actionName+"/_action/send_goal" }) {
				t.Fatalf("services with hidden ones: %v %v", all, err)
			}
			// The peer serves nothing else: Services would wait for a visible one, so the settled graph is filtered as it filters.
			if shown := inspect.VisibleServices(in.Context().Graph(), inspect.HideHidden); slices.ContainsFunc(shown, hidden) {
				t.Fatalf("hidden services listed: %v", shown)
			}
		})
	}
}
