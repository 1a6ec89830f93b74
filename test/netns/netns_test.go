package netns

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

func TestMain(m *testing.M) { Main(m) }

func TestInsideNamespaceOnlyLoopbackExistsWithMulticast(t *testing.T) {
	Require(t)
	ifs, err := net.Interfaces()
	if err != nil {
		t.Fatal(err)
	}
	if len(ifs) != 1 || ifs[0].Name != "lo" {
		t.Fatalf("interfaces %v, want only lo", ifs)
	}
	if ifs[0].Flags&net.FlagUp == 0 || ifs[0].Flags&net.FlagMulticast == 0 {
		t.Fatalf("lo flags %v, want up and multicast", ifs[0].Flags)
	}
	out, err := exec.Command("ip", "route", "show", "table", "all").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "224.0.0.0/4 dev lo") {
		t.Fatalf("no multicast route on lo: %v\n%s", err, out)
	}
}

func TestNewNamespaceIsDeletedAtCleanup(t *testing.T) {
	Require(t)
	var name string
	t.Run("make", func(t *testing.T) {
		name = New(t)
		out, err := Command(context.Background(), name, "ip", "-br", "link").CombinedOutput()
		if err != nil || !strings.HasPrefix(string(out), "lo ") {
			t.Fatalf("ip link in %s: %v %s", name, err, out)
		}
	})
	if _, err := os.Stat("/run/netns/" + name); !os.IsNotExist(err) {
		t.Fatalf("namespace %s still there: %v", name, err)
	}
}

func TestPeerIsKilledByPid(t *testing.T) {
	Require(t)
	var p *Peer
	t.Run("start", func(t *testing.T) {
		p = StartPeer(t, exec.Command("sleep", "60"))
	})
	select {
	case <-p.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("peer still running after its test's cleanup")
	}
}

// A namespace left by a test process that was SIGKILLed (its delete never
// ran) is deleted by the next Create; one whose process lives is kept.
func TestCreateDeletesTheNamespacesOfDeadTestProcesses(t *testing.T) {
	Require(t)
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	stale := fmt.Sprintf("actb-%d-0badf00d", dead.Process.Pid)
	live := fmt.Sprintf("actb-%d-00c0ffee", os.Getpid())
	for _, n := range []string{stale, live} {
		if err := ip(t.Context(), "netns", "add", n); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = ip(context.Background(), "netns", "del", n) })
	}
	New(t)
	if _, err := os.Stat(netnsDir + "/" + stale); !os.IsNotExist(err) {
		t.Fatalf("the dead process's namespace %s is still there: %v", stale, err)
	}
	if _, err := os.Stat(netnsDir + "/" + live); err != nil {
		t.Fatalf("a live process's namespace %s was deleted: %v", live, err)
	}
}

func TestOwnerPidReadsOnlyCreatesNames(t *testing.T) {
	for _, c := range []struct {
		name string
		pid  int
		ok   bool
	}{
		{"actb-25170-5ce44ef6", 25170, true},
		{"actb-25170-5ce44ef", 0, false},
		{"actb-x-5ce44ef6", 0, false},
		{"actb-0-5ce44ef6", 0, false},
		{"other-25170-5ce44ef6", 0, false},
		{"actb-25170-zzzzzzzz", 0, false},
	} {
		if pid, ok := ownerPid(c.name); pid != c.pid && c.ok || ok != c.ok {
			t.Errorf("%s: %d %v, want %d %v", c.name, pid, ok, c.pid, c.ok)
		}
	}
}
