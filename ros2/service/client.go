package service

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/ros2/names"
	"github.com/actbridge/actbridge/rtps"
	"github.com/actbridge/actbridge/rtps/wire"
)

// Client calls one service. Each Call sends its request exactly once,
// only after a server's endpoints are matched and that server has
// acknowledged our announcements; it never resends. Close it to withdraw
// its endpoints.
type Client struct {
	e     *endpoints
	types Types
	id    uint64 // RequestHeader.GUID of our Cyclone-dialect requests

	mu      sync.Mutex
	seq     int64
	pending map[callKey]call
	closed  bool
	// foreign counts replies to our calls from a participant other than
	// the server called: ignored.
	foreign atomic.Uint64

	stop context.CancelFunc
	done chan struct{}
}

// callKey names an outstanding call by what its reply carries: the
// Cyclone header's seq, or the request's SN in the sample identity.
type callKey struct {
	d Dialect
	n int64
}

// call is an outstanding call: where its reply goes and the one
// participant it may come from.
type call struct {
	ch     chan reply
	server wire.GUIDPrefix
}

// reply is a call's answer and the participant whose reply writer sent
// it; a zero reply (closed channel) means the client closed.
type reply struct {
	msg  *cdr.Message
	from wire.GUIDPrefix
}

// Peer is the server a call went to: its participant, vendor, request
// reader and the dialect spoken.
type Peer struct {
	Prefix  wire.GUIDPrefix
	Vendor  wire.VendorID
	Reader  wire.GUID
	Dialect Dialect
}

// NewClient makes a client of the service named service (fully
// expanded, "/ns/svc") with the types ResolveTypes gave.
func NewClient(p *rtps.Participant, types Types, service string, o Options) (*Client, error) {
	o = o.withDefaults()
	rq, rr, err := names.ServiceDDS(service)
	if err != nil {
		return nil, err
	}
	e, err := newEndpoints(p, o, "clientid", rq, types.RequestDDS, rr, types.ResponseDDS, types.UserData)
	if err != nil {
		return nil, err
	}
	var id [8]byte
	if _, err := rand.Read(id[:]); err != nil {
		e.close()
		return nil, err
	}
	ctx, stop := context.WithCancel(context.Background())
	c := &Client{e: e, types: types, id: binary.LittleEndian.Uint64(id[:]), pending: map[callKey]call{}, stop: stop, done: make(chan struct{})}
	go c.receive(ctx)
	return c, nil
}

// Close withdraws the client; calls in flight fail with ErrClosed.
func (c *Client) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	c.mu.Unlock()
	c.stop()
	err := c.e.close()
	<-c.done
	return err
}

// Call sends req once to the one server of the service and returns the
// reply. Its errors say how far it got: ErrNoServer, ErrMixedDialects or
// ErrAmbiguousServer (nothing sent), ErrUndelivered (sent, never
// acknowledged, then withdrawn), ErrNoReply (delivered, no reply in
// time), ErrServerLost.
func (c *Client) Call(ctx context.Context, req *cdr.Message) (*cdr.Message, error) {
	rep, _, err := c.Exchange(ctx, req)
	return rep, err
}

// Exchange is ExchangeWith the service's one server.
func (c *Client) Exchange(ctx context.Context, req *cdr.Message) (*cdr.Message, Peer, error) {
	return c.ExchangeWith(ctx, req, wire.GUIDPrefix{})
}

// ExchangeWith is Call to the server on participant server (zero: the one
// participant serving the service; more than one is ErrAmbiguousServer,
// and nothing is sent), saying which server was called even when it fails
// after sending. The request is written to that server's reader alone
// (every other matched reader gets a GAP), and only a reply from that
// participant counts (Foreign counts the others). A call given up before
// the server acknowledged the request withdraws it (rtps.Writer.Withdraw):
// a link that heals later never delivers it.
func (c *Client) ExchangeWith(ctx context.Context, req *cdr.Message, server wire.GUIDPrefix) (*cdr.Message, Peer, error) {
	enc, err := c.Encode(req)
	if err != nil {
		return nil, Peer{}, err
	}
	return c.ExchangeEncoded(ctx, enc, server)
}

// Encoded is a request checked against the service's type and encoded,
// once, for ExchangeEncoded: a caller that must know a request encodes
// before it commits to sending it need not encode it twice.
type Encoded struct {
	client *Client
	body   []byte
}

// Encode checks req's type and encodes it for this client's service.
func (c *Client) Encode(req *cdr.Message) (Encoded, error) {
	if req == nil || req.Type != c.types.Request {
		name := "nil"
		if req != nil {
			name = req.Type.Name()
		}
		return Encoded{}, fmt.Errorf("service: request of type %s, want %s", name, c.types.Request.Name())
	}
	body, err := cdr.Encode(req, cdr.LittleEndian)
	if err != nil {
		return Encoded{}, err
	}
	return Encoded{client: c, body: body}, nil
}

// ExchangeEncoded is ExchangeWith for a request Encode made.
func (c *Client) ExchangeEncoded(ctx context.Context, enc Encoded, server wire.GUIDPrefix) (*cdr.Message, Peer, error) {
	if enc.client != c {
		return nil, Peer{}, fmt.Errorf("service: a request encoded by another client")
	}
	body := enc.body
	peer, err := c.WaitServerOn(ctx, server)
	if err != nil {
		return nil, peer, err
	}
	key, sn, ch, err := c.send(ctx, peer, body)
	if err != nil {
		return nil, peer, err
	}
	w := c.watch(ctx, []wire.GUID{peer.Reader}, sn)
	defer w.stop()
	select {
	case rep := <-ch:
		if rep.msg == nil {
			return nil, peer, ErrClosed
		}
		return rep.msg, peer, nil
	case <-ctx.Done():
	case <-w.gone:
	}
	c.mu.Lock()
	delete(c.pending, key)
	c.mu.Unlock()
	select {
	case rep := <-ch: // it came as the wait ended
		if rep.msg != nil {
			return rep.msg, peer, nil
		}
	default:
	}
	w.stop()
	if !w.delivered.Load() && !w.acknowledged() {
		c.e.w.Withdraw(sn)
	}
	how := ErrUndelivered
	if w.delivered.Load() || w.acknowledged() {
		how = ErrNoReply
	}
	select {
	case <-w.gone:
		return nil, peer, fmt.Errorf("%w: %w", ErrServerLost, how)
	default:
	}
	return nil, peer, fmt.Errorf("%w: %w", how, ctx.Err())
}

// Foreign is how many replies to this client's calls came from a
// participant other than the server called, and were ignored.
func (c *Client) Foreign() uint64 { return c.foreign.Load() }

// send frames and writes the request to peer's reader alone, registering
// it first so its reply cannot come before it is expected. A ctx that
// ended while the server was being waited for sends nothing
// (ErrNoServer): a caller that gave up (a stop) must not find its request
// on the wire after all.
func (c *Client) send(ctx context.Context, peer Peer, body []byte) (callKey, wire.SequenceNumber, chan reply, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return callKey{}, 0, nil, ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return callKey{}, 0, nil, fmt.Errorf("%w: given up before the request was written, nothing sent: %w", ErrNoServer, err)
	}
	ch := make(chan reply, 1)
	switch peer.Dialect {
	case Cyclone:
		c.seq++
		key := callKey{Cyclone, c.seq}
		payload, err := AppendCycloneFrame(nil, RequestHeader{GUID: c.id, Seq: c.seq}, body)
		if err != nil {
			return key, 0, nil, err
		}
		sn, err := c.e.w.WriteTo(peer.Reader, cdr.Pad(payload), nil)
		if err != nil {
			return key, 0, nil, c.writeFailed(sn, err)
		}
		c.pending[key] = call{ch, peer.Prefix}
		return key, sn, ch, nil
	default:
		qos := SampleIdentity{Writer: c.e.r.GUID(), SN: wire.SequenceNumberUnknown}.InlineQoS()
		sn, err := c.e.w.WriteTo(peer.Reader, cdr.Pad(body), qos)
		key := callKey{FastDDS, int64(sn)}
		if err != nil {
			return key, 0, nil, c.writeFailed(sn, err)
		}
		c.pending[key] = call{ch, peer.Prefix}
		return key, sn, ch, nil
	}
}

// writeFailed is a failed write's error: nothing sent (ErrNoServer)
// when the sample never entered the writer's history (sn 0); otherwise it
// may already be on its way, so it is withdrawn and ErrUndelivered, which
// a caller must treat as possibly sent. c.mu is held.
func (c *Client) writeFailed(sn wire.SequenceNumber, err error) error {
	if sn == 0 {
		return fmt.Errorf("%w: %w", ErrNoServer, err)
	}
	c.e.w.Withdraw(sn)
	return fmt.Errorf("%w: %w", ErrUndelivered, err)
}

// Servers lists the participants serving the service: those whose request
// reader matches our writer or whose reply writer matches our reader.
func (c *Client) Servers() []wire.GUIDPrefix {
	var out []wire.GUIDPrefix
	add := func(p wire.GUIDPrefix) {
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	for _, g := range c.e.w.Matched() {
		add(g.Prefix)
	}
	if ws, err := c.e.p.Matched(c.e.r.GUID()); err == nil {
		for _, e := range ws {
			add(e.GUID.Prefix)
		}
	}
	slices.SortFunc(out, func(a, b wire.GUIDPrefix) int { return bytes.Compare(a[:], b[:]) })
	return out
}

// WaitServer is WaitServerOn the service's one server.
func (c *Client) WaitServer(ctx context.Context) (Peer, error) {
	return c.WaitServerOn(ctx, wire.GUIDPrefix{})
}

// WaitServerOn waits until the server on participant server (zero: the
// one participant serving the service) is ready to be called: its request
// reader matches our writer and has told us so with an ACKNACK (CycloneDDS
// matches after acknowledging our announcement, and a request written in
// between is skipped), its reply writer matches our reader, and its
// participant has acknowledged our endpoint announcements (so it can
// answer us). It fails with ErrNoServer when ctx ends first, and at once
// with ErrAmbiguousServer (and ErrMixedDialects when their dialects
// differ) while server is zero and more than one participant serves.
func (c *Client) WaitServerOn(ctx context.Context, server wire.GUIDPrefix) (Peer, error) {
	var peer Peer
	var refused error
	ready := func(ps []rtps.ParticipantData) bool {
		writers, err := c.e.p.Matched(c.e.r.GUID())
		if err != nil {
			return false
		}
		readers := c.e.w.Matched()
		if server == (wire.GUIDPrefix{}) {
			if servers := c.Servers(); len(servers) > 1 {
				refused = &AmbiguousError{Servers: servers, mixed: c.mixedDialects(ps, readers) != nil}
				return true
			}
		}
		remote, err := c.e.p.Matched(c.e.w.GUID())
		if err != nil {
			return false
		}
		for _, g := range readers {
			if server != (wire.GUIDPrefix{}) && g.Prefix != server {
				continue
			}
			if !hasPrefix(writers, g.Prefix) || !c.e.p.Acknowledged(g.Prefix) || !c.heardBy(remote, g) {
				continue
			}
			for _, d := range ps {
				if d.Prefix == g.Prefix {
					peer = Peer{Prefix: g.Prefix, Vendor: d.Vendor, Reader: g, Dialect: c.e.o.Dialect.resolve(d.Vendor)}
					return true
				}
			}
		}
		return false
	}
	if _, err := c.e.p.WaitParticipants(ctx, ready); err != nil {
		if errors.Is(err, rtps.ErrClosed) {
			return Peer{}, ErrClosed
		}
		return Peer{}, fmt.Errorf("%w: %w", ErrNoServer, err)
	}
	if refused != nil {
		return Peer{}, refused
	}
	return peer, nil
}

// mixedDialects refuses a call while our request writer matches server
// readers that speak different dialects: it sends each request to every
// matched reader, and a request framed for one misleads the other (a
// Fast DDS server reads a Cyclone header as message fields).
func (c *Client) mixedDialects(ps []rtps.ParticipantData, readers []wire.GUID) error {
	vendors := map[wire.GUIDPrefix]wire.VendorID{}
	for _, d := range ps {
		vendors[d.Prefix] = d.Vendor
	}
	seen := map[Dialect]wire.GUIDPrefix{}
	for _, g := range readers {
		v, ok := vendors[g.Prefix]
		if !ok {
			continue
		}
		seen[c.e.o.Dialect.resolve(v)] = g.Prefix
	}
	if len(seen) > 1 {
		return fmt.Errorf("%w: servers %v (cyclone) and %v (fastdds)", ErrMixedDialects, seen[Cyclone], seen[FastDDS])
	}
	return nil
}

// heardBy reports whether server reader g has matched our request
// writer: a reliable reader says so with an ACKNACK (see
// rtps.Writer.Heard); a best-effort one never answers and is taken as
// matched once it acknowledged our announcements.
func (c *Client) heardBy(remote []rtps.EndpointData, g wire.GUID) bool {
	for _, e := range remote {
		if e.GUID == g && e.QoS.Reliability != rtps.Reliable {
			return true
		}
	}
	return c.e.w.Heard(g)
}

func hasPrefix(es []rtps.EndpointData, prefix wire.GUIDPrefix) bool {
	for _, e := range es {
		if e.GUID.Prefix == prefix {
			return true
		}
	}
	return false
}

// watcher follows one call: whether a server reader it went to
// acknowledged it (recorded as it happens, since a server that leaves
// takes its acknowledgements with it) and whether every server it went to
// left: another server matched at the time (a robot restarted on the same
// domain, next to its crashed predecessor whose lease runs) got the
// request too and may still answer.
type watcher struct {
	c         *Client
	to        []wire.GUID
	sn        wire.SequenceNumber
	gone      chan struct{}
	delivered atomic.Bool
	cancel    context.CancelFunc
	done      chan struct{}
}

func (c *Client) watch(ctx context.Context, to []wire.GUID, sn wire.SequenceNumber) *watcher {
	ctx, cancel := context.WithCancel(ctx)
	w := &watcher{c: c, to: to, sn: sn, gone: make(chan struct{}), cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(w.done)
		_, err := c.e.p.WaitParticipants(ctx, func(ps []rtps.ParticipantData) bool {
			if w.acknowledged() {
				w.delivered.Store(true)
			}
			for _, d := range ps {
				for _, g := range to {
					if d.Prefix == g.Prefix {
						return false
					}
				}
			}
			return true
		})
		if err == nil {
			close(w.gone)
		}
	}()
	return w
}

// acknowledged reports whether a server reader the call went to has
// acknowledged its request.
func (w *watcher) acknowledged() bool {
	for _, g := range w.to {
		if w.c.e.w.AcknowledgedBy(g, w.sn) {
			return true
		}
	}
	return false
}

// stop ends the watch and waits for its goroutine; it may be called twice.
func (w *watcher) stop() { w.cancel(); <-w.done }

// receive hands replies to the calls waiting for them until ctx ends.
func (c *Client) receive(ctx context.Context) {
	defer close(c.done)
	defer c.failPending()
	for {
		s, err := c.e.r.Take(ctx)
		if err != nil {
			return
		}
		key, body, err := c.replyKey(s)
		if err != nil {
			c.e.o.Logger.Warn("service: reply refused", "writer", s.Writer, "err", err)
			continue
		}
		c.mu.Lock()
		pc, ok := c.pending[key]
		if ok && pc.server != s.Writer.Prefix {
			c.mu.Unlock()
			c.foreign.Add(1) // not the server called: never an answer
			c.e.o.Logger.Warn("service: reply from another participant than the server called ignored", "writer", s.Writer, "server", pc.server)
			continue
		}
		delete(c.pending, key)
		c.mu.Unlock()
		if !ok {
			continue // another client's, or a call that gave up
		}
		ch := pc.ch
		rep, err := cdr.Decode(c.types.Response, body)
		if err != nil {
			c.e.o.Logger.Warn("service: reply undecodable", "writer", s.Writer, "err", err)
			// The call then ends by its context; no reply is made up.
			continue
		}
		ch <- reply{rep, s.Writer.Prefix}
	}
}

// replyKey finds which of our calls a reply answers, in either dialect:
// a related sample identity naming our reader or writer, else a Cyclone
// header carrying our id. Other clients' replies (the reply writer
// sends to every client) get a key nothing waits for.
func (c *Client) replyKey(s rtps.Sample) (callKey, []byte, error) {
	id, ok, err := ParseSampleIdentity(s, vendorOf(c.e.p, s.Writer.Prefix))
	if err != nil {
		return callKey{}, nil, err
	}
	if ok {
		if id.Writer != c.e.r.GUID() && id.Writer != c.e.w.GUID() {
			return callKey{FastDDS, -1}, nil, nil
		}
		return callKey{FastDDS, int64(id.SN)}, s.Payload, nil
	}
	h, body, err := ParseCycloneFrame(s.Payload)
	if err != nil {
		return callKey{}, nil, err
	}
	if h.GUID != c.id {
		return callKey{Cyclone, -1}, nil, nil
	}
	return callKey{Cyclone, h.Seq}, body, nil
}

// failPending ends the calls still waiting: the client is closing.
func (c *Client) failPending() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, pc := range c.pending {
		close(pc.ch)
		delete(c.pending, k)
	}
}

// GUIDs are the client's request writer and reply reader.
func (c *Client) GUIDs() (writer, reader wire.GUID) { return c.e.w.GUID(), c.e.r.GUID() }
