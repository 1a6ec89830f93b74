package rtps

import (
	"context"
	"encoding/binary"
	"net/netip"
	"os"
	"testing"
	"time"

	"github.com/actbridge/actbridge/rtps/wire"
)

// sedpDatagram is a publications announcement from participant prefix,
// with a heartbeat and a gap, as a remote SEDP writer sends them.
func sedpDatagram(t testing.TB, prefix wire.GUIDPrefix) []byte {
	e := EndpointData{GUID: wire.GUID{Prefix: prefix, Entity: 0x102}, Writer: true, Keyed: true, Topic: "t", Type: "T", QoS: defaultQoS(true)}
	payload, err := plPayload(e.ParameterList(binary.LittleEndian))
	if err != nil {
		t.Fatal(err)
	}
	m := wire.Message{Header: wire.Header{Version: wire.Version(), Vendor: wire.VendorCyclone, Prefix: prefix}, Submessages: []wire.Submessage{
		&wire.Data{ReaderID: wire.EntityIDSEDPPublicationsReader, WriterID: wire.EntityIDSEDPPublicationsWriter, WriterSN: 1, Payload: payload},
		&wire.Gap{WriterID: wire.EntityIDSEDPPublicationsWriter, Start: 2, List: wire.NewSequenceNumberSet(3)},
		&wire.Heartbeat{WriterID: wire.EntityIDSEDPPublicationsWriter, First: 1, Last: 4, Count: 1},
		&wire.AckNack{WriterID: wire.EntityIDSEDPPublicationsWriter, State: wire.NewSequenceNumberSet(1), Count: 1},
	}}
	b, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// FuzzHandle feeds datagrams to a live participant: whatever arrives, it
// neither panics nor keeps more than its bounds allow.
func FuzzHandle(f *testing.F) {
	for _, name := range []string{"cyclone-spdp-alive.bin", "cyclone-spdp-dispose.bin", "cyclone-sedp-publication.bin"} {
		b, err := os.ReadFile("testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	remote := fakeParticipant(1, time.Minute, 17)
	remote.BuiltinEndpoints = 0x3f
	remote.MetatrafficUnicast = []wire.Locator{wire.UDPv4Locator(loopback, 9)}
	alive := spdpDatagram(f, remote)
	f.Add(alive)
	f.Add(sedpDatagram(f, remote.Prefix))
	w := wire.GUID{Prefix: remote.Prefix, Entity: 0x102}
	f.Add(userMessage(f, w, userData(w, 2), &wire.Heartbeat{WriterID: w.Entity, First: 1, Last: 3, Count: 1},
		&wire.DataFrag{WriterID: w.Entity, WriterSN: 3, FragmentStart: 1, Fragments: 1, FragmentSize: 4, SampleSize: 12, Payload: []byte{0, 1, 0, 0}},
		&wire.HeartbeatFrag{WriterID: w.Entity, WriterSN: 3, LastFragment: 3, Count: 1},
		&wire.Gap{WriterID: w.Entity, Start: 1, List: wire.NewSequenceNumberSet(2)}))
	const budget = 1 << 20
	p, err := NewParticipant(context.Background(), Config{Domain: 17, MaxParticipants: 4, MaxEndpoints: 8, ReceiveBudget: budget,
		PeerAddrs: []netip.AddrPort{netip.MustParseAddrPort("127.0.0.1:9")}})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { p.Close() })
	p.Protect("t")
	p.handle(alive, loopback) // the seeds' sender and its writer are known
	p.handle(sedpDatagram(f, remote.Prefix), loopback)
	if _, err := p.NewReader(EndpointData{Topic: "t", Type: "T", Keyed: true, QoS: QoS{Reliability: Reliable}}); err != nil {
		f.Fatal(err)
	}
	ours, err := p.NewWriter(EndpointData{Topic: "u", Type: "U", QoS: QoS{Reliability: Reliable}})
	if err != nil {
		f.Fatal(err)
	}
	ours.Write(make([]byte, 3*maxData), nil) // fragmented
	nack := wire.FragmentNumberSet{Base: 1}
	nack.Add(2)
	f.Add(userMessage(f, w, &wire.AckNack{ReaderID: 0x107, WriterID: ours.GUID().Entity, State: wire.NewSequenceNumberSet(1), Count: 1},
		&wire.NackFrag{ReaderID: 0x107, WriterID: ours.GUID().Entity, WriterSN: 1, State: nack, Count: 1}))
	f.Fuzz(func(t *testing.T, b []byte) {
		from := loopback // the seeds' sender's address, or a stranger's
		if len(b)%2 == 1 {
			from = strangerAddr
		}
		p.handle(b, from)
		p.mu.Lock()
		defer p.mu.Unlock()
		if len(p.remotes) > 4 || len(p.sedp.remote) > 8 {
			t.Fatalf("bounds exceeded: %d participants, %d endpoints", len(p.remotes), len(p.sedp.remote))
		}
		if n := p.receiveHeld(); n > budget || p.stats.ReceiveBytesPeak > budget {
			t.Fatalf("%d octets held (peak %d), budget %d", n, p.stats.ReceiveBytesPeak, budget)
		}
		for _, r := range p.readers {
			if _, b := r.frags.Pending(); len(r.queue) > 1 || b > 32<<20 {
				t.Fatalf("reader bounds exceeded: %d queued (keep-last 1), %d octets of fragments", len(r.queue), b)
			}
			for _, uw := range r.writers {
				if uw.heldBytes > maxOutOfOrder {
					t.Fatalf("%d octets held out of order", uw.heldBytes)
				}
			}
		}
	})
}

func TestSEDPFromAnUnknownParticipantIsIgnored(t *testing.T) {
	p := newParticipant(t, Config{Domain: 18, PeerAddrs: []netip.AddrPort{netip.AddrPortFrom(loopback, 9)}})
	remote := fakeParticipant(2, time.Minute, 18)
	remote.BuiltinEndpoints = 0x3f
	remote.MetatrafficUnicast = []wire.Locator{wire.UDPv4Locator(loopback, 9)}
	p.handle(sedpDatagram(t, remote.Prefix), loopback)
	if n := len(p.Endpoints()); n != 0 {
		t.Fatalf("%d endpoints learned from a participant never announced", n)
	}
	p.handle(spdpDatagram(t, remote), loopback)
	p.handle(sedpDatagram(t, remote.Prefix), loopback)
	if es := p.Endpoints(); len(es) != 1 || es[0].Topic != "t" || !es[0].Keyed || es[0].Vendor != wire.VendorCyclone {
		t.Fatalf("endpoints %+v", es)
	}
	p.handle(sedpDatagram(t, remote.Prefix), loopback) // the same SN again: a duplicate
	p.mu.Lock()
	wp := p.sedp.pubReader.writers[remote.Prefix]
	p.mu.Unlock()
	if wp.next != 3 { // 1 received, 2 gapped (gapStart..gapList.base-1)
		t.Fatalf("reader state %+v", wp)
	}
}
