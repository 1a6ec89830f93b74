package rtps

import (
	"encoding/binary"
	"net/netip"
	"slices"
	"time"

	"github.com/actbridge/actbridge/rtps/wire"
)

// A participant with Config.DiscoveryServers is a client of Fast DDS
// Discovery Servers (docs/discovery-server.md has the sources). What the
// servers expect, and what they send, as Fast DDS 2.9 and 3.x do:
//
//   - Our DATA(p) goes to each server's address, to the SPDP reader, with
//     the same sequence number every time (a new one only for goodbye),
//     as a reliable writer's one change. It names vendor eProsima in
//     PID_VENDORID (a server drops any other vendor's), says
//     PARTICIPANT_TYPE CLIENT or SUPER_CLIENT in its property list, and
//     carries its own sample identity in inline QoS, under 0x0083 and
//     Fast DDS's 0x800f (a server drops a DATA(p) without one).
//   - A server sends from its SPDP and SEDP writers, reliably, its own
//     DATA(p) and the DATA(p), DATA(w) and DATA(r) of the other
//     participants (relayed: its header prefix, its sequence numbers, the
//     original sample's payload). It sends a client the endpoints of
//     topics the client has endpoints on, a super client all of them, and
//     the endpoints only after the client acknowledged the participants'
//     DATA(p): so we answer its heartbeats.
//   - A client keeps no lease of a relayed participant: the servers say
//     when one leaves (a relayed dispose).
//
// Trust: a server is a participant whose DATA(p) comes from itself (its
// header prefix is the one it announces), from the host of the configured
// server address it announces as a metatraffic unicast locator; its later
// datagrams count from that host only. With several servers each vouches
// for what it relayed, and none takes away what another relayed. Only
// servers are believed about others; participants that announce
// themselves to us directly are ignored (clients talk discovery with
// servers only).
// Endpoints learned through a server are the endpoints of their owner,
// as if it had announced them: the layers above apply their one-source
// rules to them unchanged.

// Property names and values of the Discovery Server's DATA(p).
const (
	PropertyParticipantType = "PARTICIPANT_TYPE"
	PropertyDSVersion       = "DS_VERSION"
	dsVersion               = "2.0" // Fast DDS 2.9's and 3.x's current one
	participantClient       = "CLIENT"
	participantSuperClient  = "SUPER_CLIENT"
)

// pidRelatedSampleIdentityFastDDS is Fast DDS's id for a sample identity
// before the standard 0x0083; its Discovery Server reads a DATA(p)'s
// identity from either (2.9 only from this one).
const pidRelatedSampleIdentityFastDDS wire.ParameterID = 0x800f

// dsSPDPSN and dsGoodbyeSN are our DATA(p)'s sequence numbers for the
// servers: one change for as long as we live, the dispose after it.
const (
	dsSPDPSN    wire.SequenceNumber = 1
	dsGoodbyeSN wire.SequenceNumber = 2
)

// dsClient reports whether the participant discovers through servers.
func (p *Participant) dsClient() bool { return len(p.cfg.DiscoveryServers) > 0 }

// dsData is our participant data as the servers get it.
func (p *Participant) dsData() ParticipantData {
	d := p.self
	d.Vendor = wire.VendorEProsima
	role := participantClient
	if p.cfg.SuperClient {
		role = participantSuperClient
	}
	d.Properties = []Property{{PropertyParticipantType, role}, {PropertyDSVersion, dsVersion}}
	return d
}

// sampleIdentityQoS is the inline QoS naming a sample by its writer and
// sequence number, under both ids, little endian.
func sampleIdentityQoS(w wire.GUID, sn wire.SequenceNumber) wire.ParameterList {
	g := w.Bytes()
	v := binary.LittleEndian.AppendUint32(append([]byte{}, g[:]...), uint32(int64(sn)>>32))
	v = binary.LittleEndian.AppendUint32(v, uint32(sn))
	return wire.ParameterList{{ID: wire.PIDRelatedSampleIdentity, Value: v}, {ID: pidRelatedSampleIdentityFastDDS, Value: v}}
}

// configuredServer returns the configured server address d announces as
// a metatraffic unicast locator, if any (a loopback address and an
// address of this host count as the same host).
func (p *Participant) configuredServer(d ParticipantData) (netip.AddrPort, bool) {
	for _, l := range d.MetatrafficUnicast {
		ap, ok := l.AddrPort()
		if !ok {
			continue
		}
		for _, s := range p.cfg.DiscoveryServers {
			if ap.Port() == s.Port() && sameHost(ap.Addr(), s.Addr()) {
				return s, true
			}
		}
	}
	return netip.AddrPort{}, false
}

func sameHost(a, b netip.Addr) bool {
	a, b = a.Unmap(), b.Unmap()
	if a == b {
		return true
	}
	here := func(x netip.Addr) bool { return x.IsLoopback() || hostAddr(x) }
	return here(a) && here(b)
}

// isServer reports whether prefix is a server we learned; p.mu must be held.
func (p *Participant) isServer(prefix wire.GUIDPrefix) bool {
	r, ok := p.remotes[prefix]
	return ok && r.server
}

// serverFrom reports whether src is a server we learned and this datagram
// came from the host of the configured address it answers at: what a
// participant says of itself proves nothing, where its packets come from
// does (as sentBy), and one server's host speaks for no other server;
// p.mu must be held.
func (p *Participant) serverFrom(src wire.GUIDPrefix, from netip.Addr) bool {
	r, ok := p.remotes[src]
	if !ok || !r.server {
		return false
	}
	if sameHost(from, r.at.Addr()) {
		return true
	}
	p.stats.ServerImpostors++
	p.cfg.Logger.Debug("rtps: datagram under a discovery server's prefix from another host ignored", "prefix", src, "from", from)
	return false
}

// handleDSSPDP is handleSPDP for a discovery server client. Only a
// participant that announces a configured server's address and sends from
// that server's host is a server; only a server's relays are learned, and
// each relayed sample's number is taken whatever its content, so one
// sample we cannot use never stalls the relays behind it.
func (p *Participant) handleDSSPDP(src wire.GUIDPrefix, vendor wire.VendorID, from netip.Addr, d *wire.Data) []outgoing {
	if disposed(d) {
		g, ok := disposedKey(d, wire.PIDParticipantGUID)
		if !ok || g.Prefix == src {
			p.forget(src, from)
			return nil
		}
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.serverFrom(src, from) && p.dsReader.onData(src, d.WriterSN) {
			// It left this server; another that relayed it still vouches
			// for it until it says so too.
			if r, ok := p.remotes[g.Prefix]; ok && !r.server && r.unvouch(src) && len(r.via) == 0 {
				p.cfg.Logger.Debug("rtps: participant left, says its discovery server", "prefix", g.Prefix, "server", src)
				p.drop(g.Prefix)
			}
		}
		return nil
	}
	var data ParticipantData
	usable := false
	if d.Payload != nil && !d.Key {
		if pl, o, err := payloadParameterList(d.Payload); err == nil {
			var perr error
			data, perr = ParseParticipantData(pl, o, vendor)
			usable = perr == nil && data.Prefix != p.self.Prefix && (!data.HasDomain || data.Domain == uint32(p.cfg.Domain)) && data.Version.Major == 2
		}
	}
	if usable && data.Prefix == src {
		p.mu.Lock()
		at, known := netip.AddrPort{}, p.isServer(src)
		if known {
			at = p.remotes[src].at
		}
		p.mu.Unlock()
		if !known {
			at, known = p.configuredServer(data)
		}
		if !known || !sameHost(from, at.Addr()) {
			p.cfg.Logger.Debug("rtps: participant that is not a configured discovery server ignored", "prefix", src, "from", from)
			return nil
		}
		out := p.learnVia(data, wire.GUIDPrefix{})
		p.mu.Lock()
		if r, ok := p.remotes[src]; ok {
			r.at = at
		}
		p.dsReader.onData(src, d.WriterSN) // its own DATA(p) is a sample of its writer too
		p.mu.Unlock()
		return out
	}
	p.mu.Lock()
	fresh := p.serverFrom(src, from) && p.dsReader.onData(src, d.WriterSN)
	p.mu.Unlock()
	if !fresh || !usable {
		return nil
	}
	return p.learnVia(data, src)
}

// handleDSHeartbeat answers a server's SPDP writer, first resetting what
// we know of the server when it restarted.
func (p *Participant) handleDSHeartbeat(src wire.GUIDPrefix, from netip.Addr, h *wire.Heartbeat) []outgoing {
	p.mu.Lock()
	_, ok := p.remotes[src]
	if !ok || p.dsReader == nil || !p.serverFrom(src, from) {
		p.mu.Unlock()
		return nil
	}
	var out []outgoing
	if w, ok := p.dsReader.writers[src]; ok && restarted(w, h) {
		out = p.serverRestarted(src)
	}
	if a := p.dsReader.onHeartbeat(src, h); a != nil {
		if _, to, ok := p.known(src); ok {
			out = append(out, outgoing{dst: src, to: to, subs: []wire.Submessage{a}})
		}
	}
	p.mu.Unlock()
	return out
}

// serverRestarted resets what we know of server src, seen to start
// again (by a heartbeat of any of its discovery writers, whichever comes
// first), and sends it our endpoints; p.mu must be held, and is let go
// meanwhile.
func (p *Participant) serverRestarted(src wire.GUIDPrefix) []outgoing {
	r := p.remotes[src]
	if r == nil { // forgotten meanwhile: nothing of it to reset
		return nil
	}
	// Its new incarnation numbers its samples from 1 again: ours would
	// take them for old ones, and it has none of our endpoints.
	data, at := r.data, r.at
	p.stats.ServerRestarts++
	p.cfg.Logger.Debug("rtps: discovery server restarted", "prefix", src)
	// What the old incarnation relayed is no longer vouched for by it
	// (drop): without another server that relayed it, it keeps the lease
	// it has and leaves with it, unless the new one relays it again (a
	// node that died while the server was down must not live on as a
	// ghost server of an action).
	p.drop(src)
	p.mu.Unlock()
	out := p.learnVia(data, wire.GUIDPrefix{})
	p.mu.Lock()
	if r, ok := p.remotes[src]; ok {
		r.at = at
	}
	return out
}

// restarted reports whether a heartbeat shows its writer started again
// under the same GUID: it announces fewer samples than we received of it,
// or its count went back to the start. A false alarm costs one resync.
func restarted(w *writerProxy, h *wire.Heartbeat) bool {
	if w.hbCount < 1 {
		return false
	}
	return h.Last < w.next-1 || (h.Count < w.hbCount && h.Count <= w.hbCount/2)
}

func (p *Participant) handleDSGap(src wire.GUIDPrefix, from netip.Addr, g *wire.Gap) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.dsReader != nil && p.serverFrom(src, from) {
		p.dsReader.onGap(src, g)
	}
}

// handleDSAckNack sends our DATA(p) again to a server that asks for it.
func (p *Participant) handleDSAckNack(src wire.GUIDPrefix, from netip.Addr, a *wire.AckNack) {
	p.mu.Lock()
	_, to, ok := p.known(src)
	ok = ok && p.serverFrom(src, from)
	p.mu.Unlock()
	if ok && a.State.Contains(dsSPDPSN) {
		p.sendSPDP(false, to)
	}
}

// keepRelayed extends the lease of the participants a live server
// relayed: the servers, not they, tell us when they leave. Without a
// server that relayed them they keep the lease they had; p.mu must be
// held.
func (p *Participant) keepRelayed(now time.Time) {
	for _, r := range p.remotes {
		for _, v := range r.via {
			if s, ok := p.remotes[v]; ok && s.server {
				r.deadline = now.Add(min(r.data.LeaseDuration, p.cfg.MaxLease))
				break
			}
		}
	}
}

// vouch records that server s relayed r.
func (r *remote) vouch(s wire.GUIDPrefix) {
	if !slices.Contains(r.via, s) {
		r.via = append(r.via, s)
	}
}

// unvouch forgets that server s relayed r and reports whether it had.
func (r *remote) unvouch(s wire.GUIDPrefix) bool {
	n := len(r.via)
	r.via = slices.DeleteFunc(r.via, func(v wire.GUIDPrefix) bool { return v == s })
	return len(r.via) < n
}
