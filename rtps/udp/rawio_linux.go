package udp

import (
	"fmt"
	"net"
	"net/netip"
	"os"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// rawIO is recvfrom(2) on the non-blocking socket without the runtime's
// system-call bookkeeping (RawSyscall): each call returns at once, and
// waiting for a datagram stays with the netpoller (RawConn.Read waits when
// the call says EAGAIN). The runtime's entersyscall wakes its monitor
// thread when the process was idle; with the thread switches that brings,
// it took about 40 % of a bare Go receiver's CPU at 1,000 datagrams a
// second on this project's 2-core hosts (7.2–8.7 % of a core against
// 4.6–4.9 %, docs/bench.md). Its state is kept per Conn, one call at a
// time (mu), so that a read allocates nothing; sendTo does the same for
// sending (see sender).
type rawIO struct {
	mu    sync.Mutex
	buf   []byte
	sa    syscall.RawSockaddrInet4 // the source
	size  uint32                   // of sa
	n     int
	errno syscall.Errno
	recv  func(fd uintptr) bool // bound once
}

func newRawIO() *rawIO {
	o := &rawIO{}
	o.recv = o.tryRecv
	return o
}

// tryRecv reads one datagram if one is waiting (false: none is).
func (o *rawIO) tryRecv(fd uintptr) bool {
	for {
		o.size = syscall.SizeofSockaddrInet4
		r, _, e := syscall.RawSyscall6(syscall.SYS_RECVFROM, fd, uintptr(unsafe.Pointer(unsafe.SliceData(o.buf))), uintptr(len(o.buf)),
			0, uintptr(unsafe.Pointer(&o.sa)), uintptr(unsafe.Pointer(&o.size)))
		switch e {
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return false // the netpoller waits for the next datagram
		}
		o.n, o.errno = int(r), e
		return true
	}
}

// recvFrom reads one datagram into buf.
func (c *Conn) recvFrom(buf []byte) (int, netip.AddrPort, error) {
	if len(buf) == 0 {
		return 0, netip.AddrPort{}, ErrTooLarge
	}
	o := c.rd
	o.mu.Lock()
	defer o.mu.Unlock()
	o.buf, o.n, o.errno, o.sa = buf, 0, 0, syscall.RawSockaddrInet4{}
	err := c.rc.Read(o.recv)
	o.buf = nil
	var from netip.AddrPort
	if o.sa.Family == syscall.AF_INET {
		from = netip.AddrPortFrom(netip.AddrFrom4(o.sa.Addr), networkOrder(&o.sa.Port))
	}
	switch {
	case err != nil:
		return 0, from, err // net.ErrClosed once closed
	case o.errno != 0:
		return 0, from, os.NewSyscallError("recvfrom", o.errno)
	}
	return o.n, from, nil
}

// sendTimeout bounds how long a send waits for room in a full send
// buffer (SO_SNDTIMEO; a signal starts the wait again).
const sendTimeout = time.Second

// sender is the socket a Conn sends from: bound to the Conn's interface
// address on a port of its own, never read, and not in the runtime's
// netpoller. A socket the netpoller watches is woken for writing
// (EPOLLOUT) each time the kernel frees a datagram it sent, which on
// loopback is at once: every datagram sent woke an idle thread of ours,
// one thread switch each. A 64 KB writer switched threads 27–30k times a
// second, 11–12k from a send socket; CycloneDDS, too, sends from a socket
// it does not read.
type sender struct {
	mu   sync.Mutex // one send at a time, and none while closing
	fd   int        // -1 once closed
	port uint16
	sa   syscall.RawSockaddrInet4 // the destination, kept here so that a send allocates nothing
}

// openSender opens the send socket on ifaddr's interface: multicast it
// sends leaves through that interface only (setMulticastSender).
func openSender(ifaddr netip.Addr) (*sender, error) {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, unix.IPPROTO_UDP)
	if err != nil {
		return nil, fmt.Errorf("udp: send socket on %v: %w", ifaddr, os.NewSyscallError("socket", err))
	}
	tv := unix.NsecToTimeval(sendTimeout.Nanoseconds())
	err = os.NewSyscallError("bind", unix.Bind(fd, &unix.SockaddrInet4{Addr: ifaddr.As4()}))
	if err == nil {
		err = os.NewSyscallError("setsockopt SO_SNDTIMEO", unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_SNDTIMEO, &tv))
	}
	if err == nil {
		err = setMulticastSender(fd, ifaddr)
	}
	var sa unix.Sockaddr
	if err == nil {
		sa, err = unix.Getsockname(fd)
		err = os.NewSyscallError("getsockname", err)
	}
	if err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("udp: send socket on %v: %w", ifaddr, err)
	}
	return &sender{fd: fd, port: uint16(sa.(*unix.SockaddrInet4).Port)}, nil
}

// sendTo sends b to the IPv4 dst in one datagram, from the send socket.
// The socket blocks: a send tries without waiting first (MSG_DONTWAIT, no
// bookkeeping), and only when the send buffer is full waits for room as
// a system call the runtime accounts for, up to sendTimeout
// (ErrSendTimeout after).
func (c *Conn) sendTo(b []byte, dst netip.AddrPort) error {
	o := c.tx
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.fd < 0 {
		return net.ErrClosed
	}
	o.sa = syscall.RawSockaddrInet4{Family: syscall.AF_INET, Addr: dst.Addr().As4()}
	setNetworkOrder(&o.sa.Port, dst.Port())
	// The pointers are converted in the calls themselves, so that b and
	// o.sa stay alive and in place for them (unsafe.Pointer rule 4).
	for {
		_, _, e := syscall.RawSyscall6(syscall.SYS_SENDTO, uintptr(o.fd), uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)),
			syscall.MSG_DONTWAIT, uintptr(unsafe.Pointer(&o.sa)), syscall.SizeofSockaddrInet4)
		if e == syscall.EAGAIN {
			_, _, e = syscall.Syscall6(syscall.SYS_SENDTO, uintptr(o.fd), uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)),
				0, uintptr(unsafe.Pointer(&o.sa)), syscall.SizeofSockaddrInet4)
			if e == syscall.EAGAIN {
				return fmt.Errorf("%w: %v to %v", ErrSendTimeout, sendTimeout, dst)
			}
		}
		switch e {
		case syscall.EINTR:
			continue
		case 0:
			return nil
		}
		return os.NewSyscallError("sendto", e)
	}
}

// close closes the send socket once no send is under way.
func (o *sender) close() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.fd < 0 {
		return nil
	}
	err := unix.Close(o.fd)
	o.fd = -1
	return err
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
