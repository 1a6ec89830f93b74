package rtps

import (
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/actbridge/actbridge/rtps/wire"
	"github.com/actbridge/actbridge/test/netns"
)

// TestHostMulticastFindsEveryCycloneParticipantInItsDefault is issue 33's
// case: CycloneDDS participants in Cyclone's default configuration (what
// rmw_cyclonedds keeps under ROS 2's SUBNET range: multicast, no
// participant index) each hear unicast discovery on a port of their own
// and share the SPDP port, so unicast to 127.0.0.1 reaches one of them.
// A localhost participant with HostMulticast finds all of them, and all
// of them find it, whether Cyclone listens on loopback (a namespace with
// only lo) or on a non-loopback interface (a veth in the namespace, which
// Cyclone prefers), and nothing of ours is sent off loopback but TTL 0.
func TestHostMulticastFindsEveryCycloneParticipantInItsDefault(t *testing.T) {
	netns.Require(t)
	for i, c := range []struct {
		name string
		veth bool
	}{{"cyclone on lo", false}, {"cyclone on a veth", true}} {
		t.Run(c.name, func(t *testing.T) {
			domain := 20 + i
			if c.veth {
				netns.Veth(t, netip.MustParseAddr("10.231.8.1"), netip.MustParseAddr("10.231.8.2"))
			}
			const n = 3
			var traces []string
			for range n {
				_, trace := startDDSPerf(t, domain, "", 60, "sub")
				traces = append(traces, trace)
			}
			p := newParticipant(t, Config{Domain: domain, HostMulticast: true})
			got := waitFor(t, p, 15*time.Second, "ours learns every Cyclone participant", func(ds []ParticipantData) bool {
				k := 0
				for _, d := range ds {
					if d.Vendor == wire.VendorCyclone {
						k++
					}
				}
				return k == n
			})
			if c.veth {
				for _, d := range got {
					if l := d.MetatrafficUnicast; len(l) == 0 || strings.HasPrefix(l[0].String(), "127.") {
						t.Errorf("Cyclone announced %v: it was meant to listen on the veth", l)
					}
				}
			}
			for i, trace := range traces {
				line := waitTrace(t, trace, p.GUID().Prefix, 10*time.Second, "SPDP", "NEW")
				t.Logf("Cyclone %d learned ours: %s", i, line)
			}
			for _, l := range p.Data().MetatrafficUnicast {
				if ap, _ := l.AddrPort(); !ap.Addr().IsLoopback() {
					t.Errorf("ours announces %v, off loopback", l)
				}
			}
			if slices.ContainsFunc(p.Data().MetatrafficMulticast, func(wire.Locator) bool { return true }) {
				t.Errorf("ours announces multicast %v", p.Data().MetatrafficMulticast)
			}
		})
	}
}
