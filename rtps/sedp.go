package rtps

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"net/netip"
	"slices"
	"time"

	"github.com/actbridge/actbridge/rtps/wire"
)

// sedp is the endpoint discovery state: our announcers and detectors for
// publications and subscriptions, our local endpoints and the remote ones
// learned. It is guarded by the participant's lock.
type sedp struct {
	pubWriter, subWriter *statefulWriter
	pubReader, subReader *builtinReader
	local                map[wire.GUID]EndpointData
	remote               map[wire.GUID]EndpointData
	remoteOrder          map[wire.GUID]uint64 // when each remote one was learned (Participant.learned)
	// parked are endpoints a discovery server relayed whose owner we do
	// not know yet (see parkRelayed), oldest first.
	parked  []EndpointData
	nextKey uint32
}

// maxLocalKey bounds entity keys (3 octets).
const maxLocalKey = 1<<24 - 1

func newSEDP() sedp {
	return sedp{
		pubWriter:   newBuiltinWriter(wire.EntityIDSEDPPublicationsWriter, wire.EntityIDSEDPPublicationsReader),
		subWriter:   newBuiltinWriter(wire.EntityIDSEDPSubscriptionsWriter, wire.EntityIDSEDPSubscriptionsReader),
		pubReader:   newBuiltinReader(wire.EntityIDSEDPPublicationsReader, wire.EntityIDSEDPPublicationsWriter),
		subReader:   newBuiltinReader(wire.EntityIDSEDPSubscriptionsReader, wire.EntityIDSEDPSubscriptionsWriter),
		local:       map[wire.GUID]EndpointData{},
		remote:      map[wire.GUID]EndpointData{},
		remoteOrder: map[wire.GUID]uint64{},
	}
}

// drop forgets everything of a remote participant.
func (s *sedp) drop(prefix wire.GUIDPrefix) {
	s.pubWriter.unmatch(wire.GUID{Prefix: prefix, Entity: s.pubWriter.readerID})
	s.subWriter.unmatch(wire.GUID{Prefix: prefix, Entity: s.subWriter.readerID})
	s.pubReader.forget(prefix)
	s.subReader.forget(prefix)
	for g := range s.remote {
		if g.Prefix == prefix {
			delete(s.remote, g)
			delete(s.remoteOrder, g)
		}
	}
}

// writerFor and readerFor pick our builtin endpoint by the remote one.
func (s *sedp) readerFor(remoteWriter wire.EntityID) (*builtinReader, bool) {
	switch remoteWriter {
	case wire.EntityIDSEDPPublicationsWriter:
		return s.pubReader, true
	case wire.EntityIDSEDPSubscriptionsWriter:
		return s.subReader, false
	}
	return nil, false
}

func (s *sedp) writerFor(ourWriter wire.EntityID) *statefulWriter {
	switch ourWriter {
	case wire.EntityIDSEDPPublicationsWriter:
		return s.pubWriter
	case wire.EntityIDSEDPSubscriptionsWriter:
		return s.subWriter
	}
	return nil
}

// matchBuiltins matches our SEDP announcers with a new participant's
// detectors and sends it what we announce; p.mu must be held.
func (p *Participant) matchBuiltins(d ParticipantData, to []netip.AddrPort) []outgoing {
	var subs []wire.Submessage
	if d.BuiltinEndpoints&BuiltinPublicationsDetector != 0 {
		subs = append(subs, p.sedp.pubWriter.match(wire.GUID{Prefix: d.Prefix, Entity: p.sedp.pubWriter.readerID})...)
	}
	if d.BuiltinEndpoints&BuiltinSubscriptionsDetector != 0 {
		subs = append(subs, p.sedp.subWriter.match(wire.GUID{Prefix: d.Prefix, Entity: p.sedp.subWriter.readerID})...)
	}
	if len(subs) == 0 {
		return nil
	}
	return []outgoing{{dst: d.Prefix, to: to, subs: subs}}
}

// known returns a remote participant's data and where to reach it;
// p.mu must be held.
func (p *Participant) known(prefix wire.GUIDPrefix) (ParticipantData, []netip.AddrPort, bool) {
	r, ok := p.remotes[prefix]
	if !ok {
		return ParticipantData{}, nil, false
	}
	return r.data, p.locatorsOf([]ParticipantData{r.data}), true
}

// handleSEDPData learns or forgets a remote endpoint, from an SEDP
// sample received from address from.
func (p *Participant) handleSEDPData(src wire.GUIDPrefix, from netip.Addr, d *wire.Data) []outgoing {
	p.mu.Lock()
	defer p.mu.Unlock()
	rd, writer := p.sedp.readerFor(d.WriterID)
	part, _, ok := p.known(src)
	if rd == nil || !ok {
		return nil
	}
	if p.isServer(src) {
		if !p.serverFrom(src, from) {
			return nil
		}
		return p.handleRelayedSEDP(src, rd, writer, d)
	}
	if disposed(d) && !sentBy(part, from, hostAddr) {
		// Not taken, so that its number stays free for the real sample.
		p.stats.DisposesIgnored++
		p.cfg.Logger.Debug("rtps: endpoint dispose from an address its participant never announced ignored", "prefix", src, "from", from)
		return nil
	}
	if !rd.onData(src, d.WriterSN) {
		return nil
	}
	if disposed(d) {
		if g, ok := disposedKey(d, wire.PIDEndpointGUID); ok && g.Prefix == src {
			p.forgetEndpoint(g)
		}
		return nil
	}
	if d.Payload == nil || d.Key {
		return nil
	}
	pl, o, err := payloadParameterList(d.Payload)
	if err != nil {
		p.cfg.Logger.Debug("rtps: bad SEDP payload", "src", src, "err", err)
		return nil
	}
	e, err := ParseEndpointData(pl, o, writer, part.Vendor)
	if err != nil || e.GUID.Prefix != src {
		p.cfg.Logger.Debug("rtps: bad SEDP data", "src", src, "err", err)
		return nil
	}
	return p.storeEndpoint(e)
}

// handleRelayedSEDP learns or forgets an endpoint a discovery server
// relayed: its owner's, which must be a participant we know (the server
// sends the owner's DATA(p) first; one that came later waits for it, see
// parkRelayed). Each relayed sample's number is taken whatever its
// content, so one sample we cannot use never stalls the relays behind
// it; p.mu must be held.
func (p *Participant) handleRelayedSEDP(src wire.GUIDPrefix, rd *builtinReader, writer bool, d *wire.Data) []outgoing {
	if !rd.onData(src, d.WriterSN) {
		return nil
	}
	if disposed(d) {
		if g, ok := disposedKey(d, wire.PIDEndpointGUID); ok && g.Prefix != p.self.Prefix {
			p.unparkOne(g)
			p.forgetEndpoint(g)
		}
		return nil
	}
	if d.Payload == nil || d.Key {
		return nil
	}
	pl, o, err := payloadParameterList(d.Payload)
	var e EndpointData
	if err == nil {
		e, err = ParseEndpointData(pl, o, writer, 0)
	}
	if err != nil || e.GUID.Prefix == p.self.Prefix {
		p.cfg.Logger.Debug("rtps: bad relayed SEDP data", "server", src, "err", err)
		return nil
	}
	owner, ok := p.remotes[e.GUID.Prefix]
	if !ok {
		p.parkRelayed(e)
		return nil
	}
	e.Vendor = owner.data.Vendor
	return p.storeEndpoint(e)
}

// maxParked bounds the relayed endpoints kept while their owner is
// unknown.
const maxParked = 256

// parkRelayed keeps an endpoint a server relayed before its owner's
// DATA(p) until the owner is learned (unpark). Leaving its number
// untaken, so that the server sends it again, let an owner that never
// comes (refused at MaxParticipants, gone meanwhile) hold the reader's
// 256-number window and refuse every relay 256 behind it. Beyond
// maxParked the oldest is given up (Stats.RelaysDropped); p.mu must be
// held.
func (p *Participant) parkRelayed(e EndpointData) {
	p.unparkOne(e.GUID) // an update replaces it
	if len(p.sedp.parked) >= maxParked {
		p.sedp.parked = slices.Delete(p.sedp.parked, 0, 1)
		p.stats.RelaysDropped++
	}
	p.sedp.parked = append(p.sedp.parked, e)
}

// unparkOne forgets parked endpoint g; p.mu must be held.
func (p *Participant) unparkOne(g wire.GUID) {
	p.sedp.parked = slices.DeleteFunc(p.sedp.parked, func(e EndpointData) bool { return e.GUID == g })
}

// unpark learns the parked endpoints of a participant just learned;
// p.mu must be held.
func (p *Participant) unpark(d ParticipantData) []outgoing {
	var out []outgoing
	kept := p.sedp.parked[:0]
	for _, e := range p.sedp.parked {
		if e.GUID.Prefix != d.Prefix {
			kept = append(kept, e)
			continue
		}
		e.Vendor = d.Vendor
		out = append(out, p.storeEndpoint(e)...)
	}
	clear(p.sedp.parked[len(kept):])
	p.sedp.parked = kept
	return out
}

// storeEndpoint keeps a remote endpoint and matches it; p.mu must be held.
func (p *Participant) storeEndpoint(e EndpointData) []outgoing {
	_, had := p.sedp.remote[e.GUID]
	if !had && !p.admitEndpoint(e) {
		return nil
	}
	p.sedp.remote[e.GUID] = e
	p.notify()
	var out []outgoing
	if !e.Writer {
		for _, w := range p.writers {
			out = append(out, p.matchWriter(w, e)...)
		}
	} else if !had {
		out = append(out, p.preemptiveAckNacks(e.GUID)...)
	}
	return out
}

func (p *Participant) handleSEDPHeartbeat(src wire.GUIDPrefix, from netip.Addr, h *wire.Heartbeat) []outgoing {
	p.mu.Lock()
	defer p.mu.Unlock()
	rd, _ := p.sedp.readerFor(h.WriterID)
	_, _, ok := p.known(src)
	if rd == nil || !ok {
		return nil
	}
	var out []outgoing
	if p.isServer(src) {
		if !p.serverFrom(src, from) {
			return nil
		}
		// A restarted server's SEDP heartbeat may come before its SPDP
		// one: answered from the old state, it would acknowledge what
		// we never got of the new.
		if w, ok := rd.writers[src]; ok && restarted(w, h) {
			out = p.serverRestarted(src)
		}
	}
	if a := rd.onHeartbeat(src, h); a != nil {
		if _, to, ok := p.known(src); ok {
			out = append(out, outgoing{dst: src, to: to, subs: []wire.Submessage{a}})
		}
	}
	return out
}

func (p *Participant) handleSEDPGap(src wire.GUIDPrefix, g *wire.Gap) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if rd, _ := p.sedp.readerFor(g.WriterID); rd != nil {
		if _, _, ok := p.known(src); ok {
			rd.onGap(src, g)
		}
	}
}

func (p *Participant) handleSEDPAckNack(src wire.GUIDPrefix, a *wire.AckNack) []outgoing {
	p.mu.Lock()
	defer p.mu.Unlock()
	w := p.sedp.writerFor(a.WriterID)
	_, to, ok := p.known(src)
	if w == nil || !ok {
		return nil
	}
	reader := wire.GUID{Prefix: src, Entity: w.readerID}
	before := w.acknowledged(reader)
	subs := w.onAckNack(reader, a)
	if !before && w.acknowledged(reader) {
		p.notify() // Acknowledged changed: wake WaitParticipants
	}
	if len(subs) > 0 {
		return []outgoing{{dst: src, to: to, subs: subs}}
	}
	return nil
}

// heartbeats lists a heartbeat for every remote reader that has not
// acknowledged all our announcements; the run loop sends them.
func (p *Participant) heartbeats() []outgoing {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []outgoing
	for _, w := range []*statefulWriter{p.sedp.pubWriter, p.sedp.subWriter} {
		for _, g := range w.unacked() {
			if _, to, ok := p.known(g.Prefix); ok {
				out = append(out, outgoing{dst: g.Prefix, to: to, subs: []wire.Submessage{w.heartbeat(false)}})
			}
		}
	}
	return append(out, p.userHeartbeats()...)
}

// AddEndpoint announces a local writer (e.Writer) or reader over SEDP and
// returns the GUID it was given. Topic and Type are required; the GUID,
// Vendor, zero QoS fields (with the DDS defaults) and empty locators are
// filled in. Remote endpoints that
// Match it are found with Matched.
func (p *Participant) AddEndpoint(e EndpointData) (wire.GUID, error) {
	return p.addEndpoint(e, nil)
}

// addEndpoint is AddEndpoint calling register, when not nil, with the
// endpoint as announced and p.mu held before the announcement goes out:
// a peer's answer to it (a matched writer's first heartbeat) may come at
// once, and is lost when the endpoint is not found.
func (p *Participant) addEndpoint(e EndpointData, register func(EndpointData)) (wire.GUID, error) {
	if e.Topic == "" || e.Type == "" {
		return wire.GUID{}, fmt.Errorf("%w: endpoint needs a topic and a type", ErrConfig)
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return wire.GUID{}, ErrClosed
	}
	if p.sedp.nextKey >= maxLocalKey {
		p.mu.Unlock()
		return wire.GUID{}, fmt.Errorf("%w: out of entity keys", ErrConfig)
	}
	p.sedp.nextKey++
	kind := uint32(wire.KindUserReaderNoKey)
	switch {
	case e.Writer && e.Keyed:
		kind = wire.KindUserWriterWithKey
	case e.Writer:
		kind = wire.KindUserWriterNoKey
	case e.Keyed:
		kind = wire.KindUserReaderWithKey
	}
	e.GUID = wire.GUID{Prefix: p.self.Prefix, Entity: wire.EntityID(p.sedp.nextKey<<8 | kind)}
	e.Vendor = VendorID
	e.QoS = e.QoS.withDefaults(e.Writer)
	if len(e.Unicast) == 0 {
		e.Unicast = p.self.DefaultUnicast
	}
	payload, err := plPayload(e.ParameterList(binary.LittleEndian))
	if err != nil {
		p.mu.Unlock()
		return wire.GUID{}, fmt.Errorf("%w: %v", ErrConfig, err)
	}
	p.sedp.local[e.GUID] = e
	if register != nil {
		register(e)
	}
	out := p.publish(e.Writer, e.GUID, payload)
	p.notify()
	p.mu.Unlock()
	p.send(out)
	return e.GUID, nil
}

// RemoveEndpoint withdraws a local endpoint: peers get its dispose.
func (p *Participant) RemoveEndpoint(g wire.GUID) error {
	p.mu.Lock()
	e, ok := p.sedp.local[g]
	if !ok {
		p.mu.Unlock()
		return fmt.Errorf("%w: %v", ErrUnknownEndpoint, g)
	}
	delete(p.sedp.local, g)
	out := p.publish(e.Writer, g, nil)
	p.notify()
	p.mu.Unlock()
	p.send(out)
	return nil
}

// publish writes a change to our publications or subscriptions announcer
// and addresses it to every matched remote detector; p.mu must be held.
func (p *Participant) publish(writer bool, key wire.GUID, payload []byte) []outgoing {
	w := p.sedp.subWriter
	if writer {
		w = p.sedp.pubWriter
	}
	var qos wire.ParameterList
	if p.dsClient() && payload != nil {
		// A discovery server relays the sample with its identity.
		g := key.Bytes()
		qos = append(wire.ParameterList{{ID: wire.PIDKeyHash, Value: g[:]}}, sampleIdentityQoS(wire.GUID{Prefix: p.self.Prefix, Entity: w.id}, w.next)...)
	}
	subs := w.write(key, payload, qos, time.Now())
	var out []outgoing
	for g := range w.readers {
		if _, to, ok := p.known(g.Prefix); ok {
			out = append(out, outgoing{dst: g.Prefix, to: to, subs: subs})
		}
	}
	return out
}

// Endpoints returns the remote endpoints known now, ordered by GUID.
func (p *Participant) Endpoints() []EndpointData {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.endpoints()
}

func (p *Participant) endpoints() []EndpointData {
	out := make([]EndpointData, 0, len(p.sedp.remote))
	for _, e := range p.sedp.remote {
		out = append(out, e)
	}
	sortByGUID(out)
	return out
}

func sortByGUID(eps []EndpointData) {
	slices.SortFunc(eps, func(a, b EndpointData) int {
		ga, gb := a.GUID.Bytes(), b.GUID.Bytes()
		return bytes.Compare(ga[:], gb[:])
	})
}

// WaitEndpoints waits until cond holds for the remote endpoints known and
// returns them; it fails with ctx's error or ErrClosed.
func (p *Participant) WaitEndpoints(ctx context.Context, cond func([]EndpointData) bool) ([]EndpointData, error) {
	return waitChange(ctx, p, p.endpoints, cond)
}

// Matched returns the remote endpoints that match local endpoint g.
func (p *Participant) Matched(g wire.GUID) ([]EndpointData, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	l, ok := p.sedp.local[g]
	if !ok {
		return nil, fmt.Errorf("%w: %v", ErrUnknownEndpoint, g)
	}
	// Only the matches are copied and sorted: a confirm asks this of every
	// actuator (Robot.Actuators), and a ROS 2 graph has hundreds of endpoints.
	var out []EndpointData
	for _, r := range p.sedp.remote {
		if (l.Writer && Match(l, r)) || (!l.Writer && Match(r, l)) {
			out = append(out, r)
		}
	}
	sortByGUID(out)
	return out, nil
}

// Acknowledged reports whether participant prefix has acknowledged every
// endpoint announcement we made (both announcers it is matched with):
// from then on it knows our endpoints. For a participant discovery
// servers relayed, the acknowledgment of one of those servers stands for
// it: the server passes our endpoints on (we cannot see when).
// WaitParticipants wakes when it becomes true.
func (p *Participant) Acknowledged(prefix wire.GUIDPrefix) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	r, ok := p.remotes[prefix]
	if !ok {
		return false
	}
	if len(r.via) > 0 {
		return slices.ContainsFunc(r.via, p.acknowledged)
	}
	return p.acknowledged(prefix)
}

// acknowledged is Acknowledged of a participant itself; p.mu must be held.
func (p *Participant) acknowledged(prefix wire.GUIDPrefix) bool {
	r, ok := p.remotes[prefix]
	if !ok {
		return false
	}
	for _, c := range []struct {
		bit uint32
		w   *statefulWriter
	}{{BuiltinPublicationsDetector, p.sedp.pubWriter}, {BuiltinSubscriptionsDetector, p.sedp.subWriter}} {
		if r.data.BuiltinEndpoints&c.bit != 0 && !c.w.acknowledged(wire.GUID{Prefix: prefix, Entity: c.w.readerID}) {
			return false
		}
	}
	return true
}
