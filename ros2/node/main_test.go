package node_test

import (
	"testing"

	"github.com/actbridge/actbridge/test/netns"
)

// TestMain runs the tests inside a namespace it made where it can, so
// that other processes' participants on the same domain never join
// them; where it cannot, they run on the host's loopback.
func TestMain(m *testing.M) { netns.Main(m) }
