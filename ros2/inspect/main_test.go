package inspect_test

import (
	"testing"

	"github.com/actbridge/actbridge/test/netns"
)

// TestMain runs the tests and examples inside a namespace it made where
// it can, so that no other process's participants join their domains.
func TestMain(m *testing.M) { netns.Main(m) }
