package rtps

import (
	"encoding/binary"
	"errors"
	"net"
	"net/netip"
	"slices"
	"time"

	"github.com/actbridge/actbridge/rtps/udp"
	"github.com/actbridge/actbridge/rtps/wire"
)

// handleSPDP learns, refreshes or drops a participant from an SPDP
// sample received from address from.
func (p *Participant) handleSPDP(src wire.GUIDPrefix, vendor wire.VendorID, from netip.Addr, d *wire.Data) []outgoing {
	if p.dsClient() {
		return p.handleDSSPDP(src, vendor, from, d)
	}
	if disposed(d) {
		// A participant says goodbye for itself only; without a key the
		// sender is meant.
		if g, ok := disposedKey(d, wire.PIDParticipantGUID); !ok || g.Prefix == src {
			p.forget(src, from)
		}
		return nil
	}
	if d.Payload == nil || d.Key {
		return nil
	}
	pl, o, err := payloadParameterList(d.Payload)
	if err != nil {
		p.cfg.Logger.Debug("rtps: bad SPDP payload", "src", src, "err", err)
		return nil
	}
	data, err := ParseParticipantData(pl, o, vendor)
	if err != nil {
		p.cfg.Logger.Debug("rtps: bad SPDP data", "src", src, "err", err)
		return nil
	}
	if data.Prefix == p.self.Prefix || (data.HasDomain && data.Domain != uint32(p.cfg.Domain)) || data.Version.Major != 2 {
		return nil
	}
	return p.learnVia(data, wire.GUIDPrefix{})
}

// disposed reports whether a DATA's status info disposes or unregisters.
func disposed(d *wire.Data) bool {
	st, ok := d.InlineQoS.Get(wire.PIDStatusInfo)
	return ok && len(st) == 4 && st[3]&(wire.StatusDisposed|wire.StatusUnregistered) != 0
}

// disposedKey finds the GUID a dispose names: its key hash, else the
// serialized key's parameter pid (participant or endpoint GUID).
func disposedKey(d *wire.Data, pid wire.ParameterID) (wire.GUID, bool) {
	if kh, ok := d.InlineQoS.Get(wire.PIDKeyHash); ok {
		if g, err := wire.GUIDFromBytes(kh); err == nil {
			return g, true
		}
	}
	if d.Payload != nil {
		if pl, _, err := payloadParameterList(d.Payload); err == nil {
			if v, ok := pl.Get(pid); ok {
				if g, err := wire.GUIDFromBytes(v); err == nil {
					return g, true
				}
			}
		}
	}
	return wire.GUID{}, false
}

// learnVia adds or refreshes a participant, relayed by discovery server
// via (zero: announced by itself). A new one that announced itself gets
// our SPDP announcement at once, so it need not wait for our next period,
// and is matched with our SEDP endpoints; a relayed one talks discovery
// with its server alone.
func (p *Participant) learnVia(d ParticipantData, via wire.GUIDPrefix) []outgoing {
	lease := min(d.LeaseDuration, p.cfg.MaxLease)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil
	}
	r, known := p.remotes[d.Prefix]
	if !known {
		if len(p.remotes) >= p.cfg.MaxParticipants && !p.evictParticipant() {
			p.stats.ParticipantsRefused++
			p.cfg.Logger.Debug("rtps: participant limit reached, every one protected", "prefix", d.Prefix)
			return nil
		}
		if d.LeaseDuration > p.cfg.MaxLease {
			p.stats.LeasesCapped++
		}
		p.learned++
		r = &remote{learned: p.learned}
		p.remotes[d.Prefix] = r
	}
	if p.dsClient() {
		if via == (wire.GUIDPrefix{}) {
			r.server, r.via = true, nil // handleDSSPDP lets only servers announce themselves
		} else if !r.server {
			r.vouch(via)
		}
	}
	changed := !known || !sameData(r.data, d)
	r.data, r.deadline = d, time.Now().Add(lease)
	if changed {
		p.notify()
	}
	if known {
		return nil
	}
	p.cfg.Logger.Debug("rtps: new participant", "prefix", d.Prefix, "vendor", d.Vendor, "via", via)
	out := p.unpark(d)
	if via != (wire.GUIDPrefix{}) {
		return out
	}
	select {
	case p.newcomer <- struct{}{}:
	default:
	}
	to := p.locatorsOf([]ParticipantData{d})
	if b, err := p.spdpMessage(false); err == nil {
		p.writeAll(b, to)
	}
	return append(out, p.matchBuiltins(d, to)...)
}

func sameData(a, b ParticipantData) bool {
	return a.Vendor == b.Vendor && a.BuiltinEndpoints == b.BuiltinEndpoints && a.LeaseDuration == b.LeaseDuration &&
		string(a.UserData) == string(b.UserData) &&
		equalLocators(a.MetatrafficUnicast, b.MetatrafficUnicast) && equalLocators(a.DefaultUnicast, b.DefaultUnicast)
}

func equalLocators(a, b []wire.Locator) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// forget drops a participant that said goodbye from address from, when
// that is one of its own (see sentBy); otherwise it is left to its lease.
func (p *Participant) forget(prefix wire.GUIDPrefix, from netip.Addr) {
	p.mu.Lock()
	defer p.mu.Unlock()
	r, ok := p.remotes[prefix]
	if !ok {
		return
	}
	if !sentBy(r.data, from, hostAddr) {
		p.stats.DisposesIgnored++
		p.cfg.Logger.Debug("rtps: goodbye from an address the participant never announced ignored", "prefix", prefix, "from", from)
		return
	}
	p.cfg.Logger.Debug("rtps: participant left", "prefix", prefix)
	p.drop(prefix)
}

// sentBy reports whether a datagram from address from may be participant
// d's own: from is the IP of one of the unicast locators d announced
// (metatraffic or default). The port tells nothing: CycloneDDS, and we,
// send from a socket other than the one announced. A loopback source
// also passes when d announced a non-loopback address of this host
// (local reports those): a peer here that announces only its interfaces'
// addresses (Fast DDS leaves loopback out) reaches our 127.0.0.1 from
// 127.0.0.1, and the kernel takes a loopback source only from this host.
// Anyone who can send from an announced IP (a process on the same host,
// a spoofer on its network) passes; a stranger elsewhere does not.
func sentBy(d ParticipantData, from netip.Addr, local func(netip.Addr) bool) bool {
	from = from.Unmap()
	if !from.IsValid() || from.IsUnspecified() || from.IsMulticast() {
		return false
	}
	var here bool
	for _, ls := range [][]wire.Locator{d.MetatrafficUnicast, d.DefaultUnicast} {
		for _, l := range ls {
			ap, ok := l.AddrPort()
			if !ok {
				continue
			}
			a := ap.Addr().Unmap()
			if a == from {
				return true
			}
			here = here || (from.IsLoopback() && !a.IsLoopback() && local(a))
		}
	}
	return here
}

// hostAddr reports whether a is the address of one of this host's
// interfaces.
func hostAddr(a netip.Addr) bool {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return false
	}
	for _, ia := range addrs {
		if n, ok := ia.(*net.IPNet); ok {
			if h, ok := netip.AddrFromSlice(n.IP); ok && h.Unmap() == a {
				return true
			}
		}
	}
	return false
}

// locatorsOf lists the reachable discovery unicast addresses of ds.
func (p *Participant) locatorsOf(ds []ParticipantData) []netip.AddrPort {
	var out []netip.AddrPort
	for _, d := range ds {
		for _, l := range d.MetatrafficUnicast {
			if ap, ok := l.AddrPort(); ok && p.uc.Reachable(ap.Addr()) {
				out = append(out, ap)
			}
		}
	}
	return out
}

// announce sends our SPDP sample (or, for goodbye, its dispose) to the
// SPDP destinations and every known participant.
func (p *Participant) announce(goodbye bool) error {
	known := p.Participants()
	if p.dsClient() {
		// Our servers alone: a client talks discovery with nobody else.
		p.mu.Lock()
		known = slices.DeleteFunc(known, func(d ParticipantData) bool { return !p.isServer(d.Prefix) })
		p.mu.Unlock()
	}
	dst := append(append([]netip.AddrPort{}, p.spdp...), p.locatorsOf(known)...)
	return p.sendSPDP(goodbye, dst)
}

func (p *Participant) sendSPDP(goodbye bool, dst []netip.AddrPort) error {
	// No announcement goes after the goodbye: one the run goroutine sent
	// just after Close's brought us back to life on our peers for a whole
	// lease (TestCloseSaysGoodbyeSoPeersDropAtOnce, now and then).
	p.spdpMu.Lock()
	defer p.spdpMu.Unlock()
	if p.saidGoodbye {
		return nil
	}
	p.saidGoodbye = goodbye
	b, err := p.spdpMessage(goodbye)
	if err != nil {
		return err
	}
	var errs []error
	seen := map[netip.AddrPort]bool{}
	for _, a := range dst {
		if seen[a] {
			continue
		}
		seen[a] = true
		if err := p.uc.WriteTo(b, a); err != nil {
			errs = append(errs, err)
		}
	}
	if p.hm != nil {
		mport, _ := udp.DefaultPorts().MetatrafficMulticast(p.cfg.Domain)
		if err := p.hm.WriteTo(b, netip.AddrPortFrom(udp.SPDPGroup(), mport)); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		p.cfg.Logger.Debug("rtps: SPDP send", "err", err)
		return err
	}
	return nil
}

// spdpMessage builds INFO_TS + DATA(SPDP): our participant data, or for
// goodbye a disposed+unregistered key (inline key hash and status info,
// serialized key with the participant guid), as CycloneDDS and Fast DDS
// both understand.
func (p *Participant) spdpMessage(goodbye bool) ([]byte, error) {
	sn := wire.SequenceNumber(p.seq.Add(1))
	self := p.self
	if p.dsClient() {
		sn, self = dsSPDPSN, p.dsData()
		if goodbye {
			sn = dsGoodbyeSN
		}
	}
	g := p.self.GUID().Bytes()
	data := &wire.Data{
		ReaderID: wire.EntityIDSPDPReader, WriterID: wire.EntityIDSPDPWriter, WriterSN: sn,
		InlineQoS: wire.ParameterList{{ID: wire.PIDKeyHash, Value: g[:]}},
	}
	if p.dsClient() {
		data.InlineQoS = append(data.InlineQoS, sampleIdentityQoS(wire.GUID{Prefix: p.self.Prefix, Entity: wire.EntityIDSPDPWriter}, sn)...)
	}
	var err error
	if goodbye {
		data.InlineQoS = append(data.InlineQoS, wire.Parameter{ID: wire.PIDStatusInfo, Value: []byte{0, 0, 0, wire.StatusDisposed | wire.StatusUnregistered}})
		data.Key = true
		data.Payload, err = plPayload(wire.ParameterList{{ID: wire.PIDParticipantGUID, Value: g[:]}})
	} else {
		data.Payload, err = plPayload(self.ParameterList(binary.LittleEndian))
	}
	if err != nil {
		return nil, err
	}
	m := wire.Message{
		Header:      wire.Header{Version: wire.Version(), Vendor: VendorID, Prefix: p.self.Prefix},
		Submessages: []wire.Submessage{&wire.InfoTS{Time: wire.TimeOf(time.Now())}, data},
	}
	return m.Marshal()
}
