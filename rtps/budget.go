package rtps

import (
	"github.com/actbridge/actbridge/rtps/fragment"
	"github.com/actbridge/actbridge/rtps/wire"
)

// defaultReceiveBudget is Config.ReceiveBudget's default: four 8 MiB
// samples in reassembly, as one reader's own fragment budget allows.
const defaultReceiveBudget = 32 << 20

// receiveHeld is what every reader holds now of samples that arrived
// ahead of a missing one and of partial fragmented samples; p.mu must be
// held.
func (p *Participant) receiveHeld() int {
	n := 0
	for _, r := range p.readers {
		_, b := r.frags.Pending()
		n += b
		for _, uw := range r.writers {
			n += uw.heldBytes
		}
	}
	return n
}

// reserve makes room for n more octets that reader r would hold for
// remote writer w, within Config.ReceiveBudget, the one budget of every
// reader and remote writer: a flood of writers cannot make us hold more
// than it, however many they are. Room is made by giving up what another
// pair holds: an unprotected writer's before a protected one's (and a
// protected one's only for a protected writer), the largest first, and
// never that of a pair holding less than r holds for w, so that a writer
// cannot starve the others by asking. It reports whether n fits (if not,
// the writer sends it again); p.mu must be held.
func (p *Participant) reserve(r *Reader, w wire.GUID, n int) bool {
	used := p.receiveHeld()
	if used+n > p.cfg.ReceiveBudget {
		held := map[*Reader]map[wire.GUID]int{}
		for _, r2 := range p.readers {
			u := r2.frags.Held()
			for w2, uw := range r2.writers {
				u[w2] += uw.heldBytes
			}
			held[r2] = u
		}
		own, mine := held[r][w], p.protectsWriter(w)
		for used+n > p.cfg.ReceiveBudget {
			vr, vw := p.receiveVictim(held, r, w, own, mine)
			if vr == nil {
				p.stats.ReceiveDropped++
				return false
			}
			freed := vr.giveUp(vw)
			held[vr][vw] -= freed
			used -= freed
			p.stats.ReceiveDropped++
		}
	}
	p.stats.ReceiveBytesPeak = max(p.stats.ReceiveBytesPeak, used+n)
	return true
}

// receiveVictim picks whose held octets go for reserve (nil when none may).
func (p *Participant) receiveVictim(held map[*Reader]map[wire.GUID]int, r *Reader, w wire.GUID, own int, protected bool) (*Reader, wire.GUID) {
	var vr *Reader
	var vw wire.GUID
	best, bestProtected := 0, true
	for r2, ws := range held {
		for w2, u := range ws {
			if (r2 == r && w2 == w) || u == 0 || u < own {
				continue
			}
			prot := p.protectsWriter(w2)
			if prot && !protected {
				continue
			}
			if vr == nil || (bestProtected && !prot) || (bestProtected == prot && u > best) {
				vr, vw, best, bestProtected = r2, w2, u, prot
			}
		}
	}
	return vr, vw
}

// protectsWriter reports whether remote writer w is on a protected
// topic; p.mu must be held.
func (p *Participant) protectsWriter(w wire.GUID) bool {
	e, ok := p.sedp.remote[w]
	return ok && p.protects(e)
}

// giveUp drops what r holds for writer w to free room: its oldest
// partial sample, else its latest sample held out of order (asked for
// again: it leaves the received set). It returns the octets freed.
func (r *Reader) giveUp(w wire.GUID) int {
	_, before := r.frags.Pending()
	if r.frags.DropOldest(w) {
		_, after := r.frags.Pending()
		return before - after
	}
	uw, ok := r.writers[w]
	if !ok || len(uw.held) == 0 {
		return 0
	}
	top := wire.SequenceNumber(-1)
	for sn := range uw.held {
		top = max(top, sn)
	}
	n := len(uw.held[top].Payload)
	delete(uw.held, top)
	uw.heldBytes -= n
	old := uw.received
	uw.received = wire.NewSequenceNumberSet(old.Base)
	for _, sn := range old.Members() {
		if sn != top {
			uw.received.Add(sn)
		}
	}
	return n
}

// forgetWriter drops what r holds for remote writer w, gone; p.mu must
// be held.
func (r *Reader) forgetWriter(w wire.GUID) {
	delete(r.writers, w)
	for r.frags.DropOldest(w) {
	}
}

// fragmentRoom is the octets a DATA_FRAG may add to what r holds for
// writer w: a new partial sample's size and inline QoS, or the inline QoS
// a later fragment brings.
func fragmentRoom(r *Reader, w wire.GUID, f *wire.DataFrag) int {
	if f.FragmentSize == 0 || f.SampleSize > maxFragmentedSample {
		return 0 // refused by Add
	}
	if !r.frags.Started(fragment.Key{Writer: w, SN: f.WriterSN}) {
		if f.FragmentStart == 1 && uint64(f.Fragments)*uint64(f.FragmentSize) >= uint64(f.SampleSize) {
			return 0 // whole: nothing is held
		}
		return int(f.SampleSize) + fragment.MaxInlineQoS
	}
	if f.InlineQoS != nil {
		return fragment.MaxInlineQoS
	}
	return 0
}
