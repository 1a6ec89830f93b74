//go:build !linux

package tcpros

import (
	"io"
	"net"
)

// quietReader is conn where SO_RCVLOWAT cannot be set or behaves other
// than on Linux (BSDs fail a non-blocking read below the mark): every
// arriving message may wake the runtime, which only costs CPU. Without a way to
// tell an empty socket, empty is never called (Fresh then waits for the
// next message).
func quietReader(conn net.Conn, empty func()) io.Reader { return conn }
