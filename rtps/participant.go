package rtps

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/actbridge/actbridge/rtps/udp"
	"github.com/actbridge/actbridge/rtps/wire"
)

// leaseCheckPeriod is how often leases are checked at most; leases end at
// most this late.
const leaseCheckPeriod = 250 * time.Millisecond

// heartbeatPeriod is how often our SEDP announcers heartbeat readers that
// have not acknowledged everything.
const heartbeatPeriod = 500 * time.Millisecond

// firstRepairHeartbeat is how soon after a reliable write its lagging
// readers get a heartbeat (then twice as late each time, up to
// heartbeatPeriod).
const firstRepairHeartbeat = 10 * time.Millisecond

// Participant is one DDS domain participant: it announces itself by SPDP
// and keeps the remote participants it hears of until their lease ends or
// they say goodbye. Close it to stop its goroutines and say goodbye.
type Participant struct {
	cfg   Config
	self  ParticipantData
	index int
	uc    *udp.Conn // discovery unicast, also announced as default unicast
	mc    *udp.Conn // SPDP multicast; nil when Multicast is off
	// hg hears the SPDP group and hm sends to it, host-wide (TTL 0);
	// both nil unless HostMulticast.
	hg   *udp.Conn
	hm   *udp.HostMulticast
	spdp []netip.AddrPort

	// spdpMu orders our SPDP announcements with our goodbye, which
	// saidGoodbye says went (see sendSPDP).
	spdpMu      sync.Mutex
	saidGoodbye bool

	mu      sync.Mutex
	remotes map[wire.GUIDPrefix]*remote
	changed chan struct{} // closed and replaced on every change
	gen     uint64        // counts the changes (notify): what was made of them is kept until it moves
	// newcomer wakes run to announce quickly again when a participant is
	// learned (buffered 1).
	newcomer chan struct{}
	// wrote wakes run after a reliable write, to heartbeat soon (buffered
	// 1), unless soonArmed says run's repair heartbeats are already
	// under way: waking it at every write cost a 1 KB writer a thread
	// wake-up (futex) and a goroutine switch per sample or two.
	wrote     chan struct{}
	soonArmed atomic.Bool
	// acks counts acknowledgments that moved a reader of a user writer on:
	// run's repair heartbeats back off only while it stands still.
	acks   atomic.Uint64
	closed bool
	stats  Stats
	sedp   sedp
	// protected are the topics whose remote endpoints (and their
	// participants) a flood never evicts (Protect).
	protected map[string]bool
	// learned counts remote participants and endpoints learned, to
	// order them for eviction.
	learned uint64
	// dsReader reads the discovery servers' SPDP writers (reliable);
	// nil unless Config.DiscoveryServers.
	dsReader *builtinReader
	readers  map[wire.GUID]*Reader
	writers  map[wire.GUID]*Writer
	// tx orders and packs what reliable user writers send.
	tx *sendQueue
	// deliveries are samples for readers' listeners, called once the
	// datagram that completed them is handled (under deliverMu, in order).
	deliveries []delivery
	deliverMu  sync.Mutex

	seq atomic.Int64 // SPDP sequence numbers

	stop context.CancelFunc
	done <-chan struct{} // closed by stop
	wg   sync.WaitGroup
}

type remote struct {
	data     ParticipantData
	deadline time.Time
	learned  uint64 // order learned in, for eviction (Participant.learned)
	// server marks a discovery server we are a client of, at the
	// configured address at (its datagrams come from that host); via are
	// the servers that relayed this participant and vouch for it while
	// they live (none: it announced itself, or they left).
	server bool
	at     netip.AddrPort
	via    []wire.GUIDPrefix
}

// NewParticipant binds the discovery sockets of the first free participant
// index and starts announcing. ctx bounds the setup only; the participant
// lives until Close.
func NewParticipant(ctx context.Context, cfg Config) (*Participant, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	p := &Participant{cfg: cfg, remotes: map[wire.GUIDPrefix]*remote{}, changed: make(chan struct{}), newcomer: make(chan struct{}, 1), wrote: make(chan struct{}, 1), sedp: newSEDP(), readers: map[wire.GUID]*Reader{}, writers: map[wire.GUID]*Writer{}, tx: newSendQueue()}
	prefix := cfg.Prefix
	if prefix == (wire.GUIDPrefix{}) {
		prefix[0], prefix[1] = byte(VendorID>>8), byte(VendorID&0xff)
		if _, err := rand.Read(prefix[2:]); err != nil {
			return nil, err
		}
	}
	if p.dsClient() {
		p.dsReader = newBuiltinReader(wire.EntityIDSPDPReader, wire.EntityIDSPDPWriter)
	}
	if err := p.bind(ctx); err != nil {
		return nil, err
	}
	ports := udp.DefaultPorts()
	mport, _ := ports.MetatrafficMulticast(cfg.Domain)
	self := wire.UDPv4Locator(cfg.Addr, p.uc.Port())
	p.self = ParticipantData{
		Prefix: prefix, Version: wire.Version(), Vendor: VendorID,
		Domain: uint32(cfg.Domain), HasDomain: true,
		BuiltinEndpoints: BuiltinParticipantAnnouncer | BuiltinParticipantDetector |
			BuiltinPublicationsAnnouncer | BuiltinPublicationsDetector |
			BuiltinSubscriptionsAnnouncer | BuiltinSubscriptionsDetector,
		MetatrafficUnicast: []wire.Locator{self}, DefaultUnicast: []wire.Locator{self},
		LeaseDuration: cfg.LeaseDuration, UserData: bytes.Clone(cfg.UserData),
	}
	if p.mc != nil {
		p.self.MetatrafficMulticast = []wire.Locator{wire.UDPv4Locator(udp.SPDPGroup(), mport)}
		p.spdp = append(p.spdp, netip.AddrPortFrom(udp.SPDPGroup(), mport))
	}
	for _, peer := range cfg.Peers {
		p.spdp = append(p.spdp, netip.AddrPortFrom(peer, mport))
		for i := range cfg.PeerIndices {
			port, err := ports.MetatrafficUnicast(cfg.Domain, i)
			if err == nil && (peer != cfg.Addr || port != p.uc.Port()) {
				p.spdp = append(p.spdp, netip.AddrPortFrom(peer, port))
			}
		}
	}
	p.spdp = append(p.spdp, cfg.PeerAddrs...)
	p.spdp = append(p.spdp, cfg.DiscoveryServers...)
	runCtx, stop := context.WithCancel(context.Background())
	p.stop, p.done = stop, runCtx.Done()
	p.wg.Add(3)
	go p.receive(runCtx, p.uc)
	go p.run(runCtx)
	go p.sender(runCtx)
	for _, c := range []*udp.Conn{p.mc, p.hg} {
		if c != nil {
			p.wg.Add(1)
			go p.receive(runCtx, c)
		}
	}
	return p, nil
}

// bind takes the first participant index whose discovery unicast port is
// free, and the SPDP multicast port when Multicast is on.
func (p *Participant) bind(ctx context.Context) error {
	ports := udp.DefaultPorts()
	for i := range p.cfg.MaxIndex {
		port, err := ports.MetatrafficUnicast(p.cfg.Domain, i)
		if err != nil {
			break
		}
		listen := udp.ListenUnicast
		if !p.cfg.Addr.IsLoopback() {
			listen = udp.ListenUnicastAll // see there: Fast DDS on this host sends to us through loopback
		}
		c, err := listen(ctx, p.cfg.Addr, port)
		if errors.Is(err, syscall.EADDRINUSE) {
			continue
		}
		if err != nil {
			return err
		}
		p.uc, p.index = c, i
		break
	}
	if p.uc == nil {
		return fmt.Errorf("%w: domain %d, %d indices tried", ErrNoPort, p.cfg.Domain, p.cfg.MaxIndex)
	}
	if p.cfg.Multicast {
		mport, _ := ports.MetatrafficMulticast(p.cfg.Domain)
		mc, err := udp.ListenMulticast(ctx, p.cfg.Addr, udp.SPDPGroup(), mport)
		if err != nil {
			p.uc.Close()
			return err
		}
		p.mc = mc
	} else if p.cfg.HostMulticast {
		mport, _ := ports.MetatrafficMulticast(p.cfg.Domain)
		hg, err := udp.ListenGroup(udp.SPDPGroup(), mport)
		if err != nil {
			p.uc.Close()
			return err
		}
		hm, err := udp.OpenHostMulticast()
		if err != nil {
			p.uc.Close()
			hg.Close()
			return err
		}
		p.hg, p.hm = hg, hm
	}
	return nil
}

// GUID is this participant's GUID.
func (p *Participant) GUID() wire.GUID { return p.self.GUID() }

// Index is the participant index whose ports this participant took.
func (p *Participant) Index() int { return p.index }

// Data is what this participant announces.
func (p *Participant) Data() ParticipantData { return p.self }

// Participants returns the remote participants known now, ordered by prefix.
func (p *Participant) Participants() []ParticipantData {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.snapshot()
}

func (p *Participant) snapshot() []ParticipantData {
	out := make([]ParticipantData, 0, len(p.remotes))
	for _, r := range p.remotes {
		out = append(out, r.data)
	}
	slices.SortFunc(out, func(a, b ParticipantData) int { return bytes.Compare(a.Prefix[:], b.Prefix[:]) })
	return out
}

// WaitParticipants waits until cond holds for the remote participants
// known, and returns them; it checks at every change. It fails with ctx's
// error or ErrClosed.
func (p *Participant) WaitParticipants(ctx context.Context, cond func([]ParticipantData) bool) ([]ParticipantData, error) {
	return waitChange(ctx, p, p.snapshot, cond)
}

// waitChange waits until cond holds for what snapshot returns (called
// with p.mu held), checking at every change.
func waitChange[T any](ctx context.Context, p *Participant, snapshot func() []T, cond func([]T) bool) ([]T, error) {
	for {
		p.mu.Lock()
		snap, ch, closed := snapshot(), p.changed, p.closed
		p.mu.Unlock()
		if cond(snap) {
			return snap, nil
		}
		if closed {
			return snap, ErrClosed
		}
		select {
		case <-ctx.Done():
			return snap, ctx.Err()
		case <-ch:
		}
	}
}

// notify wakes waiters, and moves gen; p.mu must be held.
func (p *Participant) notify() {
	close(p.changed)
	p.changed = make(chan struct{})
	p.gen++
}

// Close sends what writes queued, says goodbye (an SPDP dispose, so peers
// drop us at once instead of waiting for our lease), stops the goroutines
// and closes the sockets.
func (p *Participant) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	p.notify()
	for _, r := range p.readers {
		r.stop()
	}
	p.mu.Unlock()
	p.flush()
	err := p.announce(true)
	p.stop()
	p.uc.Close()
	for _, c := range []*udp.Conn{p.mc, p.hg} {
		if c != nil {
			c.Close()
		}
	}
	if p.hm != nil {
		p.hm.Close()
	}
	p.wg.Wait()
	return err
}

// quickAnnouncements are the SPDP announcements sent quickPeriod apart
// when we start and when we learn a participant, as Fast DDS does
// (initial_announcements): our unicast reply to a participant that has
// just started can be lost (Fast DDS 2.9 ignored it), which left it
// without us until our next period, 4 s by default.
const (
	quickAnnouncements = 5
	quickPeriod        = 100 * time.Millisecond
)

// run announces every AnnouncePeriod, more often after start and after
// learning a participant, and ends leases.
func (p *Participant) run(ctx context.Context) {
	defer p.wg.Done()
	p.announce(false)
	announce := time.NewTicker(p.cfg.AnnouncePeriod)
	defer announce.Stop()
	quickLeft := quickAnnouncements - 1
	quick := time.NewTimer(quickPeriod)
	defer quick.Stop()
	check := time.NewTicker(min(p.cfg.AnnouncePeriod, leaseCheckPeriod))
	defer check.Stop()
	heartbeat := time.NewTicker(heartbeatPeriod)
	defer heartbeat.Stop()
	// After a reliable write, user writers heartbeat their lagging readers
	// 10 ms later, and again every 10 ms while readers acknowledge more;
	// while none does (a reader gone or deaf), 20, 40… up to
	// heartbeatPeriod. A lost last sample of a burst is asked for again
	// at once, not after the periodic heartbeat, and the samples of a
	// stream that went with Final heartbeats (statefulWriter.asks) are
	// acknowledged soon after it stops.
	soon := time.NewTimer(time.Hour)
	soon.Stop()
	defer soon.Stop()
	var soonDelay time.Duration
	var acks uint64
	for {
		select {
		case <-ctx.Done():
			return
		case <-announce.C:
			p.announce(false)
		case <-p.newcomer:
			quickLeft = quickAnnouncements
			quick.Reset(quickPeriod)
		case <-quick.C:
			if quickLeft > 0 {
				quickLeft--
				p.announce(false)
				quick.Reset(quickPeriod)
			}
		case now := <-check.C:
			p.expire(now)
		case <-heartbeat.C:
			p.send(p.heartbeats())
		case <-p.wrote:
			if soonDelay == 0 {
				soonDelay = firstRepairHeartbeat
				soon.Reset(soonDelay)
				p.soonArmed.Store(true)
			}
		case <-soon.C:
			// Cleared before looking, so that a write the look misses
			// wakes run again (see wrote).
			p.soonArmed.Store(false)
			p.mu.Lock()
			out := p.userHeartbeats()
			q, self := p.queueOrdered(out)
			p.mu.Unlock()
			if len(out) == 0 {
				soonDelay = 0
				continue
			}
			p.soonArmed.Store(true)
			p.sendQueued(q, self)
			if n := p.acks.Load(); n != acks {
				acks, soonDelay = n, firstRepairHeartbeat
			} else {
				soonDelay = min(2*soonDelay, heartbeatPeriod)
			}
			soon.Reset(soonDelay)
		}
	}
}

// expire drops the participants whose lease ended before now.
func (p *Participant) expire(now time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.keepRelayed(now)
	for k, r := range p.remotes {
		if now.After(r.deadline) {
			p.cfg.Logger.Debug("rtps: participant lease ended", "prefix", k, "vendor", r.data.Vendor)
			p.drop(k)
		}
	}
}

// drop forgets a remote participant, its endpoints and its matches with
// our builtin endpoints; p.mu must be held.
func (p *Participant) drop(prefix wire.GUIDPrefix) {
	delete(p.remotes, prefix)
	for _, r := range p.remotes {
		r.unvouch(prefix) // a server gone vouches for nothing, back or not
	}
	p.sedp.drop(prefix)
	if p.dsReader != nil {
		p.dsReader.forget(prefix)
	}
	for _, r := range p.readers {
		for w := range r.writers {
			if w.Prefix == prefix {
				r.forgetWriter(w)
			}
		}
	}
	for _, w := range p.writers {
		for g := range w.sw.readers {
			if g.Prefix == prefix {
				w.sw.unmatch(g)
			}
		}
	}
	p.notify()
}

// receive reads datagrams from c until it is closed.
func (p *Participant) receive(ctx context.Context, c *udp.Conn) {
	defer p.wg.Done()
	buf := make([]byte, p.cfg.MaxDatagram+1)
	for {
		n, src, err := c.ReadFrom(buf)
		if errors.Is(err, net.ErrClosed) || ctx.Err() != nil {
			return
		}
		if err != nil {
			p.cfg.Logger.Debug("rtps: read", "from", src, "err", err)
			continue
		}
		if p.cfg.tap != nil {
			p.cfg.tap(buf[:n])
		}
		if p.cfg.drop != nil && p.cfg.drop() {
			continue
		}
		p.handle(buf[:n], src.Addr())
	}
}
