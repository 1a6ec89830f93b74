package rtps

// Stats counts what a participant refused or gave up of what others sent
// it, so that the layer above can export it: each bound on what a
// stranger can make us hold has its counter here.
type Stats struct {
	// DisposesIgnored counts participant and endpoint disposes ignored
	// because they came from an address their participant never
	// announced (a forged goodbye, or one through a relay we do not know).
	DisposesIgnored uint64
	// ParticipantsEvicted counts unprotected participants dropped to make
	// room for a new one when the table was full; ParticipantsRefused the
	// new participants ignored because every slot held a protected one.
	ParticipantsEvicted, ParticipantsRefused uint64
	// EndpointsEvicted counts unprotected remote endpoints dropped to
	// make room for a protected one; EndpointsRefused the unprotected
	// endpoints ignored because the table was full.
	EndpointsEvicted, EndpointsRefused uint64
	// LeasesCapped counts participants whose announced lease was longer
	// than Config.MaxLease (and was cut to it).
	LeasesCapped uint64
	// ServerRestarts counts the discovery servers seen to start again
	// (Config.DiscoveryServers), each followed by a resync with it.
	ServerRestarts uint64
	// ServerImpostors counts datagrams under a discovery server's GUID
	// prefix that came from another host (ignored).
	ServerImpostors uint64
	// RelaysDropped counts endpoints a discovery server relayed before
	// their owner's DATA(p) and given up, the oldest beyond the 256 kept
	// until it comes.
	RelaysDropped uint64
	// ReceiveBytes is what our readers hold now of samples that arrived
	// ahead of a missing one and of partly received fragmented samples;
	// ReceiveBytesPeak is its highest so far, never above
	// Config.ReceiveBudget. ReceiveDropped counts the samples and partial
	// samples given up to stay within it (reliable writers send them again).
	ReceiveBytes, ReceiveBytesPeak int
	ReceiveDropped                 uint64
}

// Stats returns the participant's counters.
func (p *Participant) Stats() Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.stats
	s.ReceiveBytes = p.receiveHeld()
	return s
}
