package rtps

import (
	"encoding/binary"
	"errors"
	"net/netip"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/actbridge/actbridge/rtps/wire"
)

// TestDiscoveryServerClientAnnouncesWhatFastDDSServersRequire: a Fast DDS
// server drops a DATA(p) whose vendor is not eProsima, that names no
// participant type or carries no sample identity (PDPServerListener).
func TestDiscoveryServerClientAnnouncesWhatFastDDSServersRequire(t *testing.T) {
	for _, super := range []bool{false, true} {
		p := newParticipant(t, Config{Domain: 60, DiscoveryServers: []netip.AddrPort{netip.AddrPortFrom(loopback, 9)}, SuperClient: super})
		b, err := p.spdpMessage(false)
		if err != nil {
			t.Fatal(err)
		}
		var m wire.Message
		if err := m.Unmarshal(b); err != nil {
			t.Fatal(err)
		}
		d := m.Submessages[1].(*wire.Data)
		if d.WriterSN != dsSPDPSN {
			t.Errorf("sequence number %d: a server's reliable reader takes one change, SN %d", d.WriterSN, dsSPDPSN)
		}
		for _, pid := range []wire.ParameterID{wire.PIDRelatedSampleIdentity, pidRelatedSampleIdentityFastDDS} {
			var v []byte
			ok := false
			for _, q := range d.InlineQoS {
				if q.ID == pid {
					v, ok = q.Value, true
				}
			}
			want := sampleIdentityQoS(wire.GUID{Prefix: p.GUID().Prefix, Entity: wire.EntityIDSPDPWriter}, dsSPDPSN)[0].Value
			if !ok || !reflect.DeepEqual(v, want) {
				t.Errorf("inline QoS %v: sample identity %x, want %x", pid, v, want)
			}
		}
		pl, o, err := payloadParameterList(d.Payload)
		if err != nil {
			t.Fatal(err)
		}
		data, err := ParseParticipantData(pl, o, m.Header.Vendor)
		if err != nil {
			t.Fatal(err)
		}
		role := map[bool]string{false: "CLIENT", true: "SUPER_CLIENT"}[super]
		if got, _ := data.Property(PropertyParticipantType); data.Vendor != wire.VendorEProsima || got != role {
			t.Errorf("super %v: vendor %v type %q, want 01.0f %q", super, data.Vendor, got, role)
		}
		if p.Data().Vendor != VendorID {
			t.Errorf("our own data says vendor %v: only the servers are told eProsima", p.Data().Vendor)
		}
	}
}

// TestDiscoveryServerClientBelievesNoParticipantButItsServer: a
// participant that announces itself to a client, not at a configured
// server address, is never learned, and neither is what it relays.
func TestDiscoveryServerClientBelievesNoParticipantButItsServer(t *testing.T) {
	client := newParticipant(t, Config{Domain: 61, DiscoveryServers: []netip.AddrPort{netip.AddrPortFrom(loopback, 9)}})
	stranger := newParticipant(t, Config{Domain: 61, PeerAddrs: []netip.AddrPort{netip.AddrPortFrom(loopback, client.uc.Port())}, AnnouncePeriod: 50 * time.Millisecond})
	// The stranger also relays a third participant's DATA(p), as a server would.
	third := stranger.Data()
	third.Prefix[11] ^= 0xff
	relay := func() {
		b, err := plPayload(third.ParameterList(binary.LittleEndian))
		if err != nil {
			t.Fatal(err)
		}
		m := wire.Message{Header: wire.Header{Version: wire.Version(), Vendor: VendorID, Prefix: stranger.GUID().Prefix},
			Submessages: []wire.Submessage{&wire.Data{ReaderID: wire.EntityIDSPDPReader, WriterID: wire.EntityIDSPDPWriter, WriterSN: 7, Payload: b}}}
		out, err := m.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		if err := stranger.uc.WriteTo(out, netip.AddrPortFrom(loopback, client.uc.Port())); err != nil {
			t.Fatal(err)
		}
	}
	// A second of the stranger's announcements and relays.
	deadline := time.Now().Add(time.Second)
	for time.Now().Before(deadline) {
		relay()
		time.Sleep(50 * time.Millisecond)
	}
	if ps := client.Participants(); len(ps) != 0 {
		t.Fatalf("client learned %d participants from a stranger: %+v", len(ps), ps)
	}
}

// TestRestartShowsInAHeartbeatGoingBack: a writer that announces fewer
// samples than we had of it, or whose heartbeat count went back to its
// start, started again; a reordered heartbeat did not.
func TestRestartShowsInAHeartbeatGoingBack(t *testing.T) {
	w := &writerProxy{next: 9, hbCount: 40}
	for _, c := range []struct {
		last  wire.SequenceNumber
		count int32
		want  bool
	}{
		{8, 41, false}, {12, 41, false}, {8, 39, false}, // in order, more, reordered
		{3, 41, true}, {8, 1, true}, {8, 20, true},
	} {
		if got := restarted(w, &wire.Heartbeat{First: 1, Last: c.last, Count: c.count}); got != c.want {
			t.Errorf("last %d count %d: restarted %v, want %v", c.last, c.count, got, c.want)
		}
	}
	if restarted(&writerProxy{next: 1, hbCount: -1 << 31}, &wire.Heartbeat{Last: 0, Count: 1}) {
		t.Error("a writer never heard from restarted")
	}
}

func TestDiscoveryServerConfigRefusesOtherDiscovery(t *testing.T) {
	s := []netip.AddrPort{netip.AddrPortFrom(loopback, 11811)}
	for _, c := range []Config{
		{DiscoveryServers: s, Multicast: true},
		{DiscoveryServers: s, HostMulticast: true},
		{DiscoveryServers: s, Peers: []netip.Addr{loopback}},
		{DiscoveryServers: []netip.AddrPort{netip.MustParseAddrPort("[::1]:11811")}},
		{SuperClient: true},
	} {
		if _, err := c.withDefaults(); !errors.Is(err, ErrConfig) {
			t.Errorf("%+v: %v, want ErrConfig", c, err)
		}
	}
}

// TestAServerIsWhereItsPacketsComeFrom: a participant that announces the
// configured server's address from another host is no server, and no
// relay under a real server's prefix counts unless it comes from the
// server's host: what a DATA(p) says of itself proves nothing.
func TestAServerIsWhereItsPacketsComeFrom(t *testing.T) {
	client, other, server := dsRig(t, 62)
	data := func(d ParticipantData, sn wire.SequenceNumber) *wire.Data {
		b, err := plPayload(d.ParameterList(binary.LittleEndian))
		if err != nil {
			t.Fatal(err)
		}
		return &wire.Data{ReaderID: wire.EntityIDSPDPReader, WriterID: wire.EntityIDSPDPWriter, WriterSN: sn, Payload: b}
	}
	elsewhere := netip.MustParseAddr("10.9.9.9") // never sent to: only named as a source
	client.handleDSSPDP(server.Prefix, VendorID, elsewhere, data(server, 1))
	if ps := client.Participants(); len(ps) != 0 {
		t.Fatalf("a server's address announced from another host was believed: %+v", ps)
	}
	client.handleDSSPDP(server.Prefix, VendorID, loopback, data(server, 1))
	if ps := client.Participants(); len(ps) != 1 {
		t.Fatalf("the server itself was not learned: %+v", ps)
	}
	relayed := other.Data()
	relayed.Prefix[11] ^= 0xff
	client.handleDSSPDP(server.Prefix, VendorID, elsewhere, data(relayed, 2))
	if ps := client.Participants(); len(ps) != 1 || client.Stats().ServerImpostors == 0 {
		t.Fatalf("a relay under the server's prefix from another host was believed: %+v, %+v", ps, client.Stats())
	}
	client.handleDSSPDP(server.Prefix, VendorID, loopback, data(relayed, 2))
	if ps := client.Participants(); len(ps) != 2 {
		t.Fatalf("the server's own relay was not learned: %+v", ps)
	}
}

// TestRestartSeenFirstInAnEndpointHeartbeatResyncs: a restarted server's
// SEDP heartbeat can reach us before its SPDP one (that one lost, or
// sent later): it shows the restart as well, so the new incarnation's
// relays, numbered from 1 again, are taken instead of dropped as ones we
// had from the old.
func TestRestartSeenFirstInAnEndpointHeartbeatResyncs(t *testing.T) {
	client, other, server := dsRig(t, 63)
	arm := other.Data()
	arm.Prefix[11] ^= 0xff
	for sn, d := range []ParticipantData{server, arm} {
		b, err := plPayload(d.ParameterList(binary.LittleEndian))
		if err != nil {
			t.Fatal(err)
		}
		client.handleDSSPDP(server.Prefix, VendorID, loopback, &wire.Data{ReaderID: wire.EntityIDSPDPReader, WriterID: wire.EntityIDSPDPWriter, WriterSN: wire.SequenceNumber(sn + 1), Payload: b})
	}
	if ps := client.Participants(); len(ps) != 2 {
		t.Fatalf("server and relayed participant not learned: %+v", ps)
	}
	pubs := func(first, last wire.SequenceNumber, count int32) *wire.Heartbeat {
		return &wire.Heartbeat{ReaderID: wire.EntityIDSEDPPublicationsReader, WriterID: wire.EntityIDSEDPPublicationsWriter, First: first, Last: last, Count: count}
	}
	// The old incarnation had sent us 10 endpoint samples (none ours to keep).
	client.handleSEDPGap(server.Prefix, &wire.Gap{ReaderID: wire.EntityIDSEDPPublicationsReader, WriterID: wire.EntityIDSEDPPublicationsWriter, Start: 1, List: wire.NewSequenceNumberSet(11)})
	client.handleSEDPHeartbeat(server.Prefix, loopback, pubs(1, 10, 8))

	// The new one's first words to us: a heartbeat of its publications
	// writer, then its relay of the arm's writer as its sample 1.
	out := client.handleSEDPHeartbeat(server.Prefix, loopback, pubs(1, 1, 1))
	if n := client.Stats().ServerRestarts; n != 1 {
		t.Fatalf("%d restarts seen, want 1", n)
	}
	nacked := false
	for _, o := range out {
		for _, s := range o.subs {
			if a, ok := s.(*wire.AckNack); ok && a.WriterID == wire.EntityIDSEDPPublicationsWriter {
				nacked = a.State.Base == 1 && a.State.Contains(1)
			}
		}
	}
	if !nacked {
		t.Errorf("the new incarnation's heartbeat was not answered asking for its sample 1: %+v", out)
	}
	e := EndpointData{GUID: wire.GUID{Prefix: arm.Prefix, Entity: 0x102}, Writer: true, Topic: "rq/arm/follow_joint_trajectory/_action/send_goalRequest", Type: "T", QoS: defaultQoS(true)}
	payload, err := plPayload(e.ParameterList(binary.LittleEndian))
	if err != nil {
		t.Fatal(err)
	}
	client.handleSEDPData(server.Prefix, loopback, &wire.Data{ReaderID: wire.EntityIDSEDPPublicationsReader, WriterID: wire.EntityIDSEDPPublicationsWriter, WriterSN: 1, Payload: payload})
	if es := client.Endpoints(); len(es) != 1 || es[0].GUID != e.GUID {
		t.Fatalf("the new incarnation's relay was not taken: %+v", es)
	}
}

// TestRelayOfAnUnknownOwnerStallsNoRelayBehindIt: an endpoint a server
// relays before its owner's DATA(p) takes its number and waits for the
// owner, so the window's worth of relays behind it are all learned (an
// owner that never comes held the reader's window and refused every relay
// 256 behind it), and it is learned when the owner is.
func TestRelayOfAnUnknownOwnerStallsNoRelayBehindIt(t *testing.T) {
	client, other, server := dsRig(t, 64)
	known, late := other.Data(), other.Data()
	known.Prefix[11] ^= 0xff
	late.Prefix[11] ^= 0xfe
	spdp := func(d ParticipantData, sn wire.SequenceNumber) {
		b, err := plPayload(d.ParameterList(binary.LittleEndian))
		if err != nil {
			t.Fatal(err)
		}
		client.handleDSSPDP(server.Prefix, VendorID, loopback, &wire.Data{ReaderID: wire.EntityIDSPDPReader, WriterID: wire.EntityIDSPDPWriter, WriterSN: sn, Payload: b})
	}
	spdp(server, 1)
	spdp(known, 2)
	relay := func(owner wire.GUIDPrefix, key uint32, sn wire.SequenceNumber) {
		e := EndpointData{GUID: wire.GUID{Prefix: owner, Entity: wire.EntityID(key<<8 | wire.KindUserWriterNoKey)}, Writer: true, Topic: "t", Type: "T", QoS: defaultQoS(true)}
		payload, err := plPayload(e.ParameterList(binary.LittleEndian))
		if err != nil {
			t.Fatal(err)
		}
		client.handleSEDPData(server.Prefix, loopback, &wire.Data{ReaderID: wire.EntityIDSEDPPublicationsReader, WriterID: wire.EntityIDSEDPPublicationsWriter, WriterSN: sn, Payload: payload})
	}
	relay(late.Prefix, 1, 1)
	const behind = wire.MaxSetBits + 44
	for i := range behind {
		relay(known.Prefix, uint32(i+1), wire.SequenceNumber(i+2))
	}
	if n := len(client.Endpoints()); n != behind {
		t.Fatalf("%d of the %d relays behind the unknown owner's learned", n, behind)
	}
	spdp(late, 3)
	if n := len(client.Endpoints()); n != behind+1 {
		t.Fatalf("the late owner's endpoint was not learned with it: %d endpoints", n)
	}
	// A flood of relays whose owners never come keeps the newest 256.
	sn := wire.SequenceNumber(behind + 2)
	for i := range maxParked + 10 {
		stranger := late.Prefix
		stranger[0], stranger[1] = byte(i>>8), byte(i)
		relay(stranger, 1, sn)
		sn++
	}
	client.mu.Lock()
	n := len(client.sedp.parked)
	client.mu.Unlock()
	if dropped := client.Stats().RelaysDropped; n != maxParked || dropped != 10 {
		t.Errorf("%d relays kept for owners unknown, %d dropped: want %d and 10", n, dropped, maxParked)
	}
}

// TestRelayedParticipantStaysWhileAnotherServerVouches: with two servers
// (Fast DDS redundancy), a participant both relayed is kept past its own
// lease while either lives, is not dropped when one relays its goodbye
// (it left that server) nor when one restarts, and goes when the other
// relays its goodbye too: no server speaks for another's relays.
func TestRelayedParticipantStaysWhileAnotherServerVouches(t *testing.T) {
	client := newParticipant(t, Config{Domain: 65, DiscoveryServers: []netip.AddrPort{netip.AddrPortFrom(loopback, 9), netip.AddrPortFrom(loopback, 10)}})
	// other's own announcements go to another domain: none of its real
	// packets can reach the client and forget a server the test placed.
	other := newParticipant(t, Config{Domain: 66})
	a, b, arm := other.Data(), other.Data(), other.Data()
	a.Domain, b.Domain, arm.Domain = 65, 65, 65
	a.MetatrafficUnicast = []wire.Locator{wire.UDPv4Locator(loopback, 9)}
	b.Prefix[10] ^= 0xff
	b.MetatrafficUnicast = []wire.Locator{wire.UDPv4Locator(loopback, 10)}
	arm.Prefix[11] ^= 0xff
	a.LeaseDuration, b.LeaseDuration, arm.LeaseDuration = 3*time.Minute, 3*time.Minute, 10*time.Second
	sn := map[wire.GUIDPrefix]wire.SequenceNumber{}
	spdp := func(server wire.GUIDPrefix, d ParticipantData, dispose bool) {
		sn[server]++
		m := &wire.Data{ReaderID: wire.EntityIDSPDPReader, WriterID: wire.EntityIDSPDPWriter, WriterSN: sn[server]}
		if dispose {
			g := wire.GUID{Prefix: d.Prefix, Entity: wire.EntityIDParticipant}.Bytes()
			m.Key, m.InlineQoS = true, wire.ParameterList{{ID: wire.PIDKeyHash, Value: g[:]}, {ID: wire.PIDStatusInfo, Value: []byte{0, 0, 0, 3}}}
		} else {
			b, err := plPayload(d.ParameterList(binary.LittleEndian))
			if err != nil {
				t.Fatal(err)
			}
			m.Payload = b
		}
		client.handleDSSPDP(server, VendorID, loopback, m)
	}
	spdp(a.Prefix, a, false)
	spdp(b.Prefix, b, false)
	spdp(a.Prefix, arm, false)
	spdp(b.Prefix, arm, false)
	known := func() bool {
		return slices.ContainsFunc(client.Participants(), func(d ParticipantData) bool { return d.Prefix == arm.Prefix })
	}
	if !known() {
		t.Fatalf("the relayed participant was not learned: %+v", client.Participants())
	}
	spdp(a.Prefix, arm, true)
	if !known() {
		t.Fatalf("one server's goodbye dropped a participant the other still relays")
	}
	client.expire(time.Now().Add(time.Minute)) // its own lease long over; the servers' not
	if !known() {
		t.Fatalf("a participant b relays expired with its own lease")
	}
	client.mu.Lock()
	_, placed := client.remotes[a.Prefix]
	client.serverRestarted(a.Prefix)
	client.mu.Unlock()
	if !placed {
		t.Fatal("server a was forgotten before its restart: the restart tested nothing")
	}
	if !known() {
		t.Fatalf("a's restart took away what b vouches for")
	}
	spdp(b.Prefix, arm, true)
	if known() {
		t.Fatalf("the participant stayed after both servers relayed its goodbye")
	}
}

// dsRig is a discovery client on domain and another participant whose
// data, announcing the configured server's address (loopback:9), the
// tests hand the client as the server's.
func dsRig(t *testing.T, domain int) (client, other *Participant, server ParticipantData) {
	t.Helper()
	client = newParticipant(t, Config{Domain: domain, DiscoveryServers: []netip.AddrPort{netip.AddrPortFrom(loopback, 9)}})
	other = newParticipant(t, Config{Domain: domain})
	server = other.Data()
	server.MetatrafficUnicast = []wire.Locator{wire.UDPv4Locator(loopback, 9)}
	return client, other, server
}
