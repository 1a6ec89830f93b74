package rtps

import (
	"net"
	"net/netip"
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
