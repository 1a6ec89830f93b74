package tcpros

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/apislave"
	"github.com/bluenviron/goroslib/v2/pkg/protocommon"
	"github.com/bluenviron/goroslib/v2/pkg/prototcp"
)

// Connection limits.
const (
	readBuffer       = 64 << 10
	maxMessage       = 16 << 20 // goroslib's bound too
	handshakeTimeout = 10 * time.Second
	// pauseLowat is the receive low-water mark between batches: above what
	// a pause gathers of a sensor topic, below half the default receive
	// buffer (Linux would grow the buffer and clamp the window otherwise).
	pauseLowat = 16 << 10
)

// ErrBadMessage means a publisher sent a message length no topic needs.
var ErrBadMessage = errors.New("bad TCPROS message")

// errUnwanted means the publisher speaks another type or topic, names
// itself another node than the master lists at its URI, or refused the
// connection.
var errUnwanted = errors.New("publisher does not match")

// receive connects to pub (at its slave API) and delivers
// batches until ctx ends or the connection fails. connected runs once the
// handshake succeeded.
func (s *Subscription) receive(ctx context.Context, pub publisher, connected func()) error {
	uri := pub.uri
	addr, err := s.requestTopic(ctx, uri)
	if err != nil {
		return err
	}
	conn, err := (&net.Dialer{Timeout: rpcTimeout}).DialContext(ctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("connect to %s: %w", addr, err)
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() }) // unblocks reads
	defer stop()

	// noted is the fresh-request number as the current read began: the
	// pause notes it when it ends, the only place a read is about to begin
	// after waiting (a read that follows a batch at once keeps the older
	// number, which can only delay an answer, never give a stale one).
	// Finding the socket empty answers like a delivery: every complete
	// message received was delivered before a read can block.
	var noted uint64
	var receiving atomic.Bool // false during the handshake
	r := bufio.NewReaderSize(quietReader(conn, func() {
		if receiving.Load() {
			s.fresh.caughtUp(noted)
		}
	}), readBuffer)
	publisher, err := s.handshake(conn, r, pub.node)
	if err != nil {
		return fmt.Errorf("%s at %s: %w", uri, addr, err)
	}
	s.connected(publisher, 1)
	defer s.connected(publisher, -1)
	connected()
	// A reader that ends has nothing more to deliver: a request it was
	// woken for must not wait for it (other readers, woken too, answer
	// if they read first).
	defer s.fresh.caughtUp(math.MaxUint64)
	noted = s.fresh.noted()
	receiving.Store(true)
	wait := s.fresh.pacer(ctx, s.cfg.Every)
	err = readBatches(r, s.cfg.all, func(b []byte, n int) {
		if s.cfg.Count != nil {
			s.cfg.Count(n)
		}
		s.deliver(b, publisher)
		s.fresh.caughtUp(noted)
	}, func() error {
		err := wait()
		noted = s.fresh.noted()
		return err
	})
	if ctx.Err() != nil {
		return nil
	}
	return fmt.Errorf("%s at %s: %w", uri, addr, err)
}

// requestTopic asks the publisher where to connect over TCPROS.
func (s *Subscription) requestTopic(ctx context.Context, uri string) (string, error) {
	host, err := hostOf(uri)
	if err != nil {
		return "", err
	}
	var res apislave.ResponseRequestTopic
	req := apislave.RequestRequestTopic{CallerID: s.cfg.CallerID, Topic: s.cfg.Topic, Protocols: [][]any{{"TCPROS"}}}
	if err := s.call(ctx, host, "requestTopic", req, &res); err != nil {
		return "", fmt.Errorf("requestTopic to %s: %w", uri, err)
	}
	if res.Code != 1 {
		return "", fmt.Errorf("requestTopic to %s: code %d: %s", uri, res.Code, res.StatusMessage)
	}
	p := res.Protocol
	if len(p) != 3 || p[0] != "TCPROS" {
		return "", fmt.Errorf("requestTopic to %s: unexpected protocol %v", uri, p)
	}
	h, okH := p[1].(string)
	port, okP := p[2].(int)
	if !okH || !okP {
		return "", fmt.Errorf("requestTopic to %s: unexpected protocol %v", uri, p)
	}
	return net.JoinHostPort(h, strconv.Itoa(port)), nil
}

// handshake exchanges connection headers and checks the publisher's type;
// it returns the caller ID the publisher gave (its URI's host when none).
func (s *Subscription) handshake(conn net.Conn, r *bufio.Reader, node string) (string, error) {
	if err := conn.SetDeadline(time.Now().Add(handshakeTimeout)); err != nil {
		return "", err
	}
	// goroslib's own subscriber header and encoder: one header format.
	var hdr bytes.Buffer
	if err := protocommon.HeaderEncode(&hdr, &prototcp.HeaderSubscriber{Callerid: s.cfg.CallerID, Topic: s.cfg.Topic,
		Type: s.cfg.Type, Md5sum: s.cfg.MD5, MessageDefinition: s.cfg.Definition, TcpNodelay: 1}); err != nil {
		return "", fmt.Errorf("encode header: %w", err)
	}
	if _, err := conn.Write(hdr.Bytes()); err != nil {
		return "", fmt.Errorf("send header: %w", err)
	}
	got, err := readHeader(r)
	if err != nil {
		return "", err
	}
	if e, ok := got["error"]; ok {
		return "", fmt.Errorf("%w: publisher refused: %s", errUnwanted, e)
	}
	if got["md5sum"] != s.cfg.MD5 {
		return "", fmt.Errorf("%w: it sends %s (md5 %s), want %s (md5 %s)", errUnwanted, got["type"], got["md5sum"], s.cfg.Type, s.cfg.MD5)
	}
	if t, ok := got["topic"]; ok && t != s.cfg.Topic {
		return "", fmt.Errorf("%w: it publishes %s, want %s", errUnwanted, t, s.cfg.Topic)
	}
	// A publisher is the node the master lists at its URI: one that
	// names itself another node (whose frames it would speak for) is
	// not read, and one the master has not named yet is known by its
	// address, never by the name it gives itself.
	switch claimed := got["callerid"]; {
	case node == "":
		return "unnamed publisher at " + conn.RemoteAddr().String(), conn.SetDeadline(time.Time{})
	case claimed != "" && claimed != node:
		return "", fmt.Errorf("%w: it calls itself %s, the master lists %s there", errUnwanted, claimed, node)
	}
	return node, conn.SetDeadline(time.Time{})
}

// readBatches reads length-prefixed messages from r. Of the messages one
// read brought in, only the newest complete one goes to fn (its bytes are
// valid during the call), or every one with all; then pause, if not nil, waits before the next
// read, so a fast publisher's messages pile up and cost one read per batch.
// There is no pause while catching up on a buffer half full or more.
func readBatches(r *bufio.Reader, all bool, fn func(newest []byte, n int), pause func() error) error {
	var buf []byte
	for {
		batch, n := 0, 0
		for {
			var err error
			if buf, err = readMessage(r, buf); err != nil {
				return err
			}
			batch += 4 + len(buf)
			n++
			if !completeBuffered(r) {
				break
			}
			if all {
				fn(buf, 1)
				n = 0
			}
		}
		fn(buf, n)
		if pause == nil || batch >= r.Size()/2 {
			continue
		}
		if err := pause(); err != nil {
			return err
		}
	}
}

// readMessage reads one message into buf's storage and returns it.
func readMessage(r *bufio.Reader, buf []byte) ([]byte, error) {
	l, err := r.Peek(4)
	if err != nil {
		return nil, fmt.Errorf("read message length: %w", err)
	}
	n := binary.LittleEndian.Uint32(l)
	if n > maxMessage {
		return nil, fmt.Errorf("%w: length %d, at most %d", ErrBadMessage, n, maxMessage)
	}
	_, _ = r.Discard(4) // peeked: cannot fail
	if cap(buf) < int(n) {
		buf = make([]byte, n)
	}
	buf = buf[:n]
	if _, err := io.ReadFull(r, buf); err != nil {
		return nil, fmt.Errorf("read message: %w", err)
	}
	return buf, nil
}

// completeBuffered reports whether r holds another whole message.
func completeBuffered(r *bufio.Reader) bool {
	if r.Buffered() < 4 {
		return false
	}
	l, _ := r.Peek(4)
	return uint64(r.Buffered()-4) >= uint64(binary.LittleEndian.Uint32(l))
}
