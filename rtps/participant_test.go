package rtps

import (
	"context"
	"encoding/binary"
	"errors"
	"net"
	"net/netip"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/actbridge/actbridge/rtps/udp"
	"github.com/actbridge/actbridge/rtps/wire"
	"github.com/actbridge/actbridge/test/netns"
)

func TestMain(m *testing.M) { netns.Main(m) }

var loopback = netip.MustParseAddr("127.0.0.1")

func newParticipant(t *testing.T, cfg Config) *Participant {
	t.Helper()
	p, err := NewParticipant(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func waitFor(t *testing.T, p *Participant, d time.Duration, what string, cond func([]ParticipantData) bool) []ParticipantData {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	got, err := p.WaitParticipants(ctx, cond)
	if err != nil {
		t.Fatalf("%s: %v (known: %+v)", what, err, got)
	}
	return got
}

func has(prefix wire.GUIDPrefix) func([]ParticipantData) bool {
	return func(ds []ParticipantData) bool {
		for _, d := range ds {
			if d.Prefix == prefix {
				return true
			}
		}
		return false
	}
}

func hasNot(prefix wire.GUIDPrefix) func([]ParticipantData) bool {
	return func(ds []ParticipantData) bool { return !has(prefix)(ds) }
}

func TestParticipantsFindEachOther(t *testing.T) {
	for _, c := range []struct {
		name      string
		multicast bool
	}{{"localhost unicast", false}, {"multicast", true}} {
		t.Run(c.name, func(t *testing.T) {
			if c.multicast {
				netns.Require(t)
			}
			cfg := Config{Domain: 5, Multicast: c.multicast, UserData: []byte("enclave=/;")}
			a, b := newParticipant(t, cfg), newParticipant(t, cfg)
			if a.Index() == b.Index() {
				t.Fatalf("both took participant index %d", a.Index())
			}
			got := waitFor(t, a, 5*time.Second, "a learns b", has(b.GUID().Prefix))
			waitFor(t, b, 5*time.Second, "b learns a", has(a.GUID().Prefix))
			if got[0].Vendor != VendorID || string(got[0].UserData) != "enclave=/;" || got[0].LeaseDuration != 20*time.Second {
				t.Fatalf("a sees b as %+v", got[0])
			}
		})
	}
}

func TestCloseSaysGoodbyeSoPeersDropAtOnce(t *testing.T) {
	cfg := Config{Domain: 6, LeaseDuration: time.Minute}
	a, b := newParticipant(t, cfg), newParticipant(t, cfg)
	waitFor(t, a, 5*time.Second, "a learns b", has(b.GUID().Prefix))
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	waitFor(t, a, 2*time.Second, "a drops b", hasNot(b.GUID().Prefix))
	t.Logf("dropped %v after goodbye (lease %v)", time.Since(start), cfg.LeaseDuration)
	if _, err := b.WaitParticipants(context.Background(), func([]ParticipantData) bool { return false }); !errors.Is(err, ErrClosed) {
		t.Fatalf("wait on closed participant: %v", err)
	}
	if err := b.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

// spdpDatagram is an SPDP announcement of d as its participant sends it.
func spdpDatagram(t testing.TB, d ParticipantData) []byte {
	t.Helper()
	payload, err := plPayload(d.ParameterList(binary.LittleEndian))
	if err != nil {
		t.Fatal(err)
	}
	m := wire.Message{
		Header:      wire.Header{Version: wire.Version(), Vendor: d.Vendor, Prefix: d.Prefix},
		Submessages: []wire.Submessage{&wire.Data{WriterID: wire.EntityIDSPDPWriter, WriterSN: 1, Payload: payload}},
	}
	b, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// inject sends an SPDP announcement of d to p from a socket of our own,
// playing a participant that announces once and then falls silent.
func inject(t *testing.T, p *Participant, d ParticipantData) {
	t.Helper()
	c, err := udp.ListenUnicast(context.Background(), loopback, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.WriteTo(spdpDatagram(t, d), netip.AddrPortFrom(loopback, p.uc.Port())); err != nil {
		t.Fatal(err)
	}
}

func fakeParticipant(i byte, lease time.Duration, domain uint32) ParticipantData {
	return ParticipantData{
		Prefix: wire.GUIDPrefix{0x01, 0x10, 0xee, i}, Version: wire.ProtocolVersion{Major: 2, Minor: 1}, Vendor: wire.VendorCyclone,
		Domain: domain, HasDomain: true, LeaseDuration: lease,
	}
}

func TestSilentParticipantIsRemovedWhenItsLeaseEnds(t *testing.T) {
	a := newParticipant(t, Config{Domain: 8})
	f := fakeParticipant(1, time.Second, 8)
	inject(t, a, f)
	got := waitFor(t, a, 3*time.Second, "learn", has(f.Prefix))
	if got[0].Vendor != wire.VendorCyclone {
		t.Fatalf("vendor %v", got[0].Vendor)
	}
	learned := time.Now()
	waitFor(t, a, 3*time.Second, "lease end", hasNot(f.Prefix))
	if d := time.Since(learned); d < 900*time.Millisecond {
		t.Fatalf("removed after %v, before its 1s lease", d)
	}
}

func TestRemoteParticipantsAreBoundedAndOtherDomainsIgnored(t *testing.T) {
	a := newParticipant(t, Config{Domain: 9, MaxParticipants: 2})
	inject(t, a, fakeParticipant(1, time.Minute, 3)) // other domain
	for i := range byte(4) {
		inject(t, a, fakeParticipant(10+i, time.Minute, 9))
	}
	waitFor(t, a, 3*time.Second, "two learned", func(ds []ParticipantData) bool { return len(ds) == 2 })
	time.Sleep(200 * time.Millisecond)
	for _, d := range a.Participants() {
		if d.Domain != 9 {
			t.Fatalf("learned a participant of domain %d", d.Domain)
		}
	}
	if n := len(a.Participants()); n != 2 {
		t.Fatalf("%d participants kept, limit 2", n)
	}
}

func TestGarbageDatagramsAreIgnored(t *testing.T) {
	a := newParticipant(t, Config{Domain: 10})
	c, err := udp.ListenUnicast(context.Background(), loopback, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, g := range [][]byte{nil, []byte("RTPS"), []byte("RTPS\x02\x01\x01\x10xxxxxxxxxxxx\x15\x01\xff\xff"), make([]byte, 2000)} {
		c.WriteTo(g, netip.AddrPortFrom(loopback, a.uc.Port()))
	}
	f := fakeParticipant(1, time.Minute, 10)
	inject(t, a, f)
	waitFor(t, a, 3*time.Second, "learn after garbage", has(f.Prefix))
}

// A participant told only one exact peer address finds that peer, and
// the peer (which knows no way to it) learns it back from its announcement.
func TestExactPeerAddressIsEnoughForBothSides(t *testing.T) {
	nowhere := netip.AddrPortFrom(loopback, 9) // discard port: nobody answers
	a := newParticipant(t, Config{Domain: 12, PeerAddrs: []netip.AddrPort{nowhere}})
	b := newParticipant(t, Config{Domain: 12, PeerAddrs: []netip.AddrPort{netip.AddrPortFrom(loopback, a.uc.Port())}})
	waitFor(t, a, 5*time.Second, "a learns b", has(b.GUID().Prefix))
	waitFor(t, b, 5*time.Second, "b learns a", has(a.GUID().Prefix))
}

func TestCloseStopsEveryGoroutineAndWakesWaiters(t *testing.T) {
	before := runtime.NumGoroutine()
	p, err := NewParticipant(context.Background(), Config{Domain: 19, Multicast: false})
	if err != nil {
		t.Fatal(err)
	}
	waited := make(chan error)
	go func() {
		_, err := p.WaitParticipants(context.Background(), func([]ParticipantData) bool { return false })
		waited <- err
	}()
	time.Sleep(50 * time.Millisecond)
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-waited:
		if !errors.Is(err, ErrClosed) {
			t.Fatalf("waiter got %v", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("waiter not woken by Close")
	}
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines after Close, %d before", runtime.NumGoroutine(), before)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := p.AddEndpoint(EndpointData{Topic: "t", Type: "T"}); !errors.Is(err, ErrClosed) {
		t.Fatalf("AddEndpoint after Close: %v", err)
	}
}

func TestGoodbyeForAnotherParticipantIsIgnored(t *testing.T) {
	p := newParticipant(t, Config{Domain: 20})
	victim, liar := fakeParticipant(1, time.Minute, 20), fakeParticipant(2, time.Minute, 20)
	victim.MetatrafficUnicast = []wire.Locator{wire.UDPv4Locator(loopback, 9)}
	p.handle(spdpDatagram(t, victim), loopback)
	g := victim.GUID().Bytes()
	m := wire.Message{Header: wire.Header{Version: wire.Version(), Vendor: liar.Vendor, Prefix: liar.Prefix}, Submessages: []wire.Submessage{
		&wire.Data{WriterID: wire.EntityIDSPDPWriter, WriterSN: 2, InlineQoS: wire.ParameterList{
			{ID: wire.PIDKeyHash, Value: g[:]}, {ID: wire.PIDStatusInfo, Value: []byte{0, 0, 0, 3}}}}}}
	b, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	p.handle(b, loopback)
	if !has(victim.Prefix)(p.Participants()) {
		t.Fatal("a participant was dropped on another's word")
	}
	m.Header.Prefix = victim.Prefix
	b, _ = m.Marshal()
	p.handle(b, loopback)
	if has(victim.Prefix)(p.Participants()) {
		t.Fatal("a participant's own goodbye was ignored")
	}
}

// Two localhost participants that took indices past the first few (others
// on the domain hold those, as on a robot with many processes or after a
// restarted process found its old index taken) still find each other:
// SPDP goes to every index a participant may take, not to the first four
// only (before, neither ever heard the other).
func TestParticipantsPastTheFirstIndicesFindEachOther(t *testing.T) {
	const domain = 60
	for i := range 4 {
		if p := newParticipant(t, Config{Domain: domain}); p.Index() != i {
			t.Fatalf("filler took index %d, want %d (is the domain in use?)", p.Index(), i)
		}
	}
	a, b := newParticipant(t, Config{Domain: domain}), newParticipant(t, Config{Domain: domain})
	waitFor(t, a, 5*time.Second, "a learns b", has(b.GUID().Prefix))
	waitFor(t, b, 5*time.Second, "b learns a", has(a.GUID().Prefix))
}

// TestNewcomerLearnsUsThoughOurReplyWasLost: when a participant appears
// we announce ourselves to it a few more times at once, so that losing
// our first reply (Fast DDS 2.9 ignored the one that came while it was
// starting) does not leave it without us until our next period.
func TestNewcomerLearnsUsThoughOurReplyWasLost(t *testing.T) {
	netns.Require(t)
	const domain = 40
	old := newParticipant(t, Config{Domain: domain, LeaseDuration: 10 * time.Minute})
	// Its quick announcements after start are over (each takes an SPDP
	// sequence number): what the newcomer gets now answers it alone.
	for deadline := time.Now().Add(5 * time.Second); old.seq.Load() < quickAnnouncements; {
		if time.Now().After(deadline) {
			t.Fatalf("%d announcements after start, want %d", old.seq.Load(), quickAnnouncements)
		}
		time.Sleep(10 * time.Millisecond)
	}
	var received atomic.Int32
	dropFirst := func() bool { return received.Add(1) == 1 }
	newcomer := newParticipant(t, Config{Domain: domain, LeaseDuration: 10 * time.Minute, drop: dropFirst})
	// Both announce every 2 minutes: only the quick announcements can do it.
	waitFor(t, newcomer, 2*time.Second, "the newcomer learns the old participant", has(old.GUID().Prefix))
	if received.Load() < 2 {
		t.Fatalf("the newcomer received %d datagrams, the first of which was dropped", received.Load())
	}
}

// TestNoAnnouncementFollowsTheGoodbye: once a participant said goodbye, an
// announcement its run goroutine was about to send goes nowhere, so that
// no peer learns it again for a whole lease.
func TestNoAnnouncementFollowsTheGoodbye(t *testing.T) {
	peer, err := net.ListenUDP("udp4", net.UDPAddrFromAddrPort(netip.AddrPortFrom(loopback, 0)))
	if err != nil {
		t.Fatal(err)
	}
	defer peer.Close()
	p := newParticipant(t, Config{Domain: 31, PeerAddrs: []netip.AddrPort{peer.LocalAddr().(*net.UDPAddr).AddrPort()}})
	if err := p.announce(true); err != nil {
		t.Fatal(err)
	}
	if err := p.announce(false); err != nil { // as run's ticker would, late
		t.Fatal(err)
	}
	// The last SPDP datagram from p that reaches the peer is the goodbye.
	var last *wire.Data
	buf := make([]byte, 65536)
	for {
		peer.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
		n, _, err := peer.ReadFrom(buf)
		if err != nil {
			break
		}
		var m wire.Message
		if m.Unmarshal(buf[:n]) != nil || m.Header.Prefix != p.GUID().Prefix {
			continue
		}
		for _, s := range m.Submessages {
			if d, ok := s.(*wire.Data); ok && d.WriterID == wire.EntityIDSPDPWriter {
				last = d
			}
		}
	}
	if last == nil || !disposed(last) {
		t.Fatalf("the last announcement the peer got is not the goodbye (%v)", last != nil)
	}
}
