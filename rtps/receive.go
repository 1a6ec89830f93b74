package rtps

import (
	"net/netip"
	"time"

	"github.com/actbridge/actbridge/rtps/wire"
)

// maxMessage is the largest datagram sent, unless one submessage alone is
// larger: CycloneDDS's default (MaxMessageSize), which it and Fast DDS
// read. Octets sent cost less in fewer datagrams: a 64 KB sample is five
// datagrams, where 8 KiB ones made it eight.
const maxMessage = 14720

// outgoing is submessages for one remote participant (INFO_DST is added).
type outgoing struct {
	dst  wire.GUIDPrefix
	to   []netip.AddrPort
	subs []wire.Submessage
}

// handle processes one datagram from address from (the sender's IP; the
// zero Addr when not known): the submessages that parsed, with the source
// and destination INFO_SRC and INFO_DST set for them.
func (p *Participant) handle(b []byte, from netip.Addr) {
	// One allocation for a datagram's usual submessages, not one per growth.
	m := wire.Message{Submessages: make([]wire.Submessage, 0, 8)}
	if err := m.Unmarshal(b); err != nil {
		p.cfg.Logger.Debug("rtps: bad message", "err", err)
		// The submessages before the bad one stand (spec 8.3.4.1).
	}
	src, vendor := m.Header.Prefix, m.Header.Vendor
	if src == p.self.Prefix {
		return
	}
	var out []outgoing
	forUs := true
	var ts time.Time // the source timestamp of what follows (INFO_TS)
	for _, s := range m.Submessages {
		switch s := s.(type) {
		case *wire.InfoSrc:
			src, vendor, ts = s.Prefix, s.Vendor, time.Time{}
		case *wire.InfoDst:
			forUs = s.Prefix == (wire.GUIDPrefix{}) || s.Prefix == p.self.Prefix
		case *wire.InfoTS:
			ts = time.Time{}
			if !s.Invalidate {
				ts = s.Time.Time()
			}
		default:
			if forUs && src != p.self.Prefix {
				out = append(out, p.dispatch(src, vendor, from, ts, s)...)
			}
		}
	}
	p.deliver()
	p.send(out)
}

// delivery is a sample for a reader's listener.
type delivery struct {
	f func(Sample)
	s Sample
}

// deliver calls the listeners of the samples handled so far, before the
// acknowledgments go out: a listener that answers saves the round trip
// that much. deliverMu keeps the calls one at a time and in the order the
// samples were queued, whichever receiving goroutine took them.
func (p *Participant) deliver() {
	p.deliverMu.Lock()
	defer p.deliverMu.Unlock()
	p.mu.Lock()
	ds := p.deliveries
	p.deliveries = nil
	p.mu.Unlock()
	for _, d := range ds {
		d.f(d.s)
	}
}

// dispatch routes one submessage from participant src, received from
// address from, to the builtin endpoint it is for.
func (p *Participant) dispatch(src wire.GUIDPrefix, vendor wire.VendorID, from netip.Addr, ts time.Time, s wire.Submessage) []outgoing {
	switch s := s.(type) {
	case *wire.Data:
		switch {
		case s.WriterID == wire.EntityIDSPDPWriter:
			return p.handleSPDP(src, vendor, from, s)
		case s.WriterID.IsBuiltin():
			return p.handleSEDPData(src, from, s)
		case s.Payload != nil && !s.Key && !disposed(s):
			return p.handleUserData(wire.GUID{Prefix: src, Entity: s.WriterID}, s, ts)
		}
	case *wire.DataFrag:
		if !s.WriterID.IsBuiltin() && !s.Key {
			return p.handleUserFrag(wire.GUID{Prefix: src, Entity: s.WriterID}, s, ts)
		}
	case *wire.Heartbeat:
		if s.WriterID == wire.EntityIDSPDPWriter {
			return p.handleDSHeartbeat(src, from, s)
		}
		if s.WriterID.IsBuiltin() {
			return p.handleSEDPHeartbeat(src, from, s)
		}
		return p.handleUserHeartbeat(wire.GUID{Prefix: src, Entity: s.WriterID}, s)
	case *wire.Gap:
		if s.WriterID == wire.EntityIDSPDPWriter {
			p.handleDSGap(src, from, s)
		} else if s.WriterID.IsBuiltin() {
			p.handleSEDPGap(src, s)
		} else {
			p.handleUserGap(wire.GUID{Prefix: src, Entity: s.WriterID}, s)
		}
	case *wire.HeartbeatFrag:
		if !s.WriterID.IsBuiltin() {
			return p.handleUserHeartbeatFrag(wire.GUID{Prefix: src, Entity: s.WriterID}, s)
		}
	case *wire.NackFrag:
		if !s.WriterID.IsBuiltin() {
			return p.handleUserNackFrag(src, s)
		}
	case *wire.AckNack:
		if s.WriterID == wire.EntityIDSPDPWriter {
			p.handleDSAckNack(src, from, s)
			return nil
		}
		if s.WriterID.IsBuiltin() {
			return p.handleSEDPAckNack(src, s)
		}
		return p.handleUserAckNack(src, s)
	}
	return nil
}

// send marshals and sends the outgoing submessages, a datagram per
// maxMessage octets.
func (p *Participant) send(out []outgoing) { p.sendBuffered(nil, out) }

// sendBuffered is send marshalling into buf, which it returns for reuse.
func (p *Participant) sendBuffered(buf []byte, out []outgoing) []byte {
	b := buf
	for _, o := range out {
		hdr := wire.Header{Version: wire.Version(), Vendor: VendorID, Prefix: p.self.Prefix}
		b = hdr.AppendTo(b[:0])
		b, _ = wire.AppendSubmessage(b, &wire.InfoDst{Prefix: o.dst})
		start := len(b)
		// An INFO_TS holds for what follows it in its datagram: it never
		// ends one, and each datagram that continues after one starts
		// with it again (the fragments of a sample all carry its time).
		var ts *wire.InfoTS
		tsAt := -1 // where the INFO_TS just before the next submessage begins
		for _, s := range o.subs {
			at := len(b)
			if at > start && sampleCarrier(s) && at+payloadSize(s) > maxMessage {
				// It cannot fit after what is there: that goes first, so
				// that its payload is copied once, not appended, cut and
				// appended again (a 64 KB sample's every DATA_FRAG was).
				cut := at
				if tsAt >= 0 {
					cut = tsAt
				}
				if cut > start {
					p.writeAll(b[:cut], o.to)
					b, at, tsAt = b[:start], start, -1
				}
			}
			t, isTS := s.(*wire.InfoTS)
			if isTS {
				ts = t
			} else if at == start && ts != nil {
				b, _ = wire.AppendSubmessage(b, ts)
				tsAt, at = at, len(b)
			}
			var err error
			if b, err = wire.AppendSubmessage(b, s); err != nil {
				p.cfg.Logger.Debug("rtps: marshal", "err", err)
				continue
			}
			if isTS {
				tsAt = at
				continue
			}
			cut := at
			if tsAt >= 0 {
				cut = tsAt
			}
			tsAt = -1
			switch {
			case len(b) <= maxMessage:
			case cut == start: // alone it is larger: it goes alone
				p.writeAll(b, o.to)
				b = b[:start]
			default: // what came before goes; s opens the next datagram
				p.writeAll(b[:cut], o.to)
				b = b[:start]
				if ts != nil {
					b, _ = wire.AppendSubmessage(b, ts)
				}
				b, _ = wire.AppendSubmessage(b, s)
			}
		}
		if len(b) > start {
			p.writeAll(b, o.to)
		}
	}
	return b
}

// sampleCarrier reports whether s is a DATA or DATA_FRAG, whose size on
// the wire payloadSize does not overestimate.
func sampleCarrier(s wire.Submessage) bool {
	switch s.(type) {
	case *wire.Data, *wire.DataFrag:
		return true
	}
	return false
}

func (p *Participant) writeAll(b []byte, to []netip.AddrPort) {
	for _, a := range to {
		if err := p.uc.WriteTo(b, a); err != nil {
			p.cfg.Logger.Debug("rtps: send", "to", a, "err", err)
		}
	}
}
