package rtps

import (
	"slices"

	"github.com/actbridge/actbridge/rtps/wire"
)

// statefulWriter is the reliable side of a writer: a history of changes,
// a proxy per matched remote reader, repairs of what readers NACK and
// heartbeats until they acknowledge. An SEDP announcer keeps the latest
// change per key (keepLast 0) and is transient-local; a user writer keeps
// its last keepLast changes. It does no IO: its methods return the
// submessages to send, the participant sends them. Callers hold the
// participant's lock.
type statefulWriter struct {
	id, readerID wire.EntityID
	changes      []change // ascending SN
	next         wire.SequenceNumber
	hbCount      int32
	readers      map[wire.GUID]*readerProxy
	keepLast     int  // 0: one change per key
	durable      bool // transient-local: new readers get the history
}

type change struct {
	sn      wire.SequenceNumber
	key     wire.GUID
	payload []byte // serialized payload; nil for a dispose
	qos     wire.ParameterList
}

type readerProxy struct {
	acked wire.SequenceNumber // every SN below is acknowledged
	// bestEffort readers never acknowledge; they are not waited for.
	bestEffort bool
	// lastNack is the count of the last ACKNACK acted on; repeats are ignored.
	lastNack int32
}

// newBuiltinWriter is an SEDP announcer: transient-local, one change per
// key, addressed to the remote builtin reader readerID.
func newBuiltinWriter(id, readerID wire.EntityID) *statefulWriter {
	return &statefulWriter{id: id, readerID: readerID, next: 1, readers: map[wire.GUID]*readerProxy{}, durable: true}
}

// write adds a change (nil payload: dispose) and returns the submessages
// every matched reader gets. It replaces the change of the same key, or
// drops the oldest beyond keepLast.
func (w *statefulWriter) write(key wire.GUID, payload []byte, qos wire.ParameterList) []wire.Submessage {
	if w.keepLast == 0 {
		w.changes = slices.DeleteFunc(w.changes, func(c change) bool { return c.key == key })
	} else if len(w.changes) >= w.keepLast {
		w.changes = slices.Delete(w.changes, 0, len(w.changes)-w.keepLast+1)
	}
	c := change{sn: w.next, key: key, payload: payload, qos: qos}
	w.next++
	w.changes = append(w.changes, c)
	return []wire.Submessage{w.data(c), w.heartbeat(false)}
}

// match adds remote reader g and returns what it gets first: the history
// when durable, and a heartbeat.
func (w *statefulWriter) match(g wire.GUID) []wire.Submessage {
	if _, ok := w.readers[g]; !ok {
		acked := wire.SequenceNumber(1)
		if !w.durable {
			acked = w.next
		}
		w.readers[g] = &readerProxy{acked: acked, lastNack: -1 << 31}
	}
	var out []wire.Submessage
	if w.durable {
		for _, c := range w.changes {
			out = append(out, w.data(c))
		}
	}
	return append(out, w.heartbeat(false))
}

func (w *statefulWriter) unmatch(g wire.GUID) { delete(w.readers, g) }

// onAckNack records what a reader acknowledged and returns the repairs:
// the changes it misses, GAPs for numbers no longer held.
func (w *statefulWriter) onAckNack(g wire.GUID, a *wire.AckNack) []wire.Submessage {
	r, ok := w.readers[g]
	if !ok || a.Count <= r.lastNack {
		return nil
	}
	r.lastNack = a.Count
	if a.State.Base > r.acked {
		r.acked = min(a.State.Base, w.next)
	}
	w.prune()
	var out []wire.Submessage
	var gaps []wire.SequenceNumber
	for _, sn := range a.State.Members() {
		if sn >= w.next {
			break
		}
		if i, ok := slices.BinarySearchFunc(w.changes, sn, func(c change, sn wire.SequenceNumber) int { return cmpSN(c.sn, sn) }); ok {
			out = append(out, w.data(w.changes[i]))
		} else {
			gaps = append(gaps, sn)
		}
	}
	if len(gaps) > 0 {
		out = append(out, gapOf(w.readerID, w.id, gaps))
	}
	if len(out) > 0 {
		out = append(out, w.heartbeat(false))
	}
	return out
}

// prune drops disposes every matched reader has acknowledged: a reader
// that joins later never knew the key, so it needs no dispose.
func (w *statefulWriter) prune() {
	low := w.next
	for _, r := range w.readers {
		if !r.bestEffort {
			low = min(low, r.acked)
		}
	}
	w.changes = slices.DeleteFunc(w.changes, func(c change) bool { return c.payload == nil && c.sn < low })
}

// unacked lists the readers that have not acknowledged everything.
func (w *statefulWriter) unacked() []wire.GUID {
	var out []wire.GUID
	for p, r := range w.readers {
		if r.acked < w.next && !r.bestEffort {
			out = append(out, p)
		}
	}
	return out
}

// acknowledged reports whether reader g acknowledged every change.
func (w *statefulWriter) acknowledged(g wire.GUID) bool {
	r, ok := w.readers[g]
	return ok && r.acked >= w.next
}

func (w *statefulWriter) data(c change) *wire.Data {
	g := c.key.Bytes()
	d := &wire.Data{ReaderID: w.readerID, WriterID: w.id, WriterSN: c.sn,
		InlineQoS: wire.ParameterList{{ID: wire.PIDKeyHash, Value: g[:]}}}
	if c.payload == nil {
		d.InlineQoS = append(d.InlineQoS, wire.Parameter{ID: wire.PIDStatusInfo, Value: []byte{0, 0, 0, wire.StatusDisposed | wire.StatusUnregistered}})
		d.Key = true
		d.Payload, _ = plPayload(wire.ParameterList{{ID: wire.PIDEndpointGUID, Value: g[:]}})
		return d
	}
	d.Payload = c.payload
	if c.qos != nil {
		d.InlineQoS = c.qos
	} else if w.keepLast > 0 {
		d.InlineQoS = nil // user data: no key hash for keyless samples
	}
	return d
}

func (w *statefulWriter) heartbeat(final bool) *wire.Heartbeat {
	w.hbCount++
	first := w.next
	if len(w.changes) > 0 {
		first = w.changes[0].sn
	}
	return &wire.Heartbeat{ReaderID: w.readerID, WriterID: w.id, First: first, Last: w.next - 1, Count: w.hbCount, Final: final}
}

// gapOf builds a GAP of the given ascending numbers (at most 256 apart,
// as they come from one ACKNACK).
func gapOf(readerID, writerID wire.EntityID, sns []wire.SequenceNumber) *wire.Gap {
	g := &wire.Gap{ReaderID: readerID, WriterID: writerID, Start: sns[0], List: wire.NewSequenceNumberSet(sns[0] + 1)}
	for _, sn := range sns[1:] {
		g.List.Add(sn)
	}
	return g
}

func cmpSN(a, b wire.SequenceNumber) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
