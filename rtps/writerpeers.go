package rtps

import "github.com/actbridge/actbridge/rtps/wire"

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
