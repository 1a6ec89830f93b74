package rtps

import "github.com/actbridge/actbridge/rtps/wire"

// builtinReader is a reliable, stateful reader of discovery samples (an
// SEDP detector): per remote writer it tracks which sequence numbers
// arrived, answers heartbeats with ACKNACKs naming the missing ones, and
// drops duplicates. Samples are delivered as they arrive; discovery keeps
// the latest per key, and the writer keeps one change per key. Callers
// hold the participant's lock.
type builtinReader struct {
	id, writerID wire.EntityID
	writers      map[wire.GUIDPrefix]*writerProxy
}

type writerProxy struct {
	next     wire.SequenceNumber // lowest SN neither received nor known irrelevant
	received wire.SequenceNumberSet
	hbCount  int32
	ackCount int32
}

func newBuiltinReader(id, writerID wire.EntityID) *builtinReader {
	return &builtinReader{id: id, writerID: writerID, writers: map[wire.GUIDPrefix]*writerProxy{}}
}

func (r *builtinReader) proxy(prefix wire.GUIDPrefix) *writerProxy {
	w, ok := r.writers[prefix]
	if !ok {
		w = &writerProxy{next: 1, received: wire.NewSequenceNumberSet(1), hbCount: -1 << 31}
		r.writers[prefix] = w
	}
	return w
}

func (r *builtinReader) forget(prefix wire.GUIDPrefix) { delete(r.writers, prefix) }

// onData reports whether the sample with sn is new (to deliver). Samples
// beyond the 256-number window are refused; the writer sends them again.
func (r *builtinReader) onData(prefix wire.GUIDPrefix, sn wire.SequenceNumber) bool {
	w := r.proxy(prefix)
	if sn < w.next || w.received.Contains(sn) {
		return false
	}
	if !w.received.Add(sn) {
		return false
	}
	w.advance()
	return true
}

// onGap marks Start..List.Base-1 and List's members irrelevant.
func (r *builtinReader) onGap(prefix wire.GUIDPrefix, g *wire.Gap) {
	w := r.proxy(prefix)
	if g.Start <= w.next {
		w.skipTo(g.List.Base)
	} else {
		for sn := g.Start; sn < g.List.Base && sn < w.next+wire.MaxSetBits; sn++ {
			w.received.Add(sn)
		}
	}
	for _, sn := range g.List.Members() {
		if sn >= w.next {
			w.received.Add(sn)
		}
	}
	w.advance()
}

// onHeartbeat returns the ACKNACK to send, or nil when the heartbeat is
// stale or final with nothing missing.
func (r *builtinReader) onHeartbeat(prefix wire.GUIDPrefix, h *wire.Heartbeat) *wire.AckNack {
	w := r.proxy(prefix)
	if h.Count <= w.hbCount {
		return nil
	}
	w.hbCount = h.Count
	if h.First > w.next {
		w.skipTo(h.First) // the writer no longer has what came before
	}
	state := wire.NewSequenceNumberSet(w.next)
	for sn := w.next; sn <= h.Last && sn < w.next+wire.MaxSetBits; sn++ {
		if !w.received.Contains(sn) {
			state.Add(sn)
		}
	}
	if h.Final && state.NumBits == 0 {
		return nil
	}
	w.ackCount++
	return &wire.AckNack{ReaderID: r.id, WriterID: r.writerID, State: state, Count: w.ackCount, Final: state.NumBits == 0}
}

// advance moves next past the received run and rebases the window.
func (w *writerProxy) advance() {
	for w.received.Contains(w.next) {
		w.next++
	}
	w.rebase(w.next)
}

// skipTo treats everything below sn as done.
func (w *writerProxy) skipTo(sn wire.SequenceNumber) {
	if sn > w.next {
		w.next = sn
		w.rebase(sn)
		w.advance()
	}
}

// rebase moves the window's base to base, keeping the members at or above.
func (w *writerProxy) rebase(base wire.SequenceNumber) {
	if base == w.received.Base {
		return
	}
	old := w.received
	w.received = wire.NewSequenceNumberSet(base)
	for _, sn := range old.Members() {
		if sn >= base {
			w.received.Add(sn)
		}
	}
}
