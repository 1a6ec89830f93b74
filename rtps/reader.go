package rtps

import (
	"bytes"
	"context"
	"fmt"
	"time"

	"github.com/actbridge/actbridge/rtps/fragment"
	"github.com/actbridge/actbridge/rtps/wire"
)

// Bounds of a reader.
const (
	// maxKeepAll bounds the queue of a keep-all reader.
	maxKeepAll = 1024
	// maxOutOfOrder bounds the octets a reliable reader holds per writer
	// while it waits for a missing earlier sample.
	maxOutOfOrder = 4 << 20
	// maxFragmentedSample bounds a sample received in DATA_FRAGs.
	maxFragmentedSample = 8 << 20
)

// Sample is one sample a Reader delivers.
type Sample struct {
	Writer wire.GUID
	SN     wire.SequenceNumber
	// Payload is the serialized payload, encapsulation header included.
	Payload []byte
	// InlineQoS is the DATA's inline QoS (nil when none), copied.
	InlineQoS wire.ParameterList
	// SourceTime is when the writer wrote it, by its clock (the INFO_TS
	// before the DATA, or before one of its fragments); zero when the
	// writer sent none.
	SourceTime time.Time
	// BigEndian is the byte order of InlineQoS's values (its
	// submessage's): a sample identity's sequence number is read by it.
	BigEndian bool
}

// Reader receives the samples of the remote writers that match its
// endpoint: in order per writer, each once, repaired by ACKNACK when it is
// reliable; it keeps the last QoS.Depth samples not yet taken (keep-last)
// or up to 1024 (keep-all). Close it to withdraw it.
type Reader struct {
	p       *Participant
	data    EndpointData
	queue   []Sample
	ready   chan struct{} // buffered 1: a sample was queued
	done    chan struct{} // closed with the reader or its participant
	stopped bool          // done is closed
	writers map[wire.GUID]*userWriter
	frags   *fragment.Reassembler
	closed  bool
	// listener, when set, gets the samples instead of the queue.
	listener func(Sample)
}

// userWriter is a reader's state for one remote writer.
type userWriter struct {
	writerProxy
	held      map[wire.SequenceNumber]Sample // reliable: arrived ahead of next
	heldBytes int
	nackFrags int32 // NACK_FRAG count
	// fragSN's source time came with one of its fragments: CycloneDDS
	// sends the INFO_TS only in the datagram of the first.
	fragSN wire.SequenceNumber
	fragTS time.Time
}

// NewReader announces a reader (e.Writer must be false) and returns it.
func (p *Participant) NewReader(e EndpointData) (*Reader, error) {
	if e.Writer {
		return nil, fmt.Errorf("%w: NewReader of a writer", ErrConfig)
	}
	// Registered before it is announced: the first heartbeat of a writer
	// that matches it may come back before AddEndpoint would return.
	var r *Reader
	_, err := p.addEndpoint(e, func(d EndpointData) {
		r = &Reader{p: p, data: d, ready: make(chan struct{}, 1), done: make(chan struct{}), writers: map[wire.GUID]*userWriter{},
			frags: fragment.New(fragment.Limits{MaxSample: maxFragmentedSample})}
		p.readers[d.GUID] = r
	})
	if err != nil {
		return nil, err
	}
	return r, nil
}

// GUID is the reader's GUID.
func (r *Reader) GUID() wire.GUID { return r.data.GUID }

// Take removes and returns the oldest queued sample, waiting for one. It
// fails with ctx's error, or ErrClosed once the reader or its participant
// is closed.
func (r *Reader) Take(ctx context.Context) (Sample, error) {
	for {
		r.p.mu.Lock()
		if len(r.queue) > 0 {
			s := r.queue[0]
			r.queue = r.queue[1:]
			if len(r.queue) > 0 {
				r.wake() // for another Take waiting
			}
			r.p.mu.Unlock()
			return s, nil
		}
		closed := r.closed || r.p.closed
		r.p.mu.Unlock()
		if closed {
			return Sample{}, ErrClosed
		}
		select {
		case <-ctx.Done():
			return Sample{}, ctx.Err()
		case <-r.ready:
		case <-r.done:
		}
	}
}

// Listen hands every sample from now on to f instead of queueing it for
// Take, on the goroutine that received it, as soon as it is in order: no
// goroutine is woken between the datagram and f (a Take waiting costs a
// wake-up per sample, most of a round trip's time beyond the socket's).
// f is called for one sample at a time, never with a lock of the
// participant held, so it may Write; it holds up the participant's
// receiving while it runs, and must not Close the participant.
func (r *Reader) Listen(f func(Sample)) {
	r.p.mu.Lock()
	defer r.p.mu.Unlock()
	r.listener = f
}

// Close withdraws the reader; Take returns ErrClosed.
func (r *Reader) Close() error {
	r.p.mu.Lock()
	if r.closed {
		r.p.mu.Unlock()
		return nil
	}
	r.closed = true
	delete(r.p.readers, r.data.GUID)
	r.stop()
	r.p.mu.Unlock()
	return r.p.RemoveEndpoint(r.data.GUID)
}

// wake tells one waiting Take a sample is queued (a signal, not a
// channel closed and made again per sample: at 1 kHz that was a tenth of
// a subscriber's CPU); p.mu must be held.
func (r *Reader) wake() {
	select {
	case r.ready <- struct{}{}:
	default:
	}
}

// stop tells every waiting Take the reader or its participant is closed;
// p.mu must be held.
func (r *Reader) stop() {
	if !r.stopped {
		r.stopped = true
		close(r.done)
	}
}

// readersFor lists our readers a user submessage from writer w to
// readerID is for: the named one, or every reader matching w when the
// reader is unknown (multicast). p.mu must be held.
func (p *Participant) readersFor(w wire.GUID, readerID wire.EntityID) []*Reader {
	remote, ok := p.sedp.remote[w]
	if !ok {
		return nil
	}
	var out []*Reader
	for g, r := range p.readers {
		if (readerID == wire.EntityIDUnknown || readerID == g.Entity) && Match(remote, r.data) {
			out = append(out, r)
		}
	}
	return out
}

// reliableReadersFor is readersFor without the best-effort readers, which
// never answer a writer.
func (p *Participant) reliableReadersFor(w wire.GUID, readerID wire.EntityID) []*Reader {
	var out []*Reader
	for _, r := range p.readersFor(w, readerID) {
		if r.data.QoS.Reliability == Reliable {
			out = append(out, r)
		}
	}
	return out
}

func (r *Reader) writer(w wire.GUID) *userWriter {
	uw, ok := r.writers[w]
	if !ok {
		uw = &userWriter{writerProxy: writerProxy{next: 1, received: wire.NewSequenceNumberSet(1), hbCount: -1 << 31}, held: map[wire.SequenceNumber]Sample{}}
		r.writers[w] = uw
	}
	return uw
}

// handleUserData delivers a DATA (or a completed DATA_FRAG) to our readers.
func (p *Participant) handleUserData(w wire.GUID, d *wire.Data, ts time.Time) []outgoing {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []outgoing
	for _, r := range p.readersFor(w, d.ReaderID) {
		if r.receive(w, d.WriterSN, d.Payload, d.InlineQoS, d.BigEndian, ts) {
			out = append(out, r.ackNack(w, r.writer(w), d.WriterSN-1))
		}
	}
	return out
}

// handleUserFrag adds fragments and delivers the sample they complete.
func (p *Participant) handleUserFrag(w wire.GUID, f *wire.DataFrag, ts time.Time) []outgoing {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []outgoing
	for _, r := range p.readersFor(w, f.ReaderID) {
		uw := r.writer(w)
		if f.WriterSN < uw.next || uw.received.Contains(f.WriterSN) {
			continue
		}
		if n := fragmentRoom(r, w, f); n > 0 && !p.reserve(r, w, n) {
			continue // beyond the receive budget: the writer repairs it
		}
		done, err := r.frags.Add(w, f)
		if err != nil {
			p.cfg.Logger.Debug("rtps: bad fragment", "writer", w, "err", err)
			continue
		}
		if !ts.IsZero() {
			uw.fragSN, uw.fragTS = f.WriterSN, ts
		}
		if done.Payload != nil {
			sampleTS := ts
			if uw.fragSN == f.WriterSN {
				sampleTS = uw.fragTS
			}
			// The inline QoS is the sample's (writers send it with the
			// first fragment), not that of the fragment that completed it.
			if r.receive(w, f.WriterSN, done.Payload, done.InlineQoS, done.BigEndian, sampleTS) {
				out = append(out, r.ackNack(w, uw, f.WriterSN-1))
			}
		}
	}
	return out
}

// receive queues sample sn of writer w: a best-effort reader takes any
// sample newer than the last, a reliable one delivers in order and holds
// what arrives early. It reports whether sn, held, shows a new hole just
// before it: the reader asks for it at once (Fast DDS heartbeats every
// 3 s), once per hole.
func (r *Reader) receive(w wire.GUID, sn wire.SequenceNumber, payload []byte, qos wire.ParameterList, bigEndian bool, ts time.Time) (hole bool) {
	uw := r.writer(w)
	sample := func() Sample {
		return Sample{Writer: w, SN: sn, Payload: bytes.Clone(payload), InlineQoS: qos.Clone(), BigEndian: bigEndian, SourceTime: ts}
	}
	if r.data.QoS.Reliability != Reliable {
		if sn >= uw.next {
			uw.next = sn + 1
			r.enqueue(sample())
		}
		return false
	}
	if sn < uw.next || uw.received.Contains(sn) {
		return false
	}
	if sn > uw.next {
		if uw.heldBytes+len(payload) > maxOutOfOrder || sn >= uw.received.Base+wire.MaxSetBits || !r.p.reserve(r, w, len(payload)) || !uw.received.Add(sn) {
			return false // the writer sends it again
		}
		s := sample()
		uw.held[sn] = s
		uw.heldBytes += len(s.Payload)
		return !uw.received.Contains(sn - 1)
	}
	r.enqueue(sample())
	uw.received.Add(sn)
	r.release(uw)
	return false
}

// release moves next past what arrived and queues the held samples that
// are now in order.
func (r *Reader) release(uw *userWriter) {
	for uw.received.Contains(uw.next) {
		if s, ok := uw.held[uw.next]; ok {
			delete(uw.held, uw.next)
			uw.heldBytes -= len(s.Payload)
			r.enqueue(s)
		}
		uw.next++
	}
	uw.rebase(uw.next)
}

// enqueue adds s, dropping the oldest beyond the history depth, or hands
// it to the participant's next deliveries when the reader has a listener.
func (r *Reader) enqueue(s Sample) {
	if r.listener != nil {
		r.p.deliveries = append(r.p.deliveries, delivery{f: r.listener, s: s})
		return
	}
	limit := maxKeepAll
	if r.data.QoS.History == KeepLast {
		limit = int(max(r.data.QoS.Depth, 1))
	}
	if len(r.queue) >= limit {
		r.queue = r.queue[1:]
	}
	r.queue = append(r.queue, s)
	r.wake()
}

// handleUserHeartbeat answers a writer's heartbeat with the reliable
// readers' ACKNACKs.
func (p *Participant) handleUserHeartbeat(w wire.GUID, h *wire.Heartbeat) []outgoing {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []outgoing
	for _, r := range p.reliableReadersFor(w, h.ReaderID) {
		uw := r.writer(w)
		if h.Count <= uw.hbCount {
			continue
		}
		uw.hbCount = h.Count
		if h.First > uw.next {
			// What the writer no longer has is skipped.
			if h.First >= uw.next+wire.MaxSetBits {
				uw.skipHeld(h.First)
			}
			for sn := uw.next; sn < h.First; sn++ {
				uw.received.Add(sn)
			}
			r.release(uw)
		}
		if h.Final && !uw.lacks(h.Last) {
			continue
		}
		out = append(out, r.ackNack(w, uw, h.Last))
	}
	return out
}

// lacks reports whether some number up to last has not arrived.
func (uw *userWriter) lacks(last wire.SequenceNumber) bool {
	for sn := uw.next; sn <= last && sn < uw.next+wire.MaxSetBits; sn++ {
		if !uw.received.Contains(sn) {
			return true
		}
	}
	return false
}

// ackNack is the ACKNACK (and NACK_FRAGs) of reader r to writer w that
// acknowledges what arrived and asks for what is missing up to last;
// r.p.mu must be held.
func (r *Reader) ackNack(w wire.GUID, uw *userWriter, last wire.SequenceNumber) outgoing {
	state := wire.NewSequenceNumberSet(uw.next)
	for sn := uw.next; sn <= last && sn < uw.next+wire.MaxSetBits; sn++ {
		if !uw.received.Contains(sn) {
			state.Add(sn)
		}
	}
	uw.ackCount++
	subs := []wire.Submessage{&wire.AckNack{ReaderID: r.data.GUID.Entity, WriterID: w.Entity, State: state, Count: uw.ackCount, Final: state.NumBits == 0}}
	for _, sn := range state.Members() {
		if nf := r.nackFrag(w, uw, sn); nf != nil {
			subs = append(subs, nf)
		}
	}
	return outgoing{dst: w.Prefix, to: r.p.endpointLocators(w), subs: subs}
}

// preemptiveAckNacks asks remote writer w, just learned, for a heartbeat
// to each of our reliable readers it matches: an ACKNACK of base 0, empty
// and not final, which Fast DDS and RTI send and answer at once (base 1
// to CycloneDDS). A heartbeat that came before we knew w was dropped,
// and Fast DDS's next one is 3 s away. p.mu must be held.
func (p *Participant) preemptiveAckNacks(w wire.GUID) []outgoing {
	// CycloneDDS logs base 0 as a malformed packet and drops it (the spec
	// wants a base of at least 1); it sends base 1 itself.
	base := wire.SequenceNumber(0)
	if p.sedp.remote[w].Vendor == wire.VendorCyclone {
		base = 1
	}
	var out []outgoing
	for _, r := range p.reliableReadersFor(w, wire.EntityIDUnknown) {
		uw := r.writer(w)
		uw.ackCount++
		out = append(out, outgoing{dst: w.Prefix, to: p.endpointLocators(w), subs: []wire.Submessage{
			&wire.AckNack{ReaderID: r.data.GUID.Entity, WriterID: w.Entity, State: wire.NewSequenceNumberSet(base), Count: uw.ackCount}}})
	}
	return out
}

// nackFrag asks for the missing fragments of a partly received sample;
// nil when none of sn has arrived.
func (r *Reader) nackFrag(w wire.GUID, uw *userWriter, sn wire.SequenceNumber) *wire.NackFrag {
	set, ok := r.frags.Missing(fragment.Key{Writer: w, SN: sn})
	if !ok || set.NumBits == 0 {
		return nil
	}
	uw.nackFrags++
	return &wire.NackFrag{ReaderID: r.data.GUID.Entity, WriterID: w.Entity, WriterSN: sn, State: set, Count: uw.nackFrags}
}

// handleUserHeartbeatFrag answers a writer's HEARTBEAT_FRAG with the
// fragments our reliable readers miss.
func (p *Participant) handleUserHeartbeatFrag(w wire.GUID, h *wire.HeartbeatFrag) []outgoing {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []outgoing
	for _, r := range p.reliableReadersFor(w, h.ReaderID) {
		uw := r.writer(w)
		if h.WriterSN < uw.next || uw.received.Contains(h.WriterSN) {
			continue
		}
		if nf := r.nackFrag(w, uw, h.WriterSN); nf != nil {
			out = append(out, outgoing{dst: w.Prefix, to: p.endpointLocators(w), subs: []wire.Submessage{nf}})
		}
	}
	return out
}

// skipHeld drops every held sample below sn and moves next to sn.
func (uw *userWriter) skipHeld(sn wire.SequenceNumber) {
	for k, s := range uw.held {
		if k < sn {
			delete(uw.held, k)
			uw.heldBytes -= len(s.Payload)
		}
	}
	uw.next = sn
}

// handleUserGap marks numbers a writer will never send as done.
func (p *Participant) handleUserGap(w wire.GUID, g *wire.Gap) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, r := range p.readersFor(w, g.ReaderID) {
		uw := r.writer(w)
		for sn := max(g.Start, uw.next); sn < g.List.Base && sn < uw.next+wire.MaxSetBits; sn++ {
			uw.received.Add(sn)
		}
		for _, sn := range g.List.Members() {
			if sn >= uw.next {
				uw.received.Add(sn)
			}
		}
		if g.Start <= uw.next && g.List.Base >= uw.next+wire.MaxSetBits {
			uw.skipHeld(g.List.Base)
		}
		r.release(uw)
	}
}
