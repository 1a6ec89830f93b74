//go:build !unix

package tcpros

import (
	"io"
	"net"
)

// quietReader is conn where SO_RCVLOWAT cannot be set: every arriving
// message may wake the runtime, which only costs CPU.
func quietReader(conn net.Conn) io.Reader { return conn }
