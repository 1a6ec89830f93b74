package udp

import (
	"fmt"
	"net"
	"net/netip"

	"golang.org/x/sys/unix"
)

func setReuse(fd int) error {
	if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1); err != nil {
		return err
	}
	return unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEPORT, 1)
}

// setMulticastSender sends multicast out of ifaddr's interface only, with
// TTL 1 (never routed) and loopback on (participants of this host hear it).
func setMulticastSender(fd int, ifaddr netip.Addr) error {
	if err := unix.SetsockoptInet4Addr(fd, unix.IPPROTO_IP, unix.IP_MULTICAST_IF, ifaddr.As4()); err != nil {
		return fmt.Errorf("IP_MULTICAST_IF %v: %w", ifaddr, err)
	}
	if err := unix.SetsockoptInt(fd, unix.IPPROTO_IP, unix.IP_MULTICAST_TTL, 1); err != nil {
		return err
	}
	return unix.SetsockoptInt(fd, unix.IPPROTO_IP, unix.IP_MULTICAST_LOOP, 1)
}

// joinGroup joins group on the interface that holds ifaddr and stops the
// socket from hearing groups other sockets of the host joined on its port.
func joinGroup(fd int, ifaddr, group netip.Addr) error {
	ifi, err := interfaceOf(ifaddr)
	if err != nil {
		return err
	}
	mreq := &unix.IPMreqn{Multiaddr: group.As4(), Address: ifaddr.As4(), Ifindex: int32(ifi.Index)}
	if err := unix.SetsockoptIPMreqn(fd, unix.IPPROTO_IP, unix.IP_ADD_MEMBERSHIP, mreq); err != nil {
		return err
	}
	return unix.SetsockoptInt(fd, unix.IPPROTO_IP, unix.IP_MULTICAST_ALL, 0)
}

// interfaceOf finds the multicast-capable interface that holds addr.
func interfaceOf(addr netip.Addr) (*net.Interface, error) {
	ifs, err := net.Interfaces()
	if err != nil {
		return nil, err
	}
	for i := range ifs {
		addrs, err := ifs[i].Addrs()
		if err != nil {
			continue
		}
		for _, a := range addrs {
			if p, err := netip.ParsePrefix(a.String()); err == nil && p.Addr() == addr {
				if ifs[i].Flags&net.FlagMulticast == 0 || ifs[i].Flags&net.FlagUp == 0 {
					return nil, fmt.Errorf("%w: interface %s is down or has multicast off", ErrNoMulticast, ifs[i].Name)
				}
				return &ifs[i], nil
			}
		}
	}
	return nil, fmt.Errorf("%w: no interface holds %v", ErrNoMulticast, addr)
}

// receiveBuffer is the socket receive buffer asked for: a 1 MB sample in
// CycloneDDS's DATA_FRAGs is some 780 datagrams sent in one burst, about
// 2 MB of kernel memory, ten times Linux's usual 208 KiB default.
const receiveBuffer = 4 << 20

// setReceiveBuffer asks for receiveBuffer octets. The kernel caps
// SO_RCVBUF at net.core.rmem_max; past it only SO_RCVBUFFORCE goes, with
// CAP_NET_ADMIN. Neither is an error when refused: a smaller buffer only
// loses more of a burst, which reliability repairs.
func setReceiveBuffer(fd int) {
	_ = unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUF, receiveBuffer)
	// The kernel reports twice what it grants (it counts its overhead).
	if got, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUF); err == nil && got >= 2*receiveBuffer {
		return
	}
	_ = unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUFFORCE, receiveBuffer)
}
