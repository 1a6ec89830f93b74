package udp

import (
	"context"
	"encoding/binary"
	"errors"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/actbridge/actbridge/test/netns"
)

// frameTap reads the IPv4 UDP datagrams that arrive at an interface from
// its link (a veth's other end), not those the host loops back to itself.
type frameTap struct{ fd int }

func newFrameTap(t *testing.T, ifname string) *frameTap {
	t.Helper()
	fi, err := net.InterfaceByName(ifname)
	if err != nil {
		t.Fatal(err)
	}
	proto := int(htons(unix.ETH_P_IP))
	fd, err := unix.Socket(unix.AF_PACKET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, proto)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	if err := unix.Bind(fd, &unix.SockaddrLinklayer{Protocol: uint16(proto), Ifindex: fi.Index}); err != nil {
		t.Fatal(err)
	}
	tv := unix.NsecToTimeval((5 * time.Second).Nanoseconds())
	if err := unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv); err != nil {
		t.Fatal(err)
	}
	return &frameTap{fd: fd}
}

func htons(v uint16) uint16 { return v<<8 | v>>8 }

// next returns the UDP payload of the next datagram from the link to port.
func (f *frameTap) next(t *testing.T, port uint16) string {
	t.Helper()
	buf := make([]byte, 2000)
	for {
		n, from, err := unix.Recvfrom(f.fd, buf, 0)
		if err != nil {
			t.Fatalf("nothing came over the link: %v", err)
		}
		ll, ok := from.(*unix.SockaddrLinklayer)
		if !ok || ll.Pkttype == unix.PACKET_LOOPBACK || ll.Pkttype == unix.PACKET_OUTGOING || n < 28 || buf[9] != unix.IPPROTO_UDP {
			continue
		}
		ihl := int(buf[0]&0x0f) * 4
		if n < ihl+8 || binary.BigEndian.Uint16(buf[ihl+2:]) != port {
			continue
		}
		return string(buf[ihl+8 : n])
	}
}

// groupSockets opens a member of the SPDP group on each interface address
// and ListenGroup's socket, on port; all are closed at the test's end.
func groupSockets(t *testing.T, port uint16, ifaddrs ...netip.Addr) ([]*Conn, *Conn) {
	t.Helper()
	var members []*Conn
	for _, ifaddr := range ifaddrs {
		m, err := ListenMulticast(context.Background(), ifaddr, SPDPGroup(), port)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { m.Close() })
		members = append(members, m)
	}
	listener, err := ListenGroup(SPDPGroup(), port)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { listener.Close() })
	return members, listener
}

// TestHostMulticastReachesEveryInterfaceAndNeverTheLink: a datagram
// HostMulticast sends reaches a member of the group on loopback and one
// on a veth, and ListenGroup's socket, which joined nothing; and none of
// it crosses the veth's link, where a TTL 1 multicast sent after it does.
func TestHostMulticastReachesEveryInterfaceAndNeverTheLink(t *testing.T) {
	a, b := netip.MustParseAddr("10.231.7.1"), netip.MustParseAddr("10.231.7.2")
	ea, eb := netns.Veth(t, a, b)
	ctx := context.Background()
	port, _ := DefaultPorts().MetatrafficMulticast(9)
	group := netip.AddrPortFrom(SPDPGroup(), port)
	tap := newFrameTap(t, eb)

	members, listener := groupSockets(t, port, loopback, a)
	h, err := OpenHostMulticast()
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()

	if err := h.WriteTo([]byte("host"), group); err != nil {
		t.Fatal(err)
	}
	for i, m := range members {
		if got := receive(t, m); got != "host" {
			t.Errorf("member %d (on %v) got %q", i, m.Addr(), got)
		}
	}
	if got := receive(t, listener); got != "host" {
		t.Errorf("the group's listener got %q", got)
	}

	// A plain multicast out of ea after it: the link is FIFO, so the
	// first datagram the link brings is the host one if that left at all.
	wire, err := ListenUnicast(ctx, a, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer wire.Close()
	if err := wire.WriteTo([]byte("wire"), group); err != nil {
		t.Fatal(err)
	}
	if got := tap.next(t, port); got != "wire" {
		t.Fatalf("the link from %s to %s carried %q before the TTL 1 datagram", ea, eb, got)
	}
}

// TestGroupListenerTakesNoUnicast: unicast to the port goes to the
// port's other socket, never to ListenGroup's (bound to the group).
func TestGroupListenerTakesNoUnicast(t *testing.T) {
	netns.Require(t)
	ctx := context.Background()
	port, _ := DefaultPorts().MetatrafficMulticast(11)
	listener, err := ListenGroup(SPDPGroup(), port)
	if err != nil {
		t.Fatal(err)
	}
	defer listener.Close()
	other, err := ListenMulticast(ctx, loopback, SPDPGroup(), port)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	// The listener bound last: a socket of 0.0.0.0 bound after the other
	// would take the unicast (Linux gives it to the newest).
	late, err := ListenGroup(SPDPGroup(), port)
	if err != nil {
		t.Fatal(err)
	}
	defer late.Close()
	sender, _ := loopbackPair(t)
	for range 5 {
		if err := sender.WriteTo([]byte("uni"), netip.AddrPortFrom(loopback, port)); err != nil {
			t.Fatal(err)
		}
		if got := receive(t, other); got != "uni" {
			t.Fatalf("the port's socket got %q", got)
		}
	}
	// Now a multicast: each listener's first datagram is this one.
	if err := sender.WriteTo([]byte("group"), netip.AddrPortFrom(SPDPGroup(), port)); err != nil {
		t.Fatal(err)
	}
	for _, l := range []*Conn{listener, late} {
		if got := receive(t, l); got != "group" {
			t.Errorf("a group listener took %q", got)
		}
	}
}

// TestLoopbackReachesTheHostsOwnAddresses: a loopback socket sends to an
// address of the host's own (a veth's), which the kernel delivers through
// loopback, and still refuses one of the veth's subnet that is not ours.
func TestLoopbackReachesTheHostsOwnAddresses(t *testing.T) {
	a, b := netip.MustParseAddr("10.231.9.1"), netip.MustParseAddr("10.231.9.2")
	netns.Veth(t, a, b)
	ctx := context.Background()
	lo, err := ListenUnicast(ctx, loopback, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer lo.Close()
	on, err := ListenUnicast(ctx, a, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer on.Close()
	if err := lo.WriteTo([]byte("own"), netip.AddrPortFrom(a, on.Port())); err != nil {
		t.Fatal(err)
	}
	if got := receive(t, on); got != "own" {
		t.Fatalf("got %q", got)
	}
	if err := lo.WriteTo([]byte("x"), netip.AddrPortFrom(netip.MustParseAddr("10.231.9.3"), on.Port())); !errors.Is(err, ErrUnreachable) {
		t.Errorf("send to a stranger of the veth's subnet from loopback: %v", err)
	}
}

// TestListenUnicastAllHearsLoopbackToo: a socket announced on a veth's
// address hears what a peer of the host sends it through 127.0.0.1, as
// Fast DDS sends to a local locator, and still sends from the veth's
// address.
func TestListenUnicastAllHearsLoopbackToo(t *testing.T) {
	a, b := netip.MustParseAddr("10.231.11.1"), netip.MustParseAddr("10.231.11.2")
	netns.Veth(t, a, b)
	ctx := context.Background()
	c, err := ListenUnicastAll(ctx, a, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.Addr() != a {
		t.Fatalf("sends from %v, want %v", c.Addr(), a)
	}
	lo, err := ListenUnicast(ctx, loopback, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer lo.Close()
	for _, dst := range []netip.Addr{loopback, a} {
		if err := lo.WriteTo([]byte(dst.String()), netip.AddrPortFrom(dst, c.Port())); err != nil {
			t.Fatal(err)
		}
		if got := receive(t, c); got != dst.String() {
			t.Fatalf("sent to %v, got %q", dst, got)
		}
	}
}

// socketIn opens a UDP socket in the namespace ns (a socket keeps the
// namespace it was made in, whichever thread uses it after).
func socketIn(t *testing.T, ns string) int {
	t.Helper()
	runtime.LockOSThread()
	self, err := os.Open("/proc/thread-self/ns/net")
	if err != nil {
		t.Fatal(err)
	}
	defer self.Close()
	far, err := os.Open("/var/run/netns/" + ns)
	if err != nil {
		t.Fatal(err)
	}
	defer far.Close()
	if err := unix.Setns(int(far.Fd()), unix.CLONE_NEWNET); err != nil {
		t.Fatal(err)
	}
	fd, serr := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err := unix.Setns(int(self.Fd()), unix.CLONE_NEWNET); err != nil {
		t.Fatal(err) // the thread stays locked: it is in the wrong namespace
	}
	runtime.UnlockOSThread()
	if serr != nil {
		t.Fatal(serr)
	}
	t.Cleanup(func() { unix.Close(fd) })
	return fd
}

// TestGroupListenerHearsThisHostOnly: the group's datagram from another
// host (a namespace of its own behind a veth) reaches a member joined on
// the veth, but not ListenGroup's socket, which hears what this host
// sends.
func TestGroupListenerHearsThisHostOnly(t *testing.T) {
	a, b := netip.MustParseAddr("10.231.12.1"), netip.MustParseAddr("10.231.12.2")
	_, eb := netns.Veth(t, a, b)
	ctx := context.Background()
	far, del, err := netns.Create(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer del()
	for _, args := range [][]string{
		{"link", "set", eb, "netns", far},
		{"-n", far, "addr", "add", b.String() + "/24", "dev", eb},
		{"-n", far, "link", "set", eb, "multicast", "on", "up"},
	} {
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			t.Fatalf("ip %v: %v: %s", args, err, out)
		}
	}
	port, _ := DefaultPorts().MetatrafficMulticast(12)
	members, listener := groupSockets(t, port, a, loopback)

	fd := socketIn(t, far)
	if err := unix.SetsockoptInet4Addr(fd, unix.IPPROTO_IP, unix.IP_MULTICAST_IF, b.As4()); err != nil {
		t.Fatal(err)
	}
	if err := unix.Sendto(fd, []byte("far"), 0, &unix.SockaddrInet4{Addr: SPDPGroup().As4(), Port: int(port)}); err != nil {
		t.Fatal(err)
	}
	if got := receive(t, members[0]); got != "far" {
		t.Fatalf("the member on the veth got %q", got)
	}
	sender, _ := loopbackPair(t)
	if err := sender.WriteTo([]byte("host"), netip.AddrPortFrom(SPDPGroup(), port)); err != nil {
		t.Fatal(err)
	}
	if got := receive(t, listener); got != "host" {
		t.Fatalf("the group's listener took %q before this host's datagram", got)
	}
}
