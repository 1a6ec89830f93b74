package rtps

import (
	"context"
	"encoding/binary"
	"fmt"
	"net"
	"net/netip"
	"runtime"
	"testing"
	"time"

	"github.com/actbridge/actbridge/rtps/wire"
	"github.com/actbridge/actbridge/test/netns"
)

// rogue is a socket on another loopback address than the participants',
// as a stranger elsewhere on the network would send from.
func rogue(t *testing.T) *net.UDPConn {
	t.Helper()
	c, err := net.ListenUDP("udp4", net.UDPAddrFromAddrPort(netip.MustParseAddrPort("127.0.0.2:0")))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// disposeDatagram is a dispose of guid (a participant's, from the SPDP
// writer; an endpoint's, from the SEDP publications writer, numbered sn)
// that claims to come from guid's participant.
func disposeDatagram(t *testing.T, guid wire.GUID, sn wire.SequenceNumber) []byte {
	t.Helper()
	g := guid.Bytes()
	d := &wire.Data{WriterID: wire.EntityIDSPDPWriter, ReaderID: wire.EntityIDSPDPReader, WriterSN: sn, InlineQoS: wire.ParameterList{
		{ID: wire.PIDKeyHash, Value: g[:]}, {ID: wire.PIDStatusInfo, Value: []byte{0, 0, 0, wire.StatusDisposed | wire.StatusUnregistered}}}}
	if guid.Entity != wire.EntityIDParticipant {
		d.WriterID, d.ReaderID = wire.EntityIDSEDPPublicationsWriter, wire.EntityIDSEDPPublicationsReader
	}
	m := wire.Message{Header: wire.Header{Version: wire.Version(), Vendor: VendorID, Prefix: guid.Prefix}, Submessages: []wire.Submessage{d}}
	b, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// waitStats waits until cond holds for p's counters.
func waitStats(t *testing.T, p *Participant, what string, cond func(Stats) bool) Stats {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		s := p.Stats()
		if cond(s) {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: counters %+v", what, s)
		}
	}
}

// TestForgedGoodbyeDropsNoParticipant: a dispose of a real participant,
// or of one of its endpoints, sent from an address the participant never
// announced is ignored (and counted): the participant and its endpoints
// stay. Its own goodbye, from its own address, still drops it at once,
// and the forged endpoint dispose did not take the number of the real one.
func TestForgedGoodbyeDropsNoParticipant(t *testing.T) {
	netns.Require(t)
	cfg := Config{Domain: 61, LeaseDuration: time.Minute}
	a, b := newParticipant(t, cfg), newParticipant(t, cfg)
	w, err := b.AddEndpoint(EndpointData{Writer: true, Topic: "rt/cancel", Type: "T"})
	if err != nil {
		t.Fatal(err)
	}
	waitEndpoints(t, a, "a learns b's writer", hasEndpoint(w))
	r := rogue(t)
	to := net.UDPAddrFromAddrPort(netip.AddrPortFrom(loopback, a.uc.Port()))
	for _, d := range [][]byte{disposeDatagram(t, b.GUID(), 1000), disposeDatagram(t, w, 2)} {
		if _, err := r.WriteToUDP(d, to); err != nil {
			t.Fatal(err)
		}
	}
	waitStats(t, a, "both forged disposes taken", func(s Stats) bool {
		return s.DisposesIgnored >= 2 || !has(b.GUID().Prefix)(a.Participants()) || !hasEndpoint(w)(a.Endpoints())
	})
	if !has(b.GUID().Prefix)(a.Participants()) || !hasEndpoint(w)(a.Endpoints()) {
		t.Fatal("a forged dispose dropped a participant or its endpoint")
	}
	if err := b.RemoveEndpoint(w); err != nil {
		t.Fatal(err)
	}
	waitEndpoints(t, a, "b's own withdrawal (SEDP number 2) drops its writer", func(es []EndpointData) bool { return !hasEndpoint(w)(es) })
	b.Close()
	waitFor(t, a, 2*time.Second, "b's own goodbye drops it at once", hasNot(b.GUID().Prefix))
}

// TestGoodbyeIsTakenFromAnyPortOfAnAnnouncedAddress: peers send from a
// socket other than the one they announce (CycloneDDS does, and so do
// we); the address decides, not the port.
func TestGoodbyeIsTakenFromAnyPortOfAnAnnouncedAddress(t *testing.T) {
	p := newParticipant(t, Config{Domain: 62})
	d := fakeParticipant(3, time.Minute, 62)
	d.MetatrafficUnicast = []wire.Locator{wire.UDPv4Locator(netip.MustParseAddr("127.0.0.7"), 7410)}
	d.DefaultUnicast = []wire.Locator{wire.UDPv4Locator(netip.MustParseAddr("127.0.0.9"), 7411)}
	p.handle(spdpDatagram(t, d), loopback)
	for _, from := range []netip.Addr{loopback, {}, netip.MustParseAddr("239.255.0.1"), netip.MustParseAddr("127.0.0.8")} {
		p.handle(disposeDatagram(t, d.GUID(), 2), from)
		if !has(d.Prefix)(p.Participants()) {
			t.Fatalf("a goodbye from %v dropped a participant that announced 127.0.0.7 and 127.0.0.9", from)
		}
	}
	p.handle(disposeDatagram(t, d.GUID(), 3), netip.MustParseAddr("127.0.0.9"))
	if has(d.Prefix)(p.Participants()) {
		t.Fatal("a goodbye from the participant's default unicast address was ignored")
	}
	if s := p.Stats(); s.DisposesIgnored != 4 {
		t.Fatalf("%d goodbyes counted as ignored, want 4", s.DisposesIgnored)
	}
}

// strangerAddr is where the floods below claim to come from.
var strangerAddr = netip.MustParseAddr("127.0.0.2")

// endpointDatagram announces a writer of topic on participant prefix, as
// its SEDP publications writer's sample sn.
func endpointDatagram(t *testing.T, prefix wire.GUIDPrefix, key uint32, topic string, sn wire.SequenceNumber) []byte {
	t.Helper()
	e := EndpointData{GUID: wire.GUID{Prefix: prefix, Entity: wire.EntityID(key<<8 | wire.KindUserWriterNoKey)}, Writer: true, Topic: topic, Type: "T", QoS: defaultQoS(true)}
	payload, err := plPayload(e.ParameterList(binary.LittleEndian))
	if err != nil {
		t.Fatal(err)
	}
	return userMessage(t, wire.GUID{Prefix: prefix}, &wire.Data{ReaderID: wire.EntityIDSEDPPublicationsReader, WriterID: wire.EntityIDSEDPPublicationsWriter, WriterSN: sn, Payload: payload})
}

// protectedServer is a real participant with a reliable writer of
// "rt/cancel", and a reader of it on p; it returns the writer once p
// knows it.
func protectedServer(t *testing.T, p *Participant, domain int) (*Participant, *Writer, *Reader) {
	t.Helper()
	qos := QoS{Reliability: Reliable, History: KeepAll}
	r, err := p.NewReader(EndpointData{Topic: "rt/cancel", Type: "T", QoS: qos})
	if err != nil {
		t.Fatal(err)
	}
	b := newParticipant(t, Config{Domain: domain})
	w, err := b.NewWriter(EndpointData{Writer: true, Topic: "rt/cancel", Type: "T", QoS: qos})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.AddEndpoint(EndpointData{Writer: true, Topic: "rt/other", Type: "T"}); err != nil {
		t.Fatal(err)
	}
	waitEndpoints(t, p, "the protected writer is learned despite the full table", hasEndpoint(w.GUID()))
	return b, w, r
}

// served checks that a sample of w reaches r.
func served(t *testing.T, w *Writer, r *Reader) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := w.WaitMatched(ctx, 1); err != nil {
		t.Fatalf("the protected writer never matched our reader: %v", err)
	}
	if err := w.Write([]byte{0, 1, 0, 0, 42}, nil); err != nil {
		t.Fatal(err)
	}
	s, err := r.Take(ctx)
	if err != nil || s.Payload[4] != 42 {
		t.Fatalf("the protected writer's sample: %v %v", s.Payload, err)
	}
}

// TestParticipantFloodLocksOutNoProtectedServer: one sender fills every
// participant slot with long leases, and goes on; the robot's
// participant, whose writer is on a protected topic, is still learned,
// kept, matched and served. Bare announcements evict their own kind
// first, so another participant whose endpoints are known (none
// protected) stays through them; a flood whose participants announce
// endpoints too evicts it, never the protected one. The leases read are
// capped.
func TestParticipantFloodLocksOutNoProtectedServer(t *testing.T) {
	netns.Require(t)
	const domain, slots, more = 63, 256, 300 // the default table
	a := newParticipant(t, Config{Domain: domain, MaxLease: time.Minute})
	a.Protect("rt/cancel")
	flood := func(first, n int, endpoints bool) {
		for i := range n {
			d := fakeParticipant(0, 24*time.Hour, domain)
			d.Prefix[3], d.Prefix[4] = byte((first+i)>>8), byte(first+i)
			d.BuiltinEndpoints = 0x3f
			a.handle(spdpDatagram(t, d), strangerAddr)
			if endpoints {
				a.handle(endpointDatagram(t, d.Prefix, 1, "rt/junk", 1), strangerAddr)
			}
		}
	}
	flood(0, slots, false)
	b, w, r := protectedServer(t, a, domain)
	c := newParticipant(t, Config{Domain: domain})
	other, err := c.AddEndpoint(EndpointData{Writer: true, Topic: "rt/chatter", Type: "T"})
	if err != nil {
		t.Fatal(err)
	}
	waitEndpoints(t, a, "another participant's unprotected writer is learned", hasEndpoint(other))
	flood(slots, more, false)
	got := a.Participants()
	if !has(b.GUID().Prefix)(got) || !has(c.GUID().Prefix)(got) || len(got) > slots {
		t.Fatalf("after the bare flood: %d participants kept (limit %d); the protected one among them: %v, the other with endpoints: %v",
			len(got), slots, has(b.GUID().Prefix)(got), has(c.GUID().Prefix)(got))
	}
	flood(slots+more, more, true)
	if got := a.Participants(); !has(b.GUID().Prefix)(got) || len(got) > slots {
		t.Fatalf("after the flood with endpoints: %d participants kept (limit %d); the protected one among them: %v",
			len(got), slots, has(b.GUID().Prefix)(got))
	}
	served(t, w, r)
	s := a.Stats()
	if s.ParticipantsEvicted < 2*more || s.LeasesCapped < 2*more+slots {
		t.Fatalf("counters %+v: want %d or more evicted and every flood lease capped", s, 2*more)
	}
	a.mu.Lock()
	for k, rm := range a.remotes {
		if time.Until(rm.deadline) > time.Minute {
			t.Errorf("participant %v kept until %v, past the one-minute cap", k, rm.deadline)
		}
	}
	a.mu.Unlock()
}

// TestEndpointFloodLocksOutNoProtectedServer: one sender fills every
// endpoint slot; the robot's writer on a protected topic still takes a
// slot (an unprotected one is evicted) and is served, and its writer on
// an unprotected topic is refused.
func TestEndpointFloodLocksOutNoProtectedServer(t *testing.T) {
	netns.Require(t)
	const domain, slots = 64, 4096 // the default table
	a := newParticipant(t, Config{Domain: domain})
	a.Protect("rt/cancel")
	junk := fakeParticipant(1, time.Minute, domain)
	junk.BuiltinEndpoints = 0x3f
	a.handle(spdpDatagram(t, junk), strangerAddr)
	for sn := range wire.SequenceNumber(slots + 40) {
		a.handle(endpointDatagram(t, junk.Prefix, uint32(sn+1), "rt/junk", sn+1), strangerAddr)
	}
	if n := len(a.Endpoints()); n != slots {
		t.Fatalf("%d endpoints after the flood, limit %d", n, slots)
	}
	_, w, r := protectedServer(t, a, domain)
	served(t, w, r)
	waitStats(t, a, "the unprotected writer refused", func(s Stats) bool { return s.EndpointsRefused >= 40+1 })
	if s := a.Stats(); s.EndpointsEvicted != 1 || len(a.Endpoints()) != slots {
		t.Fatalf("counters %+v, %d endpoints: want one evicted for the protected writer and the table full", s, len(a.Endpoints()))
	}
}

// TestManyWritersOutOfOrderStayWithinOneBudget: 32 writers each send
// samples past a hole and the first fragment of large samples; what the
// reader holds for all of them together stays within the participant's
// receive budget (the counter's peak and the heap both), where each
// writer's own bounds allowed 4 MiB held and the fragments 32 MiB. What
// was given up is asked for again: a writer that then fills its hole and
// sends again has every sample delivered once, in order.
func TestManyWritersOutOfOrderStayWithinOneBudget(t *testing.T) {
	// The default budget against writers that each hold up to their own
	// 4 MiB (the 126 MiB), and a small one.
	for i, c := range []struct{ budget, ahead int }{{defaultReceiveBudget, 140}, {2 << 20, 20}} {
		t.Run(fmt.Sprint(c.budget), func(t *testing.T) { manyWritersOutOfOrder(t, 65+i, c.budget, c.ahead) })
	}
}

func manyWritersOutOfOrder(t *testing.T, domain, budget, ahead int) {
	const writers, size = 32, 30_000
	cfg := Config{Domain: domain}
	if budget != defaultReceiveBudget {
		cfg.ReceiveBudget = budget
	}
	p := newParticipant(t, cfg)
	r, err := p.NewReader(EndpointData{Topic: "t", Type: "T", QoS: QoS{Reliability: Reliable, History: KeepAll}})
	if err != nil {
		t.Fatal(err)
	}
	stranger := fakeParticipant(1, time.Minute, uint32(domain))
	stranger.BuiltinEndpoints = 0x3f
	p.handle(spdpDatagram(t, stranger), strangerAddr)
	ws := make([]wire.GUID, writers)
	for i := range ws {
		p.handle(endpointDatagram(t, stranger.Prefix, uint32(i+1), "t", wire.SequenceNumber(i+1)), strangerAddr)
		ws[i] = wire.GUID{Prefix: stranger.Prefix, Entity: wire.EntityID(uint32(i+1)<<8 | wire.KindUserWriterNoKey)}
	}
	if n := len(p.Endpoints()); n != writers {
		t.Fatalf("%d writers known, want %d", n, writers)
	}
	payload := func(w wire.GUID, sn wire.SequenceNumber) []byte {
		b := make([]byte, size)
		b[1], b[4], b[5] = 1, byte(w.Entity>>8), byte(sn)
		return b
	}
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for _, w := range ws {
		for sn := range wire.SequenceNumber(ahead) {
			p.handle(userMessage(t, w, &wire.Data{WriterID: w.Entity, WriterSN: sn + 2, Payload: payload(w, sn+2)}), strangerAddr)
		}
		for sn := range wire.SequenceNumber(2) {
			p.handle(userMessage(t, w, &wire.DataFrag{WriterID: w.Entity, WriterSN: 100 + sn, FragmentStart: 1, Fragments: 1, FragmentSize: 1024,
				SampleSize: 1 << 20, Payload: make([]byte, 1024)}), strangerAddr)
		}
	}
	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)
	s := p.Stats()
	heap := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("held %d octets (peak %d, budget %d), heap grew %d, %d given up; without the budget: %d held, %d in fragments",
		s.ReceiveBytes, s.ReceiveBytesPeak, budget, heap, s.ReceiveDropped, writers*min(ahead*size, maxOutOfOrder), writers*2<<20)
	if s.ReceiveBytesPeak > budget || s.ReceiveBytes > budget || s.ReceiveDropped == 0 {
		t.Fatalf("counters %+v beyond the %d-octet budget", s, budget)
	}
	if heap > int64(budget+4<<20) {
		t.Fatalf("the heap grew %d octets for a %d-octet budget", heap, budget)
	}
	w := ws[0]
	for sn := range wire.SequenceNumber(ahead + 1) {
		p.handle(userMessage(t, w, &wire.Data{WriterID: w.Entity, WriterSN: sn + 1, Payload: payload(w, sn+1)}), strangerAddr)
	}
	got := queued(r)
	if len(got) != ahead+1 {
		t.Fatalf("writer 0 delivered %v, want 1..%d", got, ahead+1)
	}
	for i, sn := range got {
		if sn != wire.SequenceNumber(i+1) {
			t.Fatalf("writer 0 delivered %v, want 1..%d once each in order", got, ahead+1)
		}
	}
}

// TestGoodbyeFromLoopbackCountsForAParticipantOfThisHost: a peer on this
// host that announced only an interface's address (as Fast DDS does,
// leaving loopback out) reaches our 127.0.0.1 from 127.0.0.1, and its
// goodbye counts; a loopback source counts for nothing else.
func TestGoodbyeFromLoopbackCountsForAParticipantOfThisHost(t *testing.T) {
	ours, theirs := netip.MustParseAddr("192.0.2.10"), netip.MustParseAddr("198.51.100.7")
	local := func(a netip.Addr) bool { return a == ours }
	d := ParticipantData{MetatrafficUnicast: []wire.Locator{wire.UDPv4Locator(ours, 7410)}}
	elsewhere := ParticipantData{MetatrafficUnicast: []wire.Locator{wire.UDPv4Locator(theirs, 7410)}}
	onLoopback := ParticipantData{MetatrafficUnicast: []wire.Locator{wire.UDPv4Locator(loopback, 7410)}}
	for _, c := range []struct {
		name string
		d    ParticipantData
		from netip.Addr
		want bool
	}{
		{"here, from loopback", d, loopback, true},
		{"here, from its address", d, ours, true},
		{"here, from another address", d, theirs, false},
		{"elsewhere, from loopback", elsewhere, loopback, false},
		{"elsewhere, from its address", elsewhere, theirs, true},
		{"on 127.0.0.1, from 127.0.0.2", onLoopback, strangerAddr, false},
		{"announcing nothing, from loopback", ParticipantData{}, loopback, false},
	} {
		if got := sentBy(c.d, c.from, local); got != c.want {
			t.Errorf("%s: taken %v, want %v", c.name, got, c.want)
		}
	}
}
