// Package netns runs tests inside a network namespace the test made, so
// that discovery traffic (multicast included) never leaves it: `ip netns
// add`, loopback up with multicast on and a route for 224.0.0.0/4 on it,
// and `ip netns del` afterwards.
//
// Use Main from TestMain: it re-executes the test binary inside a fresh
// namespace and deletes the namespace after. Tests that need the
// namespace call Require; they skip when namespaces are unavailable (not
// root, no `ip`), or fail when ACTBRIDGE_REQUIRE_DDS_PEERS=1 (as CI sets).
package netns

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net/netip"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Environment variables between Main and the re-executed binary.
const (
	envInside      = "ACTBRIDGE_NETNS"             // name of the namespace we run in
	envUnavailable = "ACTBRIDGE_NETNS_UNAVAILABLE" // why Main could not make one
	// EnvRequire makes Require fail instead of skip.
	EnvRequire = "ACTBRIDGE_REQUIRE_DDS_PEERS"
)

// ErrUnavailable means namespaces cannot be made here.
var ErrUnavailable = errors.New("netns: network namespaces unavailable")

// Create makes a uniquely named namespace with loopback up, multicast on
// and multicast routed to it, and returns its name and a delete function.
func Create(ctx context.Context) (name string, del func() error, err error) {
	if os.Geteuid() != 0 {
		return "", nil, fmt.Errorf("%w: not root", ErrUnavailable)
	}
	if _, err := exec.LookPath("ip"); err != nil {
		return "", nil, fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	var r [4]byte
	if _, err := rand.Read(r[:]); err != nil {
		return "", nil, err
	}
	sweep(ctx)
	name = fmt.Sprintf("actb-%d-%s", os.Getpid(), hex.EncodeToString(r[:]))
	if err := ip(ctx, "netns", "add", name); err != nil {
		return "", nil, fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	del = func() error { return ip(context.Background(), "netns", "del", name) }
	for _, args := range [][]string{
		{"-n", name, "link", "set", "lo", "up"},
		{"-n", name, "link", "set", "lo", "multicast", "on"},
		{"-n", name, "route", "add", "224.0.0.0/4", "dev", "lo"},
	} {
		if err := ip(ctx, args...); err != nil {
			del()
			return "", nil, err
		}
	}
	return name, del, nil
}

// sweep deletes the namespaces of test processes that are gone: one
// SIGKILLed (by `go test`'s own timeout, or by hand) never runs its
// delete. A namespace is ours by its name, actb-<pid>-<hex>, and stale
// when no process has that pid; one whose pid is alive (maybe reused) is
// left alone.
func sweep(ctx context.Context) {
	entries, err := os.ReadDir(netnsDir)
	if err != nil {
		return
	}
	for _, e := range entries {
		pid, ok := ownerPid(e.Name())
		if !ok {
			continue
		}
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); errors.Is(err, fs.ErrNotExist) {
			_ = ip(ctx, "netns", "del", e.Name()) // another sweep may have been first
		}
	}
}

// netnsDir is where `ip netns add` names its namespaces.
const netnsDir = "/run/netns"

// ownerPid is the pid in a namespace name Create made.
func ownerPid(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, "actb-")
	if !ok {
		return 0, false
	}
	pid, suffix, ok := strings.Cut(rest, "-")
	if !ok || len(suffix) != 8 {
		return 0, false
	}
	if _, err := hex.DecodeString(suffix); err != nil {
		return 0, false
	}
	n, err := strconv.Atoi(pid)
	return n, err == nil && n > 0
}

func ip(ctx context.Context, args ...string) error {
	out, err := exec.CommandContext(ctx, "ip", args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("ip %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return nil
}

// Main is for TestMain. Outside a namespace it creates one, runs this test
// binary inside it with the same arguments and environment, deletes the
// namespace and exits with the binary's exit code. Inside one, or when
// none can be made (the reason is kept for Require), it runs m.
func Main(m *testing.M) { MainFunc(m.Run) }

// MainFunc is Main for a TestMain with set-up of its own around the
// tests (binaries to build, files to remove after): run is called where
// Main calls m.Run, inside the namespace, and returns the exit code.
func MainFunc(run func() int) {
	if os.Getenv(envInside) != "" || os.Getenv(envUnavailable) != "" {
		os.Exit(run())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	name, del, err := Create(ctx)
	cancel()
	if err != nil {
		os.Setenv(envUnavailable, err.Error())
		os.Exit(run())
	}
	code := reexec(name)
	if err := del(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		if code == 0 {
			code = 1
		}
	}
	os.Exit(code)
}

// reexec runs os.Args inside namespace name, forwarding interrupts, and
// returns its exit code.
func reexec(name string) int {
	cmd := exec.Command("ip", append([]string{"netns", "exec", name}, os.Args...)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = append(os.Environ(), envInside+"="+name)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sig)
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "netns:", err)
		return 1
	}
	done := make(chan struct{})
	go func() {
		select {
		case s := <-sig:
			cmd.Process.Signal(s)
		case <-done:
		}
	}()
	err := cmd.Wait()
	close(done)
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee) && ee.ExitCode() >= 0:
		return ee.ExitCode()
	default:
		fmt.Fprintln(os.Stderr, "netns:", err)
		return 1
	}
}

// Require returns the name of the namespace the test runs in. When there
// is none it skips t, or fails it if ACTBRIDGE_REQUIRE_DDS_PEERS=1.
func Require(t testing.TB) string {
	t.Helper()
	if name := os.Getenv(envInside); name != "" {
		return name
	}
	why := os.Getenv(envUnavailable)
	if why == "" {
		why = "the package's TestMain does not call netns.Main"
	}
	if os.Getenv(EnvRequire) == "1" {
		t.Fatalf("netns required (%s=1) but unavailable: %s", EnvRequire, why)
	}
	t.Skipf("needs a test-made network namespace: %s", why)
	return ""
}

// New creates a namespace for t alone and deletes it in t.Cleanup, for a
// test that runs processes in it with Command rather than running inside.
// It skips or fails as Require does when namespaces are unavailable.
func New(t testing.TB) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	name, del, err := Create(ctx)
	if errors.Is(err, ErrUnavailable) && os.Getenv(EnvRequire) != "1" {
		t.Skipf("needs a network namespace: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := del(); err != nil {
			t.Error(err)
		}
	})
	return name
}

// Command returns a command that runs name inside namespace ns.
func Command(ctx context.Context, ns, name string, args ...string) *exec.Cmd {
	return exec.CommandContext(ctx, "ip", append([]string{"netns", "exec", ns, name}, args...)...)
}

// Inside reports whether the process runs in a namespace Main made.
func Inside() bool { return os.Getenv(envInside) != "" }

// Veth adds a veth pair to the namespace the test runs in (Require's),
// both ends up with multicast on, holding addresses a and b (a /24 each,
// one subnet): a host's non-loopback interface, whose multicast stays in
// the namespace (what leaves one end arrives at the other). It returns
// the two ends' names and removes the pair in t.Cleanup.
func Veth(t testing.TB, a, b netip.Addr) (string, string) {
	t.Helper()
	Require(t)
	var r [3]byte
	if _, err := rand.Read(r[:]); err != nil {
		t.Fatal(err)
	}
	ea, eb := "va"+hex.EncodeToString(r[:]), "vb"+hex.EncodeToString(r[:])
	ctx := context.Background()
	if err := ip(ctx, "link", "add", ea, "type", "veth", "peer", "name", eb); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ip(context.Background(), "link", "del", ea) })
	for _, args := range [][]string{
		{"addr", "add", a.String() + "/24", "dev", ea},
		{"addr", "add", b.String() + "/24", "dev", eb},
		{"link", "set", ea, "multicast", "on", "up"},
		{"link", "set", eb, "multicast", "on", "up"},
	} {
		if err := ip(ctx, args...); err != nil {
			t.Fatal(err)
		}
	}
	return ea, eb
}
