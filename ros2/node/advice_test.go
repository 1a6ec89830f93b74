package node_test

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/actbridge/actbridge/ros2/node"
	"github.com/actbridge/actbridge/rtps"
	"github.com/actbridge/actbridge/rtps/wire"
)

func participant(unicast string, multicast bool) rtps.ParticipantData {
	ap := netip.MustParseAddrPort(unicast)
	d := rtps.ParticipantData{MetatrafficUnicast: []wire.Locator{wire.UDPv4Locator(ap.Addr(), ap.Port())}}
	if multicast {
		d.MetatrafficMulticast = []wire.Locator{wire.UDPv4Locator(netip.MustParseAddr("239.255.0.1"), 7400)}
	}
	return d
}

// TestAdviceNamesWhatToSet: each combination docs/discovery.md says
// cannot work is named with the variable to set, from what discovery
// found; a combination that works says nothing.
func TestAdviceNamesWhatToSet(t *testing.T) {
	self := participant("10.1.2.3:7410", true)
	cycloneDefault := participant("10.1.2.3:43567", true) // no participant index
	fastDefault := participant("10.1.2.3:7412", true)
	humbleLocalhost := participant("127.0.0.1:7414", false)
	// Fast DDS's shared memory locator beside its UDP one.
	humbleLocalhost.MetatrafficUnicast = append(humbleLocalhost.MetatrafficUnicast, wire.Locator{Kind: 16, Port: 7414})
	for _, c := range []struct {
		name  string
		d     node.Discovery
		known []rtps.ParticipantData
		want  []string // all in the advice; none: no advice
	}{
		{"localhost finds", node.Discovery{Range: node.Localhost}, []rtps.ParticipantData{cycloneDefault, humbleLocalhost}, nil},
		{"localhost finds none", node.Discovery{Range: node.Localhost, Domain: 4}, nil, []string{"domain 4", "OFF", "SUBNET", "ROS_STATIC_PEERS", "ROS_DOMAIN_ID"}},
		{"subnet finds", node.Discovery{Range: node.Subnet}, []rtps.ParticipantData{cycloneDefault, fastDefault}, nil},
		{"subnet meets loopback-only", node.Discovery{Range: node.Subnet}, []rtps.ParticipantData{fastDefault, humbleLocalhost}, []string{"1 participants", "ROS_LOCALHOST_ONLY", "10.1.2.3:7410", "ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST"}},
		{"subnet finds none", node.Discovery{Range: node.Subnet}, nil, []string{"10.1.2.3:7410", "OFF", "ROS_LOCALHOST_ONLY", "--interface"}},
		{"off reaches indices", node.Discovery{Range: node.Off}, []rtps.ParticipantData{fastDefault, humbleLocalhost}, nil},
		{"off meets the group's", node.Discovery{Range: node.Off}, []rtps.ParticipantData{fastDefault, cycloneDefault}, []string{"1 participants", "port 7400", "ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST"}},
		{"off finds none", node.Discovery{Range: node.Off}, nil, []string{"ROS_STATIC_PEERS", "ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := c.d.Advice(self, c.known)
			if len(c.want) == 0 && got != "" {
				t.Fatalf("advice %q for a working combination", got)
			}
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("advice %q lacks %q", got, w)
				}
			}
		})
	}
}
