package dserver

import (
	"fmt"
	"os"
	"os/exec"

	"testing"

	"github.com/actbridge/actbridge/test/ddspeers"
	"github.com/actbridge/actbridge/test/netns"
)

// TestMain runs the tests in a namespace of their own and takes multicast
// away from its loopback: no participant can find another but through the
// server.
func TestMain(m *testing.M) {
	netns.MainFunc(func() int {
		if netns.Inside() && os.Getenv(ddspeers.SniffEnv) == "" {
			for _, args := range [][]string{{"route", "del", "224.0.0.0/4", "dev", "lo"}, {"link", "set", "lo", "multicast", "off"}} {
				if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
					fmt.Fprintf(os.Stderr, "ip %v: %v: %s\n", args, err, out)
					return 1
				}
			}
		}
		return m.Run()
	})
}
