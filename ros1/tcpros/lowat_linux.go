//go:build linux

package tcpros

import (
	"fmt"
	"io"
	"net"
	"syscall"
)

// quietReader reads conn with its receive low-water mark (SO_RCVLOWAT)
// kept at pauseLowat, so data arriving while the reader pauses between
// batches does not wake the runtime's netpoller: edge-triggered epoll
// fires on every arrival otherwise, and each wake-up costs about as much
// as a read. Only a read that finds nothing lowers the mark to one byte
// to wait; a failure to set the mark only costs wake-ups. empty is called
// when a read finds nothing and is about to wait.
func quietReader(conn net.Conn, empty func()) io.Reader {
	sc, ok := conn.(syscall.Conn)
	if !ok {
		return conn
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return conn
	}
	_ = raw.Control(func(fd uintptr) { setLowat(fd, pauseLowat) })
	return &quiet{raw: raw, empty: empty}
}

type quiet struct {
	raw   syscall.RawConn
	empty func()
}

func (q *quiet) Read(p []byte) (int, error) {
	var n int
	var err error
	waited := false
	cerr := q.raw.Read(func(fd uintptr) bool {
		for {
			n, err = syscall.Read(int(fd), p)
			if err != syscall.EINTR {
				break
			}
		}
		if err == syscall.EAGAIN {
			if !waited {
				waited = true
				setLowat(fd, 1)
				q.empty()
			}
			return false // the runtime waits for readability and calls again
		}
		if waited {
			setLowat(fd, pauseLowat)
		}
		return true
	})
	switch {
	case cerr != nil:
		return 0, cerr
	case err != nil:
		return 0, fmt.Errorf("read: %w", err)
	case n == 0 && len(p) > 0:
		return 0, io.EOF
	}
	return n, nil
}

func setLowat(fd uintptr, n int) {
	_ = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVLOWAT, n)
}
