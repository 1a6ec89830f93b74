package rtps

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"sync/atomic"
	"time"

	"github.com/actbridge/actbridge/rtps/wire"
)

// maxSample is the largest sample a Writer sends (in DATA_FRAGs of
// fragmentSize octets beyond maxData).
const maxSample = 8 << 20

// ErrTooLarge means a sample is larger than a Writer sends.
var ErrTooLarge = errors.New("rtps: sample too large")

// Writer publishes samples to the remote readers that match its endpoint.
// A reliable writer keeps its last QoS.Depth samples (keep-all: 1024),
// repairs what readers NACK and heartbeats until they acknowledge; a
// transient-local one gives its history to readers that match later.
// Close it to withdraw it.
type Writer struct {
	p      *Participant
	data   EndpointData
	sw     *statefulWriter
	closed bool
	// pace sends a best-effort writer's large samples in bursts.
	pace pacer
	// lastReturn (unix nanoseconds) is when the last write returned, and
	// sendTook how long its last send on its own goroutine took: a writer
	// back sooner than that is streaming.
	lastReturn, sendTook atomic.Int64
	// dests is destinations' result, made when the participant's gen
	// was destsGen; p.mu guards both.
	dests    []outgoing
	destsGen uint64
}

// NewWriter announces a writer (e.Writer is set) and returns it.
func (p *Participant) NewWriter(e EndpointData) (*Writer, error) {
	e.Writer = true
	g, err := p.AddEndpoint(e)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	data := p.sedp.local[g]
	depth := maxKeepAll
	if data.QoS.History == KeepLast {
		depth = int(max(data.QoS.Depth, 1))
	}
	w := &Writer{p: p, data: data, sw: &statefulWriter{id: g.Entity, readerID: wire.EntityIDUnknown, next: 1,
		readers: map[wire.GUID]*readerProxy{}, keepLast: depth, durable: data.QoS.Durability >= TransientLocal,
		blocking: data.QoS.Reliability == Reliable && data.QoS.History == KeepAll, quietWrites: true},
		pace: pacer{rate: p.cfg.FragmentRate, burst: p.cfg.FragmentBurst}}
	if data.QoS.Reliability == Reliable {
		// A best-effort write's datagrams go out after the lock is let go,
		// and nothing tells the writer when they are: its copies are not
		// recycled.
		w.sw.pool = &samplePool{}
	}
	p.writers[g] = w
	var out []outgoing
	for _, r := range p.sedp.remote {
		out = append(out, p.matchWriter(w, r)...)
	}
	p.mu.Unlock()
	p.send(out)
	return w, nil
}

// GUID is the writer's GUID.
func (w *Writer) GUID() wire.GUID { return w.data.GUID }

// matchWriter matches w with remote reader r if they fit, and returns
// what r gets first; p.mu must be held.
func (p *Participant) matchWriter(w *Writer, r EndpointData) []outgoing {
	if _, ok := w.sw.readers[r.GUID]; ok || !Match(w.data, r) {
		return nil
	}
	subs := w.sw.match(r.GUID)
	w.sw.readers[r.GUID].bestEffort = r.QoS.Reliability != Reliable
	p.notify()
	return []outgoing{{dst: r.GUID.Prefix, to: p.endpointLocators(r.GUID), subs: w.reliable(subs)}}
}

// unmatchReader forgets remote reader g in every writer; p.mu must be held.
func (p *Participant) unmatchReader(g wire.GUID) {
	for _, w := range p.writers {
		if _, ok := w.sw.readers[g]; ok {
			w.sw.unmatch(g)
			p.notify()
		}
	}
}

// reliable strips heartbeats (and HEARTBEAT_FRAGs) from what a
// best-effort writer sends.
func (w *Writer) reliable(subs []wire.Submessage) []wire.Submessage {
	if w.data.QoS.Reliability == Reliable {
		return subs
	}
	var out []wire.Submessage
	for _, s := range subs {
		switch s.(type) {
		case *wire.Heartbeat, *wire.HeartbeatFrag:
		default:
			out = append(out, s)
		}
	}
	return out
}

// MaxBlockingTime is how long Write waits for a reliable keep-all
// writer's readers to catch up, DDS's default reliability
// max_blocking_time; WriteContext waits as long as its context allows.
const MaxBlockingTime = 100 * time.Millisecond

// blockedHeartbeat is how often a writer waiting for its readers'
// acknowledgments heartbeats them.
const blockedHeartbeat = 2 * time.Millisecond

// ErrBlocked means a reliable keep-all writer's readers did not
// acknowledge enough for the next sample in time; nothing was sent.
var ErrBlocked = errors.New("rtps: readers did not catch up in time")

// Write publishes one sample: payload is the serialized sample with its
// encapsulation header; qos, if not nil, is sent as the DATA's inline QoS.
// Both are copied: the caller may reuse them once Write returns.
// A reliable keep-all writer waits up to MaxBlockingTime while its readers
// lag (ErrBlocked after), as WriteContext describes.
// A reliable writer sends at once when nothing else is being sent; while
// its readers lag it may return with the sample queued, and the
// participant sends it with those queued beside it in shared datagrams.
func (w *Writer) Write(payload []byte, qos wire.ParameterList) error {
	_, err := w.write(nil, wire.GUID{}, payload, qos)
	return err
}

// WriteSN is Write, returning the sequence number the sample was given:
// a reply to a request names the request by it (DDS-RPC's sample
// identity), and AcknowledgedBy takes it.
func (w *Writer) WriteSN(payload []byte, qos wire.ParameterList) (wire.SequenceNumber, error) {
	return w.write(nil, wire.GUID{}, payload, qos)
}

// WriteContext is Write waiting up to ctx's end: a reliable keep-all
// writer sends a sample only while its reliable readers lack fewer than
// min(1024, 1 MiB / sample size) of its samples, so that it never drops
// from its history what a reader still needs and never has more than
// about 1 MiB in flight. Other writers never wait for readers; a
// best-effort writer's large samples are paced (Config.FragmentRate).
func (w *Writer) WriteContext(ctx context.Context, payload []byte, qos wire.ParameterList) error {
	_, err := w.write(ctx, wire.GUID{}, payload, qos)
	return err
}

// write is Write (ctx nil: MaxBlockingTime, counted from the first wait)
// and WriteContext; a non-zero to is WriteTo's one reader.
func (w *Writer) write(ctx context.Context, to wire.GUID, payload []byte, qos wire.ParameterList) (wire.SequenceNumber, error) {
	if len(payload) > maxSample {
		return 0, fmt.Errorf("%w: %d octets, at most %d", ErrTooLarge, len(payload), maxSample)
	}
	// The history keeps the sample until its readers have it; a reliable
	// writer's copies are recycled (samplePool).
	if payload != nil {
		if w.sw.pool != nil {
			payload = w.sw.pool.copyOf(payload)
		} else {
			payload = slices.Clone(payload)
		}
	}
	qos = qos.Clone()
	unused := func() {
		if w.sw.pool != nil && payload != nil {
			w.sw.pool.put(payload)
		}
	}
	p := w.p
	var hb *time.Timer
	for {
		p.mu.Lock()
		if w.closed || p.closed {
			p.mu.Unlock()
			unused()
			return 0, ErrClosed
		}
		if _, ok := w.sw.readers[to]; !ok && to != (wire.GUID{}) {
			p.mu.Unlock()
			unused()
			return 0, fmt.Errorf("%w: %v", ErrNotMatched, to)
		}
		if !w.sw.lagging(len(payload)) {
			break
		}
		// Ask the lagging readers for their acknowledgments now and again
		// while waiting: readers answer heartbeats, and the periodic one
		// is 500 ms away.
		if hb == nil {
			hb = time.NewTimer(0)
			defer hb.Stop()
		}
		progress, changed := w.sw.waitProgress(), p.changed
		p.mu.Unlock()
		if ctx == nil {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(context.Background(), MaxBlockingTime)
			defer cancel()
		}
		select {
		case <-ctx.Done():
			unused()
			return 0, fmt.Errorf("%w: %w", ErrBlocked, ctx.Err())
		case <-progress:
		case <-changed:
		case <-hb.C:
			p.mu.Lock()
			q, self := p.queueOrdered(w.heartbeats())
			p.mu.Unlock()
			p.sendQueued(q, self)
			hb.Reset(blockedHeartbeat)
		}
	}
	now := time.Now() // the sample's timestamp, and when this write began
	subs := w.reliable(w.sw.write(wire.GUID{}, payload, qos, now))
	sn := w.sw.next - 1
	var out []outgoing
	if to != (wire.GUID{}) {
		out = w.directed(to, subs)
	} else {
		out = make([]outgoing, len(w.destinations()))
		for i, d := range w.dests {
			out[i] = outgoing{dst: d.dst, to: d.to, subs: subs}
		}
	}
	if w.data.QoS.Reliability != Reliable {
		p.mu.Unlock()
		if len(payload) <= maxData {
			p.send(out)
			return sn, nil
		}
		if ctx == nil {
			ctx = context.Background() // the pacing's waits are bounded by the sample's size
		}
		return sn, w.pace.send(ctx, p, out)
	}
	// Until its datagrams are out, heartbeats from elsewhere do not
	// announce it (see statefulWriter.heartbeat); the send queue tells
	// the writer when they are (statefulWriter.sent).
	w.sw.inFlight = append(w.sw.inFlight, sn)
	q := pendingSend{out: out, sw: w.sw, sn: sn}
	// A writer streams when its readers lag and it spends less time
	// between writes than a send takes: its samples are queued, and go
	// packed while it goes on. A ping answered by a round trip through
	// a peer is sent at once even while its acknowledgments lag.
	streaming := w.sw.streaming(sn) && now.Sub(time.Unix(0, w.lastReturn.Load())) < time.Duration(w.sendTook.Load())
	inline, full := p.tx.push(q, !streaming)
	p.mu.Unlock()
	if !p.soonArmed.Load() {
		select {
		case p.wrote <- struct{}{}:
		default:
		}
	}
	if inline {
		p.sendNow(q)
		done := time.Now()
		w.sendTook.Store(int64(done.Sub(now)))
		w.lastReturn.Store(done.UnixNano())
		return sn, nil
	}
	if !full {
		// Queued: it returns a few microseconds after it began, which
		// saves this streaming write a clock reading.
		w.lastReturn.Store(now.UnixNano())
		return sn, nil
	}
	if ctx == nil {
		ctx = context.Background() // the sender takes the queue while the participant runs
	}
	err := p.tx.waitRoom(ctx, p.done)
	w.lastReturn.Store(time.Now().UnixNano())
	return sn, err
}

// destinations is where a sample of w goes, one outgoing (without
// submessages) per matched participant: DATA goes to ENTITYID_UNKNOWN, so
// one copy per participant reaches all its matched readers. It is made
// again only when the participant's view changed (a match, a locator),
// not on every write. p.mu must be held.
func (w *Writer) destinations() []outgoing {
	p := w.p
	if w.dests != nil && w.destsGen == p.gen {
		return w.dests
	}
	w.dests, w.destsGen = w.dests[:0], p.gen
	if w.dests == nil {
		w.dests = []outgoing{}
	}
	for g := range w.sw.readers {
		if !slices.ContainsFunc(w.dests, func(o outgoing) bool { return o.dst == g.Prefix }) {
			w.dests = append(w.dests, outgoing{dst: g.Prefix, to: p.endpointLocators(g)})
		}
	}
	return w.dests
}

// Matched returns the remote readers the writer is matched with.
func (w *Writer) Matched() []wire.GUID {
	w.p.mu.Lock()
	defer w.p.mu.Unlock()
	return w.matched()
}

func (w *Writer) matched() []wire.GUID {
	out := make([]wire.GUID, 0, len(w.sw.readers))
	for g := range w.sw.readers {
		out = append(out, g)
	}
	return out
}

// WaitMatched waits until the writer is matched with at least n remote
// readers; it fails with ctx's error or ErrClosed.
func (w *Writer) WaitMatched(ctx context.Context, n int) error {
	_, err := waitChange(ctx, w.p, w.matched, func(gs []wire.GUID) bool { return len(gs) >= n })
	return err
}

// WaitReady waits until at least n matched reliable readers have sent
// this writer an ACKNACK, which they do once they know it: what it writes
// from then on reaches them, where a volatile reader that has not yet
// matched the writer drops it (SEDP's acknowledgment comes before the
// remote reader is matched). It fails with ctx's error or ErrClosed.
func (w *Writer) WaitReady(ctx context.Context, n int) error {
	_, err := waitChange(ctx, w.p, w.heardFrom, func(gs []wire.GUID) bool { return len(gs) >= n })
	return err
}

// heardFrom lists the matched readers that sent an ACKNACK; p.mu held.
func (w *Writer) heardFrom() []wire.GUID {
	var out []wire.GUID
	for g, r := range w.sw.readers {
		if r.heard {
			out = append(out, g)
		}
	}
	return out
}

// Close withdraws the writer.
func (w *Writer) Close() error {
	w.p.mu.Lock()
	if w.closed {
		w.p.mu.Unlock()
		return nil
	}
	w.closed = true
	delete(w.p.writers, w.data.GUID)
	w.p.mu.Unlock()
	return w.p.RemoveEndpoint(w.data.GUID)
}

// WaitAcknowledged waits until every matched reliable reader has
// acknowledged every sample written so far (DDS's
// wait_for_acknowledgments): a writer of large samples uses it to keep
// from outrunning its readers. It fails with ctx's error or ErrClosed.
func (w *Writer) WaitAcknowledged(ctx context.Context) error {
	// Writes' heartbeats are mostly Final (see statefulWriter.asks): ask
	// now rather than at the next repair heartbeat.
	w.p.mu.Lock()
	q, self := w.p.queueOrdered(w.heartbeats())
	w.p.mu.Unlock()
	w.p.sendQueued(q, self)
	_, err := waitChange(ctx, w.p, func() []wire.GUID { return w.sw.unacked() }, func(gs []wire.GUID) bool { return len(gs) == 0 })
	return err
}

// handleUserAckNack repairs what a remote reader of one of our writers
// asks for, and wakes WaitAcknowledged when the reader acknowledged more.
func (p *Participant) handleUserAckNack(src wire.GUIDPrefix, a *wire.AckNack) []outgoing {
	return p.repair(src, a.ReaderID, a.WriterID, func(sw *statefulWriter, reader wire.GUID) []wire.Submessage {
		r, ok := sw.readers[reader]
		before, heard := sw.acknowledged(reader), ok && r.heard
		var acked wire.SequenceNumber
		if ok {
			acked = r.acked
		}
		subs := sw.onAckNack(reader, a)
		if ok && r.acked > acked {
			p.acks.Add(1) // the repair heartbeats stay quick (see run)
		}
		if !before && sw.acknowledged(reader) || ok && !heard && r.heard {
			p.notify()
		}
		return subs
	})
}

// handleUserNackFrag resends the fragments a remote reader of one of our
// writers misses.
func (p *Participant) handleUserNackFrag(src wire.GUIDPrefix, n *wire.NackFrag) []outgoing {
	return p.repair(src, n.ReaderID, n.WriterID, func(sw *statefulWriter, reader wire.GUID) []wire.Submessage {
		return sw.onNackFrag(reader, n)
	})
}

// repair addresses to remote reader (src, readerID) what answer returns
// for our reliable writer writerID.
func (p *Participant) repair(src wire.GUIDPrefix, readerID, writerID wire.EntityID, answer func(*statefulWriter, wire.GUID) []wire.Submessage) []outgoing {
	p.mu.Lock()
	defer p.mu.Unlock()
	w, ok := p.writers[wire.GUID{Prefix: p.self.Prefix, Entity: writerID}]
	if !ok || w.data.QoS.Reliability != Reliable {
		return nil
	}
	reader := wire.GUID{Prefix: src, Entity: readerID}
	if subs := answer(w.sw, reader); len(subs) > 0 {
		return []outgoing{{dst: src, to: p.endpointLocators(reader), subs: subs}}
	}
	return nil
}

// userHeartbeats lists a heartbeat for every reliable remote reader that
// has not acknowledged all of a reliable writer's samples or not been
// heard from.
func (p *Participant) userHeartbeats() []outgoing {
	var out []outgoing
	for _, w := range p.writers {
		out = append(out, w.heartbeats()...)
	}
	return out
}

// heartbeats is a heartbeat for each reliable reader that lacks some of
// w's samples or has not been heard from yet; p.mu must be held.
func (w *Writer) heartbeats() []outgoing {
	if w.data.QoS.Reliability != Reliable {
		return nil
	}
	var out []outgoing
	for _, g := range w.sw.unsure() {
		out = append(out, outgoing{dst: g.Prefix, to: w.p.endpointLocators(g), subs: []wire.Submessage{w.sw.heartbeat(false)}})
	}
	return out
}

// endpointLocators is where a remote endpoint listens: its own unicast
// locators, else its participant's default ones. p.mu must be held.
func (p *Participant) endpointLocators(g wire.GUID) []netip.AddrPort {
	ls := p.sedp.remote[g].Unicast
	if rp, ok := p.remotes[g.Prefix]; ok && len(ls) == 0 {
		ls = rp.data.DefaultUnicast
		if len(ls) == 0 {
			ls = rp.data.MetatrafficUnicast
		}
	}
	var out []netip.AddrPort
	for _, l := range ls {
		if ap, ok := l.AddrPort(); ok && p.uc.Reachable(ap.Addr()) {
			out = append(out, ap)
		}
	}
	return out
}
