package ros2

import (
	"testing"

	"github.com/actbridge/actbridge/test/ddspeers"
)

// vendorPeer is one DDS stack a vendor test runs against: the subtest's
// name and the path of that stack's peer.
type vendorPeer struct {
	name, bin string
	fastDDS   bool // eProsima's stack, 2.9 or 3.1: rmw_fastrtps's flags
}

// vendorPeers are CycloneDDS 0.10, Fast DDS 2.9 and Fast DDS 3.1 (what
// Kilted and Lyrical run on), given one build's peers. Fast DDS 3's path
// is "" without the Debian 13 root: its subtests skip (need), or fail
// under ddspeers.RequireEnv.
func vendorPeers(cyclone, fast, fast3 string) []vendorPeer {
	return []vendorPeer{{"cyclonedds", cyclone, false}, {"fastdds", fast, true}, {"fastdds3", fast3, true}}
}

// need skips t when v's peer is missing.
func (v vendorPeer) need(t *testing.T) {
	t.Helper()
	ddspeers.SkipMissing(t, v.bin)
}
