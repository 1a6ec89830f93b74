package rtps

import (
	"context"
	"errors"
	"fmt"
	"net/netip"

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
		readers: map[wire.GUID]*readerProxy{}, keepLast: depth, durable: data.QoS.Durability >= TransientLocal}}
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

// reliable strips heartbeats from what a best-effort writer sends.
func (w *Writer) reliable(subs []wire.Submessage) []wire.Submessage {
	if w.data.QoS.Reliability == Reliable {
		return subs
	}
	var out []wire.Submessage
	for _, s := range subs {
		if _, hb := s.(*wire.Heartbeat); !hb {
			out = append(out, s)
		}
	}
	return out
}

// Write publishes one sample: payload is the serialized sample with its
// encapsulation header; qos, if not nil, is sent as the DATA's inline QoS.
func (w *Writer) Write(payload []byte, qos wire.ParameterList) error {
	_, err := w.WriteSN(payload, qos)
	return err
}

// WriteSN is Write, returning the sequence number the sample was given:
// a reply to a request names the request by it (DDS-RPC's sample
// identity), and AcknowledgedBy takes it.
func (w *Writer) WriteSN(payload []byte, qos wire.ParameterList) (wire.SequenceNumber, error) {
	if len(payload) > maxSample {
		return 0, fmt.Errorf("%w: %d octets, at most %d", ErrTooLarge, len(payload), maxSample)
	}
	p := w.p
	p.mu.Lock()
	if w.closed || p.closed {
		p.mu.Unlock()
		return 0, ErrClosed
	}
	sn := w.sw.next
	subs := w.reliable(w.sw.write(wire.GUID{}, payload, qos))
	// DATA goes to ENTITYID_UNKNOWN, so one copy per participant reaches
	// all its matched readers.
	sent := map[wire.GUIDPrefix]bool{}
	var out []outgoing
	for g := range w.sw.readers {
		if !sent[g.Prefix] {
			sent[g.Prefix] = true
			out = append(out, outgoing{dst: g.Prefix, to: p.endpointLocators(g), subs: subs})
		}
	}
	p.mu.Unlock()
	p.send(out)
	return sn, nil
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
	_, err := waitChange(ctx, w.p, func() []wire.GUID { return w.sw.unacked() }, func(gs []wire.GUID) bool { return len(gs) == 0 })
	return err
}

// handleUserAckNack repairs what a remote reader of one of our writers
// asks for, and wakes WaitAcknowledged when the reader acknowledged more.
func (p *Participant) handleUserAckNack(src wire.GUIDPrefix, a *wire.AckNack) []outgoing {
	return p.repair(src, a.ReaderID, a.WriterID, func(sw *statefulWriter, reader wire.GUID) []wire.Submessage {
		before, heard := sw.acknowledged(reader), sw.heard(reader)
		subs := sw.onAckNack(reader, a)
		if (!before && sw.acknowledged(reader)) || (!heard && sw.heard(reader)) {
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
// has not acknowledged all of a reliable writer's samples.
func (p *Participant) userHeartbeats() []outgoing {
	var out []outgoing
	for _, w := range p.writers {
		if w.data.QoS.Reliability != Reliable {
			continue
		}
		for _, g := range w.sw.unacked() {
			out = append(out, outgoing{dst: g.Prefix, to: p.endpointLocators(g), subs: []wire.Submessage{w.sw.heartbeat(false)}})
		}
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
