package udp

import (
	"net/netip"
	"os"
	"sync"
	"syscall"
	"unsafe"
)

// rawIO is recvfrom(2) or sendto(2) on the non-blocking socket without
// the runtime's system-call bookkeeping (RawSyscall): each call returns at
// once, and waiting for the socket stays with the netpoller (RawConn.Read
// and Write wait when the call says EAGAIN). The runtime's entersyscall
// wakes its monitor thread when the process was idle; with the thread
// switches that brings, it took about 40 % of a bare Go receiver's CPU at
// 1,000 datagrams a second on this project's 2-core hosts (7.2–8.7 % of a
// core against 4.6–4.9 %, docs/bench.md). Its state is kept per Conn, one
// call at a time (mu), so that a read or a write allocates nothing.
type rawIO struct {
	mu    sync.Mutex
	buf   []byte
	sa    syscall.RawSockaddrInet4 // the source read, or the destination
	size  uint32                   // of sa, for recvfrom
	n     int
	errno syscall.Errno
	call  func(fd uintptr) bool // recv or send, bound once
}

func newRawIO(send bool) *rawIO {
	o := &rawIO{}
	o.call = o.recv
	if send {
		o.call = o.send
	}
	return o
}

func (o *rawIO) recv(fd uintptr) bool {
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

func (o *rawIO) send(fd uintptr) bool {
	for {
		_, _, e := syscall.RawSyscall6(syscall.SYS_SENDTO, fd, uintptr(unsafe.Pointer(unsafe.SliceData(o.buf))), uintptr(len(o.buf)),
			0, uintptr(unsafe.Pointer(&o.sa)), syscall.SizeofSockaddrInet4)
		switch e {
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return false // the send buffer is full: wait for room
		}
		o.errno = e
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
	err := c.rc.Read(o.call)
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

// sendTo sends b to the IPv4 dst in one datagram.
func (c *Conn) sendTo(b []byte, dst netip.AddrPort) error {
	o := c.wr
	o.mu.Lock()
	defer o.mu.Unlock()
	o.buf, o.errno = b, 0
	o.sa = syscall.RawSockaddrInet4{Family: syscall.AF_INET, Addr: dst.Addr().As4()}
	setNetworkOrder(&o.sa.Port, dst.Port())
	err := c.rc.Write(o.call)
	o.buf = nil
	if err != nil {
		return err
	}
	if o.errno != 0 {
		return os.NewSyscallError("sendto", o.errno)
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
