package ros2interop

import (
	"context"
	"fmt"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/ros2/graph"
	"github.com/actbridge/actbridge/ros2/node"
	"github.com/actbridge/actbridge/rtps/wire"
	"github.com/actbridge/actbridge/test/ddspeers"
	"github.com/actbridge/actbridge/test/netns"
)

// TestCLITopicsInLocalhostRangeListsEveryCycloneNode is issue 33's case:
// three CycloneDDS nodes in Cyclone's default configuration (what
// rmw_cyclonedds runs under rcl's default SUBNET range: multicast, no
// participant index), and `actbridge ros2 topics` in its default range
// (LOCALHOST) lists the topics of all three, not of the one that unicast
// SPDP to 127.0.0.1:7400 reached. The nodes listen on the namespace's
// loopback, or on a veth in it, as on a robot's computer whose Cyclone
// picks its Ethernet interface.
func TestCLITopicsInLocalhostRangeListsEveryCycloneNode(t *testing.T) {
	ns := netns.Require(t)
	bin := ddspeers.BuildNodes(t, msgs.Jazzy).Cyclone
	for i, c := range []struct {
		name string
		veth bool
	}{{"nodes on lo", false}, {"nodes on a veth", true}} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
			defer cancel()
			domain := 200 + i
			if c.veth {
				netns.Veth(t, netip.MustParseAddr("10.231.10.1"), netip.MustParseAddr("10.231.10.2"))
			}
			var want []string
			for k := range 3 {
				topic := fmt.Sprintf("chatter%d", k)
				ddspeers.StartAnnouncer(t, ns, bin, fmt.Sprintf("talker%d", k), 16, "--pub", "rt/"+topic, "--typehash", "--domain", fmt.Sprint(domain))
				want = append(want, fmt.Sprintf("/%s [std_msgs/msg/String]\n  publisher  /talker%d (%s)\n", topic, k, graph.VendorName(wire.VendorCyclone)))
			}
			out, errOut, err := actbridge(ctx, t, domain, node.Localhost, "topics", "--timeout", "20s")
			if err != nil {
				t.Fatalf("topics: %v: %s\nstdout:\n%s", err, errOut, out)
			}
			for _, w := range want {
				if !strings.Contains(out, w) {
					t.Errorf("topics lack\n%s\nstdout:\n%s", w, out)
				}
			}
		})
	}
}
