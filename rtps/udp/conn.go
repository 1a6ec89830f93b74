package udp

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"runtime"
	"syscall"
)

// Errors of the transport.
var (
	// ErrUnreachable means a destination is off the socket's interface:
	// a loopback socket only sends to loopback and multicast addresses.
	ErrUnreachable = errors.New("udp: destination not reachable from this interface")
	// ErrNotIPv4 means an address is not IPv4.
	ErrNotIPv4 = errors.New("udp: not an IPv4 address")
	// ErrTooLarge means a received datagram exceeded the read buffer and
	// was dropped.
	ErrTooLarge = errors.New("udp: datagram larger than the buffer")
	// ErrSendTimeout means the kernel's send buffer stayed full for about
	// a second (a wedged interface): the datagram was not sent.
	ErrSendTimeout = errors.New("udp: send buffer full")
)

// Conn is a UDPv4 socket on one interface, for unicast or for one
// multicast group, and a second socket on that interface that sends
// (see sender); multicast it sends goes out of that interface only.
type Conn struct {
	pc     *net.UDPConn
	rc     syscall.RawConn // reads (see rawIO)
	rd     *rawIO
	tx     *sender
	ifaddr netip.Addr
	port   uint16
	own    ownAddrs
	// hostOnly drops what other hosts send (ListenGroup's).
	hostOnly bool
}

// newConn wraps a bound UDPv4 socket and opens its send socket.
func newConn(pc net.PacketConn, ifaddr netip.Addr, port uint16) (*Conn, error) {
	c := &Conn{pc: pc.(*net.UDPConn), ifaddr: ifaddr, port: port, rd: newRawIO()}
	rc, err := c.pc.SyscallConn()
	if err == nil {
		c.tx, err = openSender(ifaddr)
	}
	if err != nil {
		c.pc.Close()
		return nil, err
	}
	c.rc = rc
	// The receiving socket's own finalizer closes it when a Conn is
	// dropped unclosed; the send socket has none of its own.
	runtime.AddCleanup(c, func(tx *sender) { tx.close() }, c.tx)
	return c, nil
}

// ListenUnicast binds ifaddr:port (port 0: any free port) for exclusive
// use; its multicast sends leave through ifaddr's interface, loopback on.
func ListenUnicast(ctx context.Context, ifaddr netip.Addr, port uint16) (*Conn, error) {
	return listenUnicast(ctx, ifaddr, ifaddr, port)
}

// ListenUnicastAll is ListenUnicast bound to every address of the host
// (0.0.0.0:port) while it still sends from ifaddr. A peer of this host
// may send to our ifaddr locator through 127.0.0.1: Fast DDS does
// (UDPTransportInterface::transform_remote_locator), and a socket bound
// to ifaddr alone never heard it.
func ListenUnicastAll(ctx context.Context, ifaddr netip.Addr, port uint16) (*Conn, error) {
	return listenUnicast(ctx, netip.IPv4Unspecified(), ifaddr, port)
}

func listenUnicast(ctx context.Context, bind, ifaddr netip.Addr, port uint16) (*Conn, error) {
	if !ifaddr.Is4() {
		return nil, fmt.Errorf("%w: %v", ErrNotIPv4, ifaddr)
	}
	lc := net.ListenConfig{}
	pc, err := lc.ListenPacket(ctx, "udp4", netip.AddrPortFrom(bind, port).String())
	if err != nil {
		return nil, err
	}
	c, err := newConn(pc, ifaddr, uint16(pc.LocalAddr().(*net.UDPAddr).Port))
	if err != nil {
		return nil, err
	}
	if err := c.control(func(fd int) error { setReceiveBuffer(fd); return nil }); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// ListenMulticast binds port on all addresses, shared with other
// participants of the host (SO_REUSEADDR, SO_REUSEPORT), and joins group
// on ifaddr's interface only. It receives that group's datagrams and any
// unicast to the port.
func ListenMulticast(ctx context.Context, ifaddr, group netip.Addr, port uint16) (*Conn, error) {
	if !ifaddr.Is4() || !group.Is4() || !group.IsMulticast() {
		return nil, fmt.Errorf("%w: interface %v group %v", ErrNotIPv4, ifaddr, group)
	}
	lc := net.ListenConfig{Control: func(_, _ string, rc syscall.RawConn) error {
		var serr error
		if err := rc.Control(func(fd uintptr) { setReceiveBuffer(int(fd)); serr = setReuse(int(fd)) }); err != nil {
			return err
		}
		return serr
	}}
	pc, err := lc.ListenPacket(ctx, "udp4", fmt.Sprintf("0.0.0.0:%d", port))
	if err != nil {
		return nil, err
	}
	c, err := newConn(pc, ifaddr, port)
	if err != nil {
		return nil, err
	}
	if err := c.control(func(fd int) error { return joinGroup(fd, ifaddr, group) }); err != nil {
		c.Close()
		return nil, fmt.Errorf("udp: join %v on %v: %w", group, ifaddr, err)
	}
	return c, nil
}

func (c *Conn) control(f func(fd int) error) error {
	var ferr error
	if err := c.rc.Control(func(fd uintptr) { ferr = f(int(fd)) }); err != nil {
		return err
	}
	return ferr
}

// Port is the bound local port.
func (c *Conn) Port() uint16 { return c.port }

// Addr is the interface address the socket uses.
func (c *Conn) Addr() netip.Addr { return c.ifaddr }

// Reachable reports whether c may send to dst: anything multicast, and
// from loopback only loopback and the host's own addresses (the kernel
// delivers those through loopback too: a participant of this host that
// announces its Ethernet address is reached without leaving it).
func (c *Conn) Reachable(dst netip.Addr) bool {
	dst = dst.Unmap()
	if !dst.Is4() || dst.IsUnspecified() {
		return false
	}
	if c.ifaddr.IsLoopback() {
		return dst.IsLoopback() || dst.IsMulticast() || c.own.has(dst)
	}
	return true
}

// WriteTo sends one datagram to dst if Reachable allows it. It leaves
// from the send socket, on a port of its own, not from Port: DDS readers
// answer the locators a participant announces, not a datagram's source.
// While the kernel's send buffer is full it waits for room, up to about
// a second (ErrSendTimeout).
func (c *Conn) WriteTo(b []byte, dst netip.AddrPort) error {
	if !c.Reachable(dst.Addr()) {
		return fmt.Errorf("%w: %v from %v", ErrUnreachable, dst, c.ifaddr)
	}
	return c.sendTo(b, netip.AddrPortFrom(dst.Addr().Unmap(), dst.Port()))
}

// ReadFrom reads one datagram into buf. A datagram that fills buf is
// taken as truncated and reported as ErrTooLarge (with n 0), so give a
// buffer one octet larger than the largest datagram to accept.
func (c *Conn) ReadFrom(buf []byte) (int, netip.AddrPort, error) {
	for {
		n, src, err := c.recvFrom(buf)
		if err == nil && c.hostOnly && !src.Addr().IsLoopback() && !c.own.has(src.Addr()) {
			continue // another host's (see ListenGroup)
		}
		if err == nil && n == len(buf) {
			return 0, src, ErrTooLarge
		}
		return n, src, err
	}
}

// Close closes both sockets; a blocked ReadFrom returns net.ErrClosed,
// and so does WriteTo from then on. It waits for a send under way, which
// waits at most about a second for room (see WriteTo).
func (c *Conn) Close() error { return errors.Join(c.pc.Close(), c.tx.close()) }

// ErrNoMulticast means the interface cannot do multicast (down, flag off,
// or not found); use unicast peers instead.
var ErrNoMulticast = errors.New("udp: no multicast on this interface")
