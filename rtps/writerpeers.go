package rtps

import (
	"errors"
	"fmt"
	"slices"

	"github.com/actbridge/actbridge/rtps/wire"
)

// AcknowledgedBy reports whether remote reader g, matched with the
// writer, has acknowledged sample sn: it was delivered to g's
// participant, whatever the application there did with it.
func (w *Writer) AcknowledgedBy(g wire.GUID, sn wire.SequenceNumber) bool {
	w.p.mu.Lock()
	defer w.p.mu.Unlock()
	r, ok := w.sw.readers[g]
	return ok && !r.bestEffort && r.acked > sn
}

// Heard reports whether remote reader g has sent the writer an ACKNACK,
// which a reader does only once it has matched the writer: CycloneDDS
// acknowledges the SEDP data announcing a writer before a thread of its
// own matches it, and a volatile reader skips what a writer sent before
// the match, so a sample meant for g is safe to write only now.
// WaitParticipants wakes when it becomes true.
func (w *Writer) Heard(g wire.GUID) bool {
	w.p.mu.Lock()
	defer w.p.mu.Unlock()
	return w.sw.heard(g)
}

// ErrNotMatched means WriteTo named a reader the writer is not matched with.
var ErrNotMatched = errors.New("rtps: reader not matched")

// WriteTo is WriteSN for one matched remote reader alone: its DATA goes to
// that reader, every other matched reader gets a GAP for the number (now,
// and again whenever it asks), so a second server matched on the same
// topic never sees a request meant for the first. Nothing is sent when
// reader is not matched (ErrNotMatched).
func (w *Writer) WriteTo(reader wire.GUID, payload []byte, qos wire.ParameterList) (wire.SequenceNumber, error) {
	if reader == (wire.GUID{}) {
		return 0, fmt.Errorf("%w: zero reader GUID", ErrNotMatched)
	}
	return w.write(nil, reader, payload, qos)
}

// directed addresses the submessages of the change just written to
// reader to alone and GAPs its number to every other matched reader;
// p.mu must be held.
func (w *Writer) directed(to wire.GUID, subs []wire.Submessage) []outgoing {
	sw := w.sw
	c := &sw.changes[len(sw.changes)-1]
	c.to = to
	for _, s := range subs {
		switch s := s.(type) {
		case *wire.Data:
			s.ReaderID = to.Entity
		case *wire.DataFrag:
			s.ReaderID = to.Entity
		}
	}
	out := []outgoing{{dst: to.Prefix, to: w.p.endpointLocators(to), subs: subs}}
	if w.data.QoS.Reliability != Reliable {
		return out
	}
	for g := range sw.readers {
		if g != to {
			out = append(out, outgoing{dst: g.Prefix, to: w.p.endpointLocators(g), subs: []wire.Submessage{gapOf(g.Entity, sw.id, []wire.SequenceNumber{c.sn})}})
		}
	}
	return out
}

// Withdraw takes sample sn back: it leaves the history, and every
// matched reliable reader that has not acknowledged it gets a GAP for its
// number (now, and whenever it asks), so a reader cut off when it was
// written never gets it once the link heals: a request its caller gave
// up on must not arrive later. A reader that already has it keeps it
// (AcknowledgedBy tells), and datagrams of its first send still queued
// may still leave. It reports whether the history held sn.
func (w *Writer) Withdraw(sn wire.SequenceNumber) bool {
	p := w.p
	p.mu.Lock()
	if w.closed || p.closed {
		p.mu.Unlock()
		return false
	}
	sw := w.sw
	i, ok := slices.BinarySearchFunc(sw.changes, sn, func(c change, sn wire.SequenceNumber) int { return cmpSN(c.sn, sn) })
	if !ok {
		p.mu.Unlock()
		return false
	}
	c := sw.changes[i]
	sw.changes = slices.Delete(sw.changes, i, i+1)
	sw.retire(c)
	var out []outgoing
	for g, r := range sw.readers {
		if r.bestEffort || r.acked > sn || r.from > sn || !c.meantFor(g) {
			continue
		}
		out = append(out, outgoing{dst: g.Prefix, to: p.endpointLocators(g),
			subs: []wire.Submessage{gapOf(g.Entity, sw.id, []wire.SequenceNumber{sn}), sw.heartbeat(false)}})
	}
	p.mu.Unlock()
	p.send(out)
	return true
}
