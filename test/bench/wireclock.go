package bench

import (
	"context"
	"net"
	"net/http"
	"sync/atomic"
	"time"
)

// wireClock notes when a client's connections first wrote after arm: the
// moment a request went on the wire, so a latency row can tell the client
// library's own time (building the request, handing it to the
// transport's writer) from everything after it.
type wireClock struct{ first atomic.Int64 } // unix nanoseconds; 0 once armed

// arm forgets the last write; the next one is noted.
func (c *wireClock) arm() { c.first.Store(0) }

// written is when the first write after arm began (zero if none did).
func (c *wireClock) written() time.Time {
	if n := c.first.Load(); n != 0 {
		return time.Unix(0, n)
	}
	return time.Time{}
}

func (c *wireClock) note() {
	if c.first.Load() == 0 { // a shared line only read while loads run
		c.first.CompareAndSwap(0, time.Now().UnixNano())
	}
}

// stampedTransport is clientTransport whose connections tell c when they write.
func stampedTransport(c *wireClock) *http.Transport {
	t := clientTransport()
	var d net.Dialer
	t.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return stampedConn{conn, c}, nil
	}
	return t
}

type stampedConn struct {
	net.Conn
	clock *wireClock
}

func (s stampedConn) Write(b []byte) (int, error) {
	s.clock.note()
	return s.Conn.Write(b)
}
