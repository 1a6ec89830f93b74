package rtps

import (
	"context"
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
// Cyclone prefers), and nothing of ours is sent off loopback but TTL 0;
// ours keeps them past their leases.
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
			const n, cycloneLease = 3, 2 * time.Second
			var traces []string
			for range n {
				// Only the lease differs from Cyclone's default (10 s).
				_, trace := startDDSPerf(t, domain, "<Discovery><LeaseDuration>2 s</LeaseDuration></Discovery>", 60, "sub")
				traces = append(traces, trace)
			}
			p := newParticipant(t, Config{Domain: domain, HostMulticast: true})
			got := waitFor(t, p, 15*time.Second, "ours learns every Cyclone participant", func(ds []ParticipantData) bool { return cyclones(ds) == n })
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
			// Their leases renew: none is dropped over three of them.
			ctx, cancel := context.WithTimeout(t.Context(), 3*cycloneLease)
			defer cancel()
			if got, err := p.WaitParticipants(ctx, func(ds []ParticipantData) bool { return cyclones(ds) < n }); err == nil {
				t.Fatalf("ours dropped a Cyclone participant within three of its %v leases: %d left", cycloneLease, cyclones(got))
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

func cyclones(ds []ParticipantData) int {
	k := 0
	for _, d := range ds {
		if d.Vendor == wire.VendorCyclone {
			k++
		}
	}
	return k
}

// TestHostMulticastHearsACycloneThatStartsLater: a CycloneDDS participant
// in its default starts after ours has done its quick announcements, and
// ours learns it from the SPDP it multicasts at start, which ours hears
// on the group without joining it, long before ours announces again.
func TestHostMulticastHearsACycloneThatStartsLater(t *testing.T) {
	netns.Require(t)
	const domain = 23
	p := newParticipant(t, Config{Domain: domain, HostMulticast: true, AnnouncePeriod: 5 * time.Minute, LeaseDuration: 10 * time.Minute})
	// Past the quick announcements (quickAnnouncements, quickPeriod).
	time.Sleep(quickAnnouncements*quickPeriod + 500*time.Millisecond)
	startDDSPerf(t, domain, "", 60, "sub")
	waitFor(t, p, 30*time.Second, "ours learns the later Cyclone before announcing again", func(ds []ParticipantData) bool { return cyclones(ds) == 1 })
}
