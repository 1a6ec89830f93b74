package ros2rpc

import (
	"context"
	"errors"
	"net/netip"
	"slices"
	"strconv"
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
			in, err := inspect.Open(ctx, inspect.Options{Timeout: 20 * time.Second, Node: node.Options{Distro: msgs.Jazzy,
				Discovery: node.Discovery{Domain: domain, Range: node.Subnet, Interface: netip.MustParseAddr("127.0.0.1")}}})
			if err != nil {
				t.Fatal(err)
			}
			defer in.Close()
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
