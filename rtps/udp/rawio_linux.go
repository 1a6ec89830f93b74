package udp

import (
	"net/netip"
	"os"
	"syscall"
	"unsafe"
)

// recvFrom and sendTo are recvfrom(2) and sendto(2) on the non-blocking
// socket without the runtime's system-call bookkeeping (RawSyscall): each
// returns at once, and waiting for the socket stays with the netpoller
// (RawConn.Read and Write wait when the call says EAGAIN). The runtime's
// entersyscall wakes its monitor thread when the process was idle; with
// the thread switches that brings, it took about 40 % of a bare Go
// receiver's CPU at 1,000 datagrams a second on this project's 2-core
// hosts (7.2–8.7 % of a core against 4.6–4.9 %, docs/bench.md).
func (c *Conn) recvFrom(buf []byte) (int, netip.AddrPort, error) {
	if len(buf) == 0 {
		return 0, netip.AddrPort{}, ErrTooLarge
	}
	var (
		n     int
		from  netip.AddrPort
		errno syscall.Errno
	)
	err := c.rc.Read(func(fd uintptr) bool {
		var sa syscall.RawSockaddrInet4
		for {
			size := uint32(syscall.SizeofSockaddrInet4)
			r, _, e := syscall.RawSyscall6(syscall.SYS_RECVFROM, fd, uintptr(unsafe.Pointer(unsafe.SliceData(buf))), uintptr(len(buf)),
				0, uintptr(unsafe.Pointer(&sa)), uintptr(unsafe.Pointer(&size)))
			switch e {
			case syscall.EINTR:
				continue
			case syscall.EAGAIN:
				return false // the netpoller waits for the next datagram
			}
			n, errno = int(r), e
			if e == 0 && sa.Family == syscall.AF_INET {
				from = netip.AddrPortFrom(netip.AddrFrom4(sa.Addr), networkOrder(&sa.Port))
			}
			return true
		}
	})
	switch {
	case err != nil:
		return 0, from, err // net.ErrClosed once closed
	case errno != 0:
		return 0, from, os.NewSyscallError("recvfrom", errno)
	}
	return n, from, nil
}

// sendTo sends b to the IPv4 dst in one datagram.
func (c *Conn) sendTo(b []byte, dst netip.AddrPort) error {
	sa := syscall.RawSockaddrInet4{Family: syscall.AF_INET, Addr: dst.Addr().As4()}
	setNetworkOrder(&sa.Port, dst.Port())
	var errno syscall.Errno
	err := c.rc.Write(func(fd uintptr) bool {
		for {
			_, _, e := syscall.RawSyscall6(syscall.SYS_SENDTO, fd, uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)),
				0, uintptr(unsafe.Pointer(&sa)), syscall.SizeofSockaddrInet4)
			switch e {
			case syscall.EINTR:
				continue
			case syscall.EAGAIN:
				return false // the send buffer is full: wait for room
			}
			errno = e
			return true
		}
	})
	if err != nil {
		return err
	}
	if errno != 0 {
		return os.NewSyscallError("sendto", errno)
	}
	return nil
}

// networkOrder reads a port stored big-endian, as sockaddr_in holds it.
func networkOrder(p *uint16) uint16 {
	b := (*[2]byte)(unsafe.Pointer(p))
	return uint16(b[0])<<8 | uint16(b[1])
}

func setNetworkOrder(p *uint16, port uint16) {
	b := (*[2]byte)(unsafe.Pointer(p))
	b[0], b[1] = byte(port>>8), byte(port)
}
