package bench

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"syscall"
	"time"

	"github.com/actbridge/actbridge/rtps/wire"
)

// wireTap is the ROS 2 rows' observer of "on the wire": a receive-only
// AF_PACKET socket in the bench's network namespace whose every packet
// carries the kernel's timestamp of when it was handed to the device
// (SO_TIMESTAMPNS, the wall clock time.Now reads). It sends nothing and
// matches no endpoint, so the bridge writes exactly what it writes with
// the sim alone, and its own wake-up is not in the numbers: the stamp is
// taken on the sender's path. Only the outgoing copy of a loopback packet
// is read.
type wireTap struct {
	fd   int
	mu   sync.Mutex
	want []*tapWatch
	done chan struct{}
}

// tapWatch collects the DATA submessages of one writer while watched.
type tapWatch struct {
	writer wire.GUID
	got    chan tapped // the first few, in order; later ones are dropped
}

// tapped is one DATA submessage seen leaving: the kernel's stamp and the
// serialized payload (encapsulation header included), copied.
type tapped struct {
	at      time.Time
	payload []byte
}

// errTapTimeout means the DATA waited for did not leave in time.
var errTapTimeout = errors.New("bench: no such DATA on the wire")

// newWireTap opens the socket (root, in a namespace of ours) and reads it
// until ctx ends.
func newWireTap(ctx context.Context) (*wireTap, error) {
	const ethPAll = 0x0300 // htons(ETH_P_ALL)
	fd, err := syscall.Socket(syscall.AF_PACKET, syscall.SOCK_DGRAM, ethPAll)
	if err != nil {
		return nil, fmt.Errorf("packet socket: %w", err)
	}
	for _, o := range []struct{ opt, v int }{{syscall.SO_TIMESTAMPNS, 1}, {syscall.SO_RCVBUF, 4 << 20}} {
		if err := syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, o.opt, o.v); err != nil {
			syscall.Close(fd)
			return nil, fmt.Errorf("packet socket option %d: %w", o.opt, err)
		}
	}
	// A read wakes at least every 100 ms, so the loop sees ctx end.
	tv := syscall.NsecToTimeval(int64(100 * time.Millisecond))
	if err := syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, syscall.SO_RCVTIMEO, &tv); err != nil {
		syscall.Close(fd)
		return nil, err
	}
	t := &wireTap{fd: fd, done: make(chan struct{})}
	go t.read(ctx)
	return t, nil
}

// wait waits for the reading goroutine (ended by the ctx given to
// newWireTap) and closes the socket.
func (t *wireTap) wait() {
	<-t.done
	syscall.Close(t.fd)
}

// watch starts collecting the DATA of writer; call it before what should
// send it, and find what was sent with seen.
func (t *wireTap) watch(writer wire.GUID) *tapWatch {
	w := &tapWatch{writer: writer, got: make(chan tapped, 16)}
	t.mu.Lock()
	t.want = append(t.want, w)
	t.mu.Unlock()
	return w
}

// seen returns the first DATA w collected whose payload holds needle
// (any, when nil), or errTapTimeout after limit; either way w is no
// longer watched.
func (t *wireTap) seen(w *tapWatch, needle []byte, limit time.Duration) (tapped, error) {
	defer t.forget(w)
	timeout := time.After(limit)
	for {
		select {
		case d := <-w.got:
			if needle == nil || bytes.Contains(d.payload, needle) {
				return d, nil
			}
		case <-timeout:
			return tapped{}, fmt.Errorf("%w: writer %v within %v", errTapTimeout, w.writer, limit)
		}
	}
}

func (t *wireTap) forget(w *tapWatch) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for i, x := range t.want {
		if x == w {
			t.want = append(t.want[:i], t.want[i+1:]...)
			return
		}
	}
}

func (t *wireTap) read(ctx context.Context) {
	defer close(t.done)
	buf, oob := make([]byte, 1<<16), make([]byte, 256)
	for ctx.Err() == nil {
		n, oobn, _, from, err := syscall.Recvmsg(t.fd, buf, oob, 0)
		if err != nil {
			continue // the 100 ms timeout, or EINTR
		}
		if ll, ok := from.(*syscall.SockaddrLinklayer); !ok || ll.Pkttype != syscall.PACKET_OUTGOING {
			continue
		}
		at, ok := kernelStamp(oob[:oobn])
		if !ok {
			continue
		}
		t.match(buf[:n], at)
	}
}

// kernelStamp reads the SCM_TIMESTAMPNS control message.
func kernelStamp(oob []byte) (time.Time, bool) {
	cms, err := syscall.ParseSocketControlMessage(oob)
	if err != nil {
		return time.Time{}, false
	}
	for _, c := range cms {
		// struct timespec: two 64-bit words on the 64-bit Linux this runs on.
		if c.Header.Level == syscall.SOL_SOCKET && c.Header.Type == syscall.SCM_TIMESTAMPNS && len(c.Data) >= 16 {
			sec := int64(binary.NativeEndian.Uint64(c.Data[0:]))
			nsec := int64(binary.NativeEndian.Uint64(c.Data[8:]))
			return time.Unix(sec, nsec), true
		}
	}
	return time.Time{}, false
}

// match hands the DATA submessages of an IPv4 UDP packet holding an RTPS
// message to the watches waiting for them.
func (t *wireTap) match(pkt []byte, at time.Time) {
	if len(pkt) < 20 || pkt[0]>>4 != 4 || pkt[9] != syscall.IPPROTO_UDP {
		return
	}
	ihl := int(pkt[0]&15) * 4
	if len(pkt) < ihl+8 {
		return
	}
	t.mu.Lock()
	idle := len(t.want) == 0
	t.mu.Unlock()
	if idle {
		return
	}
	var m wire.Message
	if m.Unmarshal(pkt[ihl+8:]) != nil {
		return
	}
	for _, sm := range m.Submessages {
		d, ok := sm.(*wire.Data)
		if !ok || d.Payload == nil {
			continue
		}
		g := wire.GUID{Prefix: m.Header.Prefix, Entity: d.WriterID}
		t.mu.Lock()
		for _, w := range t.want {
			if w.writer == g {
				select {
				case w.got <- tapped{at: at, payload: bytes.Clone(d.Payload)}:
				default:
				}
			}
		}
		t.mu.Unlock()
	}
}
