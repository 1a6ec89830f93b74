package rtps

import "github.com/actbridge/actbridge/rtps/wire"

// Protect names topics (as on the wire, "rt/joint_states",
// "rq/arm/follow_joint_trajectory/_action/cancel_goalRequest") whose
// remote endpoints matter to the layer above: the robot's configured
// servers and publishers. Such an endpoint always gets a slot, evicting
// an unprotected one when the table is full, and neither it nor its
// participant is ever evicted for a newcomer. A flood of participants or
// endpoints on other topics can then not lock them out.
func (p *Participant) Protect(topics ...string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.protected == nil {
		p.protected = map[string]bool{}
	}
	for _, t := range topics {
		p.protected[t] = true
	}
}

// protects reports whether remote endpoint e is protected; p.mu must be held.
func (p *Participant) protects(e EndpointData) bool { return p.protected[e.Topic] }

// evictParticipant drops an unprotected remote participant (one with
// no protected endpoint) to make room for a new one: the one learned
// first among those with no endpoint known, else among the others (a
// flood of bare announcements evicts only its own); false when every one
// is protected. p.mu must be held.
func (p *Participant) evictParticipant() bool {
	kept, busy := map[wire.GUIDPrefix]bool{}, map[wire.GUIDPrefix]bool{}
	for g, e := range p.sedp.remote {
		busy[g.Prefix] = true
		if p.protects(e) {
			kept[g.Prefix] = true
		}
	}
	var victim wire.GUIDPrefix
	var oldest uint64
	found, victimBusy := false, false
	for k, r := range p.remotes {
		if kept[k] || r.server {
			continue // a discovery server is how we know the rest: never evicted
		}
		if !found || (victimBusy && !busy[k]) || (victimBusy == busy[k] && r.learned < oldest) {
			victim, oldest, found, victimBusy = k, r.learned, true, busy[k]
		}
	}
	if !found {
		return false
	}
	p.cfg.Logger.Debug("rtps: participant evicted for a newcomer", "prefix", victim)
	p.stats.ParticipantsEvicted++
	p.drop(victim)
	return true
}

// admitEndpoint makes room for new remote endpoint e when the table is
// full: a protected one evicts the unprotected endpoint learned first,
// an unprotected one is refused. It reports whether e may be added, and
// numbers it for later eviction; p.mu must be held.
func (p *Participant) admitEndpoint(e EndpointData) bool {
	if len(p.sedp.remote) >= p.cfg.MaxEndpoints {
		if !p.protects(e) {
			p.stats.EndpointsRefused++
			p.cfg.Logger.Debug("rtps: endpoint limit reached", "guid", e.GUID, "topic", e.Topic)
			return false
		}
		var victim wire.GUID
		var oldest uint64
		found := false
		for g, o := range p.sedp.remote {
			if n := p.sedp.remoteOrder[g]; !p.protects(o) && (!found || n < oldest) {
				victim, oldest, found = g, n, true
			}
		}
		if !found {
			p.stats.EndpointsRefused++
			p.cfg.Logger.Debug("rtps: endpoint limit reached, every one protected", "guid", e.GUID, "topic", e.Topic)
			return false
		}
		p.cfg.Logger.Debug("rtps: endpoint evicted for a protected one", "guid", victim, "for", e.GUID)
		p.stats.EndpointsEvicted++
		p.forgetEndpoint(victim)
	}
	p.learned++
	p.sedp.remoteOrder[e.GUID] = p.learned
	return true
}

// forgetEndpoint drops remote endpoint g (withdrawn or evicted) and its
// matches; p.mu must be held.
func (p *Participant) forgetEndpoint(g wire.GUID) {
	if _, had := p.sedp.remote[g]; !had {
		return
	}
	delete(p.sedp.remote, g)
	delete(p.sedp.remoteOrder, g)
	p.unmatchReader(g)
	for _, r := range p.readers {
		r.forgetWriter(g)
	}
	p.notify()
}
