package udp

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"sync"

	"golang.org/x/sys/unix"
)

// ListenGroup binds group:port, shared with the host's other sockets of
// that port (SO_REUSEADDR), without joining the group. It hears the
// group's datagrams on every interface where some socket of the host
// joined it (IP_MULTICAST_ALL, Linux's default, admits a group the socket
// did not join itself), and no unicast: bound to the group's address, it
// never takes a unicast datagram meant for the port's other sockets.
// Joining nothing, it makes the host send no IGMP report. Its ReadFrom
// passes only what this host sent: a group another process joined on
// Ethernet also brings the LAN's datagrams.
func ListenGroup(group netip.Addr, port uint16) (*Conn, error) {
	if !group.Is4() || !group.IsMulticast() {
		return nil, fmt.Errorf("%w: group %v", ErrNotIPv4, group)
	}
	// Made by hand: net.ListenPacket binds a multicast address as the
	// wildcard, which would take unicast too.
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC|unix.SOCK_NONBLOCK, unix.IPPROTO_UDP)
	if err != nil {
		return nil, os.NewSyscallError("socket", err)
	}
	setReceiveBuffer(fd)
	// SO_REUSEADDR alone: with SO_REUSEPORT, sockets bound to one group
	// and port would share its datagrams instead of each getting them.
	err = os.NewSyscallError("setsockopt", unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1))
	if err == nil {
		err = os.NewSyscallError("setsockopt", unix.SetsockoptInt(fd, unix.IPPROTO_IP, unix.IP_MULTICAST_ALL, 1))
	}
	if err == nil {
		err = os.NewSyscallError("bind", unix.Bind(fd, &unix.SockaddrInet4{Addr: group.As4(), Port: int(port)}))
	}
	if err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("udp: listen on %v:%d: %w", group, port, err)
	}
	f := os.NewFile(uintptr(fd), "group")
	pc, err := net.FilePacketConn(f)
	f.Close()
	if err != nil {
		return nil, err
	}
	// The Conn's send socket is a loopback one: this Conn only receives.
	c, err := newConn(pc, netip.AddrFrom4([4]byte{127, 0, 0, 1}), port)
	if err != nil {
		return nil, err
	}
	c.hostOnly = true
	return c, nil
}

// HostMulticast sends a datagram to a multicast group out of every
// interface of the host that is up and can multicast (and loopback),
// with TTL 0 and multicast loopback on. Linux delivers such a datagram to
// the host's sockets that joined the group on that interface and
// transmits nothing: ip_mc_output loops a copy back and then drops a
// multicast with TTL 0 ("must not go beyond the host"). So it reaches
// every participant of the host, whichever interface it listens on, and
// no other host.
type HostMulticast struct {
	mu sync.Mutex
	fd int // -1 once closed
}

// OpenHostMulticast opens the send socket of a HostMulticast.
func OpenHostMulticast() (*HostMulticast, error) {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, unix.IPPROTO_UDP)
	if err != nil {
		return nil, os.NewSyscallError("socket", err)
	}
	if err = unix.SetsockoptInt(fd, unix.IPPROTO_IP, unix.IP_MULTICAST_TTL, 0); err == nil {
		err = unix.SetsockoptInt(fd, unix.IPPROTO_IP, unix.IP_MULTICAST_LOOP, 1)
	}
	if err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("udp: host multicast socket: %w", os.NewSyscallError("setsockopt", err))
	}
	return &HostMulticast{fd: fd}, nil
}

// Interfaces are the interfaces WriteTo sends on now: up, and multicast
// capable or loopback.
func (h *HostMulticast) Interfaces() ([]net.Interface, error) {
	ifs, err := net.Interfaces()
	if err != nil {
		return nil, err
	}
	out := ifs[:0]
	for _, fi := range ifs {
		if fi.Flags&net.FlagUp != 0 && fi.Flags&(net.FlagMulticast|net.FlagLoopback) != 0 {
			out = append(out, fi)
		}
	}
	return out, nil
}

// WriteTo sends b to the group dst once on each of Interfaces, without
// waiting for room in a full send buffer. It fails only when it reached
// no interface.
func (h *HostMulticast) WriteTo(b []byte, dst netip.AddrPort) error {
	if !dst.Addr().Is4() || !dst.Addr().IsMulticast() {
		return fmt.Errorf("%w: %v is not an IPv4 group", ErrUnreachable, dst)
	}
	ifs, err := h.Interfaces()
	if err != nil {
		return err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.fd < 0 {
		return net.ErrClosed
	}
	sa := &unix.SockaddrInet4{Addr: dst.Addr().As4(), Port: int(dst.Port())}
	var errs []error
	for _, fi := range ifs {
		err := unix.SetsockoptIPMreqn(h.fd, unix.IPPROTO_IP, unix.IP_MULTICAST_IF, &unix.IPMreqn{Ifindex: int32(fi.Index)})
		if err == nil {
			err = unix.Sendto(h.fd, b, unix.MSG_DONTWAIT, sa)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", fi.Name, err))
		}
	}
	if len(errs) == len(ifs) {
		return fmt.Errorf("udp: host multicast to %v: %w", dst, errors.Join(append(errs, ErrNoMulticast)...))
	}
	return nil
}

// Close closes the send socket; WriteTo fails with net.ErrClosed after.
func (h *HostMulticast) Close() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.fd < 0 {
		return nil
	}
	err := unix.Close(h.fd)
	h.fd = -1
	return err
}
