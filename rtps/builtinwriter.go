package rtps

import (
	"slices"

	"github.com/actbridge/actbridge/rtps/wire"
)

// builtinWriter is a reliable, stateful, transient-local writer of keyed
// discovery samples (an SEDP announcer): it keeps the latest change per
// key, sends everything to a newly matched reader, repairs what readers
// NACK and heartbeats until they acknowledge. It does no IO: its methods
// return the submessages to send, the participant sends them. Callers
// hold the participant's lock.
type builtinWriter struct {
	id, readerID wire.EntityID
	changes      []change // ascending SN, one per key
	next         wire.SequenceNumber
	hbCount      int32
	readers      map[wire.GUIDPrefix]*readerProxy
}

type change struct {
	sn      wire.SequenceNumber
	key     wire.GUID
	payload []byte // PL_CDR_LE; nil for a dispose
}

type readerProxy struct {
	acked wire.SequenceNumber // every SN below is acknowledged
	// lastNack is the count of the last ACKNACK acted on; repeats are ignored.
	lastNack int32
}

func newBuiltinWriter(id, readerID wire.EntityID) *builtinWriter {
	return &builtinWriter{id: id, readerID: readerID, next: 1, readers: map[wire.GUIDPrefix]*readerProxy{}}
}

// write replaces the change of key (nil payload: dispose) and returns the
// submessages every matched reader gets.
func (w *builtinWriter) write(key wire.GUID, payload []byte) []wire.Submessage {
	w.changes = slices.DeleteFunc(w.changes, func(c change) bool { return c.key == key })
	c := change{sn: w.next, key: key, payload: payload}
	w.next++
	w.changes = append(w.changes, c)
	return []wire.Submessage{w.data(c), w.heartbeat(false)}
}

// match adds a remote reader and returns all changes and a heartbeat.
func (w *builtinWriter) match(prefix wire.GUIDPrefix) []wire.Submessage {
	if _, ok := w.readers[prefix]; !ok {
		w.readers[prefix] = &readerProxy{acked: 1, lastNack: -1 << 31}
	}
	var out []wire.Submessage
	for _, c := range w.changes {
		out = append(out, w.data(c))
	}
	return append(out, w.heartbeat(false))
}

func (w *builtinWriter) unmatch(prefix wire.GUIDPrefix) { delete(w.readers, prefix) }

// onAckNack records what a reader acknowledged and returns the repairs:
// the changes it misses, GAPs for numbers no longer held.
func (w *builtinWriter) onAckNack(prefix wire.GUIDPrefix, a *wire.AckNack) []wire.Submessage {
	r, ok := w.readers[prefix]
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
func (w *builtinWriter) prune() {
	low := w.next
	for _, r := range w.readers {
		low = min(low, r.acked)
	}
	w.changes = slices.DeleteFunc(w.changes, func(c change) bool { return c.payload == nil && c.sn < low })
}

// unacked lists the readers that have not acknowledged everything.
func (w *builtinWriter) unacked() []wire.GUIDPrefix {
	var out []wire.GUIDPrefix
	for p, r := range w.readers {
		if r.acked < w.next {
			out = append(out, p)
		}
	}
	return out
}

// acknowledged reports whether reader prefix acknowledged every change.
func (w *builtinWriter) acknowledged(prefix wire.GUIDPrefix) bool {
	r, ok := w.readers[prefix]
	return ok && r.acked >= w.next
}

func (w *builtinWriter) data(c change) *wire.Data {
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
	return d
}

func (w *builtinWriter) heartbeat(final bool) *wire.Heartbeat {
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
