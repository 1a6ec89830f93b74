package netns

import (
	"context"
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
