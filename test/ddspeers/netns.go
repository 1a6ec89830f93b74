package ddspeers

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os/exec"
	"testing"
)

// NetNS makes a network namespace for one test, with only its loopback
// up and multicast routed onto it, so that DDS discovery and data stay
// inside; the namespace is deleted when the test ends. It needs root: the
// test is skipped without it unless RequireEnv is set.
func NetNS(t testing.TB) string {
	t.Helper()
	var b [4]byte
	_, _ = rand.Read(b[:])
	name := "actb-peers-" + hex.EncodeToString(b[:])
	ip := func(args ...string) error {
		out, err := exec.Command("ip", args...).CombinedOutput()
		if err != nil {
			t.Logf("ip %v: %v: %s", args, err, out)
		}
		return err
	}
	if err := ip("netns", "add", name); err != nil {
		msg := "cannot create a network namespace (needs root and iproute2)"
		if requireDDS() {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	t.Cleanup(func() { _ = ip("netns", "delete", name) })
	for _, args := range [][]string{
		{"link", "set", "lo", "up"},
		{"link", "set", "lo", "multicast", "on"},
		{"route", "add", "224.0.0.0/4", "dev", "lo"},
	} {
		if err := ip(append([]string{"-n", name}, args...)...); err != nil {
			t.Fatal("setting up the namespace failed")
		}
	}
	return name
}

// InNetNS returns a command that runs bin with args inside namespace ns.
// ip netns exec replaces itself with bin, so the command's pid is bin's.
func InNetNS(ctx context.Context, ns, bin string, args ...string) *exec.Cmd {
	return exec.CommandContext(ctx, "ip", append([]string{"netns", "exec", ns, bin}, args...)...)
}
