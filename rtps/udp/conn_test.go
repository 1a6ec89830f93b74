package udp

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/actbridge/actbridge/test/netns"
)

func TestMain(m *testing.M) { netns.Main(m) }

var loopback = netip.MustParseAddr("127.0.0.1")

func receive(t *testing.T, c *Conn) string {
	t.Helper()
	got := make(chan string, 1)
	go func() {
		buf := make([]byte, 100)
		n, _, err := c.ReadFrom(buf)
		if err != nil {
			got <- "error: " + err.Error()
			return
		}
		got <- string(buf[:n])
	}()
	select {
	case s := <-got:
		return s
	case <-time.After(5 * time.Second):
		t.Fatal("nothing received")
		return ""
	}
}

// loopbackPair is two unicast sockets on loopback, closed at the test's end.
func loopbackPair(t *testing.T) (a, b *Conn) {
	t.Helper()
	for _, c := range []**Conn{&a, &b} {
		var err error
		if *c, err = ListenUnicast(context.Background(), loopback, 0); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { (*c).Close() })
	}
	return a, b
}

func TestUnicastOnLoopbackDeliversAndRefusesOffHost(t *testing.T) {
	a, b := loopbackPair(t)
	if err := a.WriteTo([]byte("hello"), netip.AddrPortFrom(loopback, b.Port())); err != nil {
		t.Fatal(err)
	}
	if got := receive(t, b); got != "hello" {
		t.Fatalf("got %q", got)
	}
	for _, dst := range []string{"10.0.0.1:7410", "192.168.1.2:7400", "0.0.0.0:7400"} {
		if err := a.WriteTo([]byte("x"), netip.MustParseAddrPort(dst)); !errors.Is(err, ErrUnreachable) {
			t.Errorf("send to %s from loopback: %v", dst, err)
		}
	}
}

func TestExclusiveUnicastPortCannotBeBoundTwice(t *testing.T) {
	a, err := ListenUnicast(context.Background(), loopback, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if b, err := ListenUnicast(context.Background(), loopback, a.Port()); err == nil {
		b.Close()
		t.Fatal("second bind of an exclusive port succeeded")
	}
}

func TestTruncatedDatagramIsRefused(t *testing.T) {
	a, _ := ListenUnicast(context.Background(), loopback, 0)
	defer a.Close()
	if err := a.WriteTo(make([]byte, 200), netip.AddrPortFrom(loopback, a.Port())); err != nil {
		t.Fatal(err)
	}
	if got := receive(t, a); got != "error: "+ErrTooLarge.Error() {
		t.Fatalf("got %q", got)
	}
}

func TestMulticastReachesEveryMemberOnTheHost(t *testing.T) {
	netns.Require(t)
	ctx := context.Background()
	port, _ := DefaultPorts().MetatrafficMulticast(7)
	var members []*Conn
	for range 2 {
		m, err := ListenMulticast(ctx, loopback, SPDPGroup(), port)
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		members = append(members, m)
	}
	sender, err := ListenUnicast(ctx, loopback, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer sender.Close()
	if err := sender.WriteTo([]byte("spdp"), netip.AddrPortFrom(SPDPGroup(), port)); err != nil {
		t.Fatal(err)
	}
	for i, m := range members {
		if got := receive(t, m); got != "spdp" {
			t.Errorf("member %d got %q", i, got)
		}
	}
}

// readCount reads up to n datagrams from c on a goroutine of its own, and
// then sends how many it read (fewer when a read fails: close c to stop
// it).
func readCount(c *Conn, n int) <-chan int {
	got := make(chan int, 1)
	go func() {
		buf := make([]byte, 2000)
		k := 0
		for ; k < n; k++ {
			if _, _, err := c.ReadFrom(buf); err != nil {
				break
			}
		}
		got <- k
	}()
	return got
}

// TestBurstOfAMegabyteWaitsInTheSocket: a 1 MB sample in 1,344-octet
// DATA_FRAGs (what CycloneDDS sends in one burst) fits in the socket's
// receive buffer while nobody reads; the kernel's default buffer dropped
// nine tenths of it.
func TestBurstOfAMegabyteWaitsInTheSocket(t *testing.T) {
	ctx := context.Background()
	for _, listen := range []struct {
		name string
		open func() (*Conn, error)
	}{
		{"unicast", func() (*Conn, error) { return ListenUnicast(ctx, loopback, 0) }},
		{"multicast", func() (*Conn, error) {
			return ListenMulticast(ctx, loopback, netip.MustParseAddr("239.255.0.1"), 7411)
		}},
	} {
		t.Run(listen.name, func(t *testing.T) {
			netns.Require(t)
			rx, err := listen.open()
			if err != nil {
				t.Fatal(err)
			}
			defer rx.Close()
			tx, err := ListenUnicast(ctx, loopback, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer tx.Close()
			const n = 800 // 1 MiB / 1,344 octets, plus headers
			dg := make([]byte, 1400)
			for range n {
				if err := tx.WriteTo(dg, netip.AddrPortFrom(loopback, rx.Port())); err != nil {
					t.Fatal(err)
				}
			}
			got := readCount(rx, n)
			select {
			case k := <-got:
				if k != n {
					t.Fatalf("read %d of %d", k, n)
				}
			case <-time.After(2 * time.Second):
				rx.Close()
				t.Fatalf("only %d of %d datagrams waited in the socket", <-got, n)
			}
		})
	}
}

// TestReadFromReportsTheSenderAndStopsWhenClosed: a datagram's source is
// the sending Conn's send socket, on its interface address and a port
// other than the one it reads (see sender); an empty datagram is one; a
// read blocked on a socket that is closed returns net.ErrClosed.
func TestReadFromReportsTheSenderAndStopsWhenClosed(t *testing.T) {
	a, b := loopbackPair(t)
	if a.tx.port == a.Port() || a.tx.port == 0 {
		t.Fatalf("send socket on port %d, reading on %d: want a port of its own", a.tx.port, a.Port())
	}
	for _, msg := range []string{"ping", ""} {
		if err := a.WriteTo([]byte(msg), netip.AddrPortFrom(loopback, b.Port())); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 16)
		n, src, err := b.ReadFrom(buf)
		if err != nil || string(buf[:n]) != msg || src != netip.AddrPortFrom(loopback, a.tx.port) {
			t.Fatalf("read %q from %v (%v), want %q from %v", buf[:n], src, err, msg, netip.AddrPortFrom(loopback, a.tx.port))
		}
	}
	done := make(chan error, 1)
	go func() {
		_, _, err := b.ReadFrom(make([]byte, 16))
		done <- err
	}()
	time.Sleep(20 * time.Millisecond) // let it block
	b.Close()
	select {
	case err := <-done:
		if !errors.Is(err, net.ErrClosed) {
			t.Fatalf("read on a closed socket: %v, want net.ErrClosed", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a read blocked on a closed socket never returned")
	}
	if err := b.WriteTo([]byte("x"), netip.AddrPortFrom(loopback, a.Port())); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("write on a closed socket: %v, want net.ErrClosed", err)
	}
}

// TestReadAndWriteAllocateNothing: a datagram sent and received costs no
// allocation (the 1 kHz ingestion's CPU is mostly per-datagram work).
func TestReadAndWriteAllocateNothing(t *testing.T) {
	a, b := loopbackPair(t)
	msg, buf, to := []byte("joint states"), make([]byte, 64), netip.AddrPortFrom(loopback, b.Port())
	allocs := testing.AllocsPerRun(100, func() {
		if err := a.WriteTo(msg, to); err != nil {
			t.Fatal(err)
		}
		if n, _, err := b.ReadFrom(buf); err != nil || n != len(msg) {
			t.Fatalf("read %d, %v", n, err)
		}
	})
	if allocs != 0 {
		t.Fatalf("%v allocations a datagram sent and received, want 0", allocs)
	}
}

// tokenBucket makes the namespace's loopback let rate through, queueing
// up to limit octets (tc's units), until the test ends; it skips t when
// the kernel has no token bucket qdisc, unless the namespace tests are
// required (netns.EnvRequire, as CI sets).
func tokenBucket(t *testing.T, rate, limit string) {
	t.Helper()
	netns.Require(t)
	tc := func(args ...string) error {
		// Each its own deadline: the bucket must go even after a test's
		// failure, or it slows the package's other tests.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		out, err := exec.CommandContext(ctx, "tc", append([]string{"qdisc"}, args...)...).CombinedOutput()
		if err != nil {
			return fmt.Errorf("tc qdisc %v: %w: %s", args, err, out)
		}
		return nil
	}
	if err := tc("replace", "dev", "lo", "root", "tbf", "rate", rate, "burst", "4kb", "limit", limit); err != nil {
		if strings.Contains(err.Error(), "unknown") && os.Getenv(netns.EnvRequire) != "1" {
			t.Skipf("the kernel has no token bucket qdisc: %v", err)
		}
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := tc("del", "dev", "lo", "root"); err != nil {
			t.Error(err)
		}
	})
}

// fillSendBuffer shrinks a's send buffer and sends to b without waiting
// until the kernel refuses (EAGAIN), as it does once the token bucket
// holds more of a's datagrams than the buffer allows; it returns how
// many it sent.
func fillSendBuffer(t *testing.T, a, b *Conn, dg []byte) int {
	t.Helper()
	if err := unix.SetsockoptInt(a.tx.fd, unix.SOL_SOCKET, unix.SO_SNDBUF, 4096); err != nil {
		t.Fatal(err)
	}
	to := &unix.SockaddrInet4{Port: int(b.Port()), Addr: loopback.As4()}
	for sent := 0; sent < 30; sent++ {
		if err := unix.Sendto(a.tx.fd, dg, unix.MSG_DONTWAIT, to); errors.Is(err, unix.EAGAIN) {
			return sent
		} else if err != nil {
			t.Fatal(err)
		}
	}
	t.Fatal("30 datagrams sent without waiting: the send buffer never filled")
	return 0
}

// TestAFullSendBufferIsWaitedFor: when the kernel holds more of a
// Conn's datagrams than its send buffer allows (a token bucket on the
// namespace's loopback lets 1 Mbit/s through), WriteTo waits for room
// instead of failing with EAGAIN, and every datagram arrives.
func TestAFullSendBufferIsWaitedFor(t *testing.T) {
	tokenBucket(t, "1mbit", "1mb")
	a, b := loopbackPair(t)
	dg := make([]byte, 1000)
	sent := fillSendBuffer(t, a, b, dg)
	const n = 30 // 30 KB more: about 240 ms at 1 Mbit/s, many times the buffer
	got := readCount(b, sent+n)
	for i := range n {
		if err := a.WriteTo(dg, netip.AddrPortFrom(loopback, b.Port())); err != nil {
			t.Fatalf("datagram %d: %v", i, err)
		}
	}
	select {
	case k := <-got:
		if k != sent+n {
			t.Fatalf("read %d of %d", k, sent+n)
		}
	case <-time.After(10 * time.Second):
		b.Close()
		t.Fatalf("only %d of %d datagrams arrived", <-got, sent+n)
	}
}

// TestASendBufferThatStaysFullFails: when the send buffer stays full (the
// bucket lets 1 kbit/s through, a datagram every 8 s), WriteTo gives up
// after about sendTimeout with ErrSendTimeout, and Close called beside a
// WriteTo that waits returns: it waits for that send, or the send finds
// the socket closed. The bucket's first tokens may still let one wait end
// in room, so up to three writes are tried first.
func TestASendBufferThatStaysFullFails(t *testing.T) {
	tokenBucket(t, "1kbit", "1mb")
	a, b := loopbackPair(t)
	dg := make([]byte, 1000)
	fillSendBuffer(t, a, b, dg)
	done := make(chan error, 1)
	go func() {
		var err error
		for i := 0; i < 3 && err == nil; i++ {
			err = a.WriteTo(dg, netip.AddrPortFrom(loopback, b.Port()))
		}
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, ErrSendTimeout) {
			t.Fatalf("WriteTo into a full buffer: %v, want ErrSendTimeout", err)
		}
	case <-time.After(10 * sendTimeout):
		t.Fatalf("WriteTo into a full buffer still waits after %v", 10*sendTimeout)
	}
	go func() { done <- a.WriteTo(dg, netip.AddrPortFrom(loopback, b.Port())) }()
	closed := make(chan error, 1)
	go func() { closed <- a.Close() }()
	for range 2 {
		select {
		case err := <-closed:
			if err != nil {
				t.Fatal(err)
			}
		case err := <-done:
			if !errors.Is(err, ErrSendTimeout) && !errors.Is(err, net.ErrClosed) {
				t.Fatalf("WriteTo while closing: %v, want ErrSendTimeout or net.ErrClosed", err)
			}
		case <-time.After(10 * sendTimeout):
			t.Fatal("Close, or a WriteTo waiting beside it, hangs")
		}
	}
}
