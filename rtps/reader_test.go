package rtps

import (
	"context"
	"encoding/binary"
	"errors"
	"net/netip"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/actbridge/actbridge/rtps/wire"
	"github.com/actbridge/actbridge/test/netns"
)

// readerFixture is a participant that knows a fake remote participant
// and its keyed writer of topic "t" (see sedpDatagram).
func readerFixture(t *testing.T, qos QoS) (*Participant, *Reader, wire.GUID) {
	t.Helper()
	p := newParticipant(t, Config{Domain: 21, PeerAddrs: []netip.AddrPort{netip.AddrPortFrom(loopback, 9)}})
	remote := fakeParticipant(3, time.Minute, 21)
	remote.BuiltinEndpoints = 0x3f
	remote.MetatrafficUnicast = []wire.Locator{wire.UDPv4Locator(loopback, 9)}
	p.handle(spdpDatagram(t, remote), loopback)
	p.handle(sedpDatagram(t, remote.Prefix), loopback)
	r, err := p.NewReader(EndpointData{Topic: "t", Type: "T", Keyed: true, QoS: qos})
	if err != nil {
		t.Fatal(err)
	}
	return p, r, wire.GUID{Prefix: remote.Prefix, Entity: 0x102}
}

func userMessage(t testing.TB, w wire.GUID, subs ...wire.Submessage) []byte {
	t.Helper()
	m := wire.Message{Header: wire.Header{Version: wire.Version(), Vendor: wire.VendorCyclone, Prefix: w.Prefix}, Submessages: subs}
	b, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func userData(w wire.GUID, sn wire.SequenceNumber) *wire.Data {
	return &wire.Data{WriterID: w.Entity, WriterSN: sn, Payload: []byte{0, 1, 0, 0, byte(sn)}}
}

// queued takes every sample queued now.
func queued(r *Reader) []wire.SequenceNumber {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	var out []wire.SequenceNumber
	for {
		s, err := r.Take(ctx)
		if err != nil {
			return out
		}
		out = append(out, s.SN)
	}
}

func TestReliableReaderDeliversInOrderAndAsksForTheRest(t *testing.T) {
	p, r, w := readerFixture(t, QoS{Reliability: Reliable, History: KeepAll})
	p.handle(userMessage(t, w, userData(w, 3), userData(w, 2)), loopback)
	if got := queued(r); len(got) != 0 {
		t.Fatalf("delivered %v before 1", got)
	}
	out := p.handleUserHeartbeat(w, &wire.Heartbeat{WriterID: w.Entity, First: 1, Last: 3, Count: 1})
	if len(out) != 1 {
		t.Fatalf("answers %+v", out)
	}
	a := out[0].subs[0].(*wire.AckNack)
	if a.State.Base != 1 || len(a.State.Members()) != 1 || a.State.Members()[0] != 1 {
		t.Fatalf("acknack %+v", a.State)
	}
	p.handle(userMessage(t, w, userData(w, 1), userData(w, 2)), loopback)
	if got := queued(r); len(got) != 3 || got[0] != 1 || got[2] != 3 {
		t.Fatalf("delivered %v, want 1 2 3 once each", got)
	}
	p.handle(userMessage(t, w, &wire.Gap{WriterID: w.Entity, Start: 4, List: wire.NewSequenceNumberSet(5)}, userData(w, 5)), loopback)
	if got := queued(r); len(got) != 1 || got[0] != 5 {
		t.Fatalf("after gap: %v", got)
	}
	// Fragments 1 (with the sample's inline QoS, as writers send it) and
	// 3 of sample 6 (3 fragments of 4 octets) arrive; a heartbeat gets a
	// NACK_FRAG for fragment 2.
	payload := []byte{0, 1, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8}
	identity := wire.ParameterList{{ID: 0x0083, Value: []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 0, 0, 0, 0, 6, 0, 0, 0}}}
	for _, f := range []uint32{1, 3} {
		df := &wire.DataFrag{WriterID: w.Entity, WriterSN: 6, FragmentStart: f, Fragments: 1, FragmentSize: 4, SampleSize: 12, Payload: payload[(f-1)*4 : f*4]}
		if f == 1 {
			df.InlineQoS = identity
		}
		p.handle(userMessage(t, w, df), loopback)
	}
	out = p.handleUserHeartbeat(w, &wire.Heartbeat{WriterID: w.Entity, First: 1, Last: 6, Count: 2})
	if len(out) != 1 || len(out[0].subs) != 2 {
		t.Fatalf("answers %+v", out)
	}
	if nf := out[0].subs[1].(*wire.NackFrag); nf.WriterSN != 6 || len(nf.State.Members()) != 1 || nf.State.Members()[0] != 2 {
		t.Fatalf("nack_frag %+v", nf)
	}
	p.handle(userMessage(t, w, &wire.DataFrag{WriterID: w.Entity, WriterSN: 6, FragmentStart: 2, Fragments: 1, FragmentSize: 4, SampleSize: 12, Payload: payload[4:8]}), loopback)
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	s, err := r.Take(ctx)
	if err != nil || s.SN != 6 || string(s.Payload) != string(payload) {
		t.Fatalf("reassembled %+v %v", s, err)
	}
	// The QoS came with fragment 1, not with fragment 2 that completed the
	// sample: a service reply is matched to its request by it.
	if v, ok := s.InlineQoS.Get(0x0083); !ok || string(v) != string(identity[0].Value) {
		t.Fatalf("reassembled sample's inline QoS %+v, want fragment 1's", s.InlineQoS)
	}
}

func TestBestEffortKeepLastReaderKeepsTheNewest(t *testing.T) {
	p, r, w := readerFixture(t, QoS{Reliability: BestEffort, History: KeepLast, Depth: 2})
	p.handle(userMessage(t, w, userData(w, 1), userData(w, 3), userData(w, 2), userData(w, 4)), loopback)
	if got := queued(r); len(got) != 2 || got[0] != 3 || got[1] != 4 {
		t.Fatalf("queued %v, want the last 2 of 1 3 4 (2 came late)", got)
	}
	if out := p.handleUserHeartbeat(w, &wire.Heartbeat{WriterID: w.Entity, First: 1, Last: 9, Count: 1}); len(out) != 0 {
		t.Fatalf("best-effort reader answered a heartbeat: %+v", out)
	}
}

func TestReaderIgnoresUnmatchedWritersAndCloses(t *testing.T) {
	p, r, w := readerFixture(t, QoS{Reliability: Reliable})
	stranger := wire.GUID{Prefix: w.Prefix, Entity: 0x999902}
	p.handle(userMessage(t, stranger, userData(stranger, 1)), loopback)
	if got := queued(r); len(got) != 0 {
		t.Fatalf("sample from an undiscovered writer delivered: %v", got)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Take(context.Background()); !errors.Is(err, ErrClosed) {
		t.Fatalf("Take after Close: %v", err)
	}
}

func TestWithdrawnWriterLeavesNoReaderState(t *testing.T) {
	p, r, w := readerFixture(t, QoS{Reliability: Reliable})
	p.handle(userMessage(t, w, userData(w, 1)), loopback)
	g := w.Bytes()
	p.handle(userMessage(t, w, &wire.Data{ReaderID: wire.EntityIDSEDPPublicationsReader, WriterID: wire.EntityIDSEDPPublicationsWriter, WriterSN: 3, // 1 announced it, 2 was a gap
		InlineQoS: wire.ParameterList{{ID: wire.PIDKeyHash, Value: g[:]}, {ID: wire.PIDStatusInfo, Value: []byte{0, 0, 0, 3}}}}), loopback)
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.sedp.remote[w]; ok || len(r.writers) != 0 {
		t.Fatalf("withdrawn writer still known (%v) or tracked by the reader (%d)", ok, len(r.writers))
	}
}

// TestReaderAsksANewWriterForAHeartbeat: learning a remote writer, each
// reliable reader it matches sends it a preemptive ACKNACK (empty, not
// final; base 0 as Fast DDS sends it, base 1 to CycloneDDS, which drops
// base 0 as malformed), so that a heartbeat dropped before we knew the
// writer is not waited for until its next period (3 s for Fast DDS);
// best-effort readers and a writer already known get none.
func TestReaderAsksANewWriterForAHeartbeat(t *testing.T) {
	netns.Require(t)
	for i, c := range []struct {
		vendor wire.VendorID
		base   wire.SequenceNumber
	}{{wire.VendorEProsima, 0}, {wire.VendorCyclone, 1}} {
		t.Run(c.vendor.String(), func(t *testing.T) {
			p := newParticipant(t, Config{Domain: 42 + i})
			reliable, err := p.NewReader(EndpointData{Topic: "t", Type: "T", Keyed: true, QoS: QoS{Reliability: Reliable}})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := p.NewReader(EndpointData{Topic: "t", Type: "T", Keyed: true, QoS: QoS{Reliability: BestEffort}}); err != nil {
				t.Fatal(err)
			}
			remote := fakeParticipant(7, time.Minute, uint32(42+i))
			remote.Vendor = c.vendor
			remote.BuiltinEndpoints = 0x3f
			remote.MetatrafficUnicast = []wire.Locator{wire.UDPv4Locator(loopback, 9)}
			p.handle(spdpDatagram(t, remote), loopback)
			w := wire.GUID{Prefix: remote.Prefix, Entity: 0x102}
			announce := func(sn wire.SequenceNumber) []outgoing {
				e := EndpointData{GUID: w, Writer: true, Keyed: true, Topic: "t", Type: "T", QoS: defaultQoS(true)}
				payload, err := plPayload(e.ParameterList(binary.LittleEndian))
				if err != nil {
					t.Fatal(err)
				}
				return p.handleSEDPData(remote.Prefix, loopback, &wire.Data{ReaderID: wire.EntityIDSEDPPublicationsReader, WriterID: wire.EntityIDSEDPPublicationsWriter, WriterSN: sn, Payload: payload})
			}
			out := announce(1)
			if len(out) != 1 || out[0].dst != remote.Prefix || len(out[0].subs) != 1 {
				t.Fatalf("learning a writer sent %+v, want one ACKNACK from the reliable reader", out)
			}
			a, ok := out[0].subs[0].(*wire.AckNack)
			if !ok || a.ReaderID != reliable.GUID().Entity || a.WriterID != w.Entity || a.State.Base != c.base || a.State.NumBits != 0 || a.Final {
				t.Fatalf("sent %+v, want a preemptive ACKNACK (base %d, empty, not final) from %v to %v", out[0].subs[0], c.base, reliable.GUID().Entity, w.Entity)
			}
			if out := announce(2); len(out) != 0 {
				t.Fatalf("a writer announced again got %+v", out)
			}
		})
	}
}

// TestReaderAnswersHeartbeatFragWithTheMissingFragments: a remote
// writer's HEARTBEAT_FRAG for a sample our reliable reader has in part
// gets a NACK_FRAG of the fragments missing up to its last one; for a
// sample not started, or already delivered, nothing.
func TestReaderAnswersHeartbeatFragWithTheMissingFragments(t *testing.T) {
	netns.Require(t)
	p, r, w := readerOfRemoteWriter(t, 47)
	// Fragments 1 and 3 of a 4-fragment sample 1 arrive.
	for _, f := range []uint32{1, 3} {
		p.handleUserFrag(w, &wire.DataFrag{WriterID: w.Entity, WriterSN: 1, FragmentStart: f, Fragments: 1, FragmentSize: 4,
			SampleSize: 16, Payload: []byte{0, 1, 0, 0}}, time.Time{})
	}
	out := p.handleUserHeartbeatFrag(w, &wire.HeartbeatFrag{WriterID: w.Entity, WriterSN: 1, LastFragment: 4, Count: 1})
	if len(out) != 1 || len(out[0].subs) != 1 {
		t.Fatalf("answered %+v, want one NACK_FRAG", out)
	}
	nf, ok := out[0].subs[0].(*wire.NackFrag)
	if !ok || nf.ReaderID != r.GUID().Entity || nf.WriterSN != 1 || !slices.Equal(nf.State.Members(), []uint32{2, 4}) {
		t.Fatalf("answered %+v, want a NACK_FRAG of fragments 2 and 4 of sample 1", out[0].subs[0])
	}
	if out := p.handleUserHeartbeatFrag(w, &wire.HeartbeatFrag{WriterID: w.Entity, WriterSN: 2, LastFragment: 4, Count: 2}); len(out) != 0 {
		t.Fatalf("a sample not started got %+v", out)
	}
}

// readerOfRemoteWriter is a participant with a reliable keep-all reader
// of topic "t" that knows a matching remote writer (of a Cyclone
// participant that announced itself), and that writer's GUID.
func readerOfRemoteWriter(t *testing.T, domain int) (*Participant, *Reader, wire.GUID) {
	t.Helper()
	p := newParticipant(t, Config{Domain: domain})
	r, err := p.NewReader(EndpointData{Topic: "t", Type: "T", Keyed: true, QoS: QoS{Reliability: Reliable, History: KeepAll}})
	if err != nil {
		t.Fatal(err)
	}
	remote := fakeParticipant(8, time.Minute, uint32(domain))
	remote.BuiltinEndpoints = 0x3f
	remote.MetatrafficUnicast = []wire.Locator{wire.UDPv4Locator(loopback, 9)}
	p.handle(spdpDatagram(t, remote), loopback)
	w := wire.GUID{Prefix: remote.Prefix, Entity: 0x102}
	e := EndpointData{GUID: w, Writer: true, Keyed: true, Topic: "t", Type: "T", QoS: defaultQoS(true)}
	payload, err := plPayload(e.ParameterList(binary.LittleEndian))
	if err != nil {
		t.Fatal(err)
	}
	p.handleSEDPData(remote.Prefix, loopback, &wire.Data{ReaderID: wire.EntityIDSEDPPublicationsReader, WriterID: wire.EntityIDSEDPPublicationsWriter, WriterSN: 1, Payload: payload})
	return p, r, w
}

// TestReaderAsksForAHoleAtOnce: a reliable reader that gets sample 3
// after 1 asks the writer for 2 at once, without waiting for a heartbeat
// (Fast DDS heartbeats every 3 s: 150 samples through a lossy relay took
// 16 s); sample 4 behind the same hole asks nothing more.
func TestReaderAsksForAHoleAtOnce(t *testing.T) {
	netns.Require(t)
	p, r, w := readerOfRemoteWriter(t, 48)
	data := func(sn wire.SequenceNumber) []outgoing {
		return p.handleUserData(w, &wire.Data{ReaderID: wire.EntityIDUnknown, WriterSN: sn, Payload: []byte{0, 1, 0, 0, byte(sn)}}, time.Time{})
	}
	if out := data(1); len(out) != 0 {
		t.Fatalf("an in-order sample sent %+v", out)
	}
	out := data(3)
	if len(out) != 1 || len(out[0].subs) != 1 {
		t.Fatalf("sample 3 after 1 sent %+v, want one ACKNACK", out)
	}
	a, ok := out[0].subs[0].(*wire.AckNack)
	if !ok || a.ReaderID != r.GUID().Entity || a.State.Base != 2 || !slices.Equal(a.State.Members(), []wire.SequenceNumber{2}) {
		t.Fatalf("sent %+v, want an ACKNACK of base 2 asking for 2", out[0].subs[0])
	}
	if out := data(4); len(out) != 0 {
		t.Fatalf("sample 4 behind the same hole sent %+v", out)
	}
}

// TestEveryWaitingTakeWakes: two Takes waiting on one reader each get one
// of two samples that arrive together, and two more waiting Takes both
// return ErrClosed when the reader closes.
func TestEveryWaitingTakeWakes(t *testing.T) {
	netns.Require(t)
	p, r, w := readerOfRemoteWriter(t, 49)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	takes := func() <-chan error {
		errs := make(chan error, 2)
		for range 2 {
			go func() {
				_, err := r.Take(ctx)
				errs <- err
			}()
		}
		return errs
	}
	errs := takes()
	time.Sleep(20 * time.Millisecond) // both wait
	p.handleUserData(w, &wire.Data{ReaderID: wire.EntityIDUnknown, WriterSN: 1, Payload: []byte{0, 1, 0, 0, 1}}, time.Time{})
	p.handleUserData(w, &wire.Data{ReaderID: wire.EntityIDUnknown, WriterSN: 2, Payload: []byte{0, 1, 0, 0, 2}}, time.Time{})
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatalf("a waiting Take of two samples: %v", err)
		}
	}
	errs = takes()
	time.Sleep(20 * time.Millisecond)
	r.Close()
	for range 2 {
		if err := <-errs; !errors.Is(err, ErrClosed) {
			t.Fatalf("a Take waiting on a closed reader: %v, want ErrClosed", err)
		}
	}
}

// TestListenerGetsEverySampleInOrderUnderLoss: a reader's listener gets
// each reliable sample once and in order, those held for a repair too,
// one call at a time, and Take gets none of them.
func TestListenerGetsEverySampleInOrderUnderLoss(t *testing.T) {
	w, r := matchedPair(t, Config{Domain: 46, AnnouncePeriod: 300 * time.Millisecond, drop: lossy(0.2, 3)},
		Config{Domain: 46, AnnouncePeriod: 300 * time.Millisecond, drop: lossy(0.2, 4)})
	const n = 300
	var mu sync.Mutex
	var got []int
	var active, overlapped atomic.Int32
	done := make(chan struct{})
	r.Listen(func(s Sample) {
		if active.Add(1) > 1 {
			overlapped.Add(1)
		}
		defer active.Add(-1)
		mu.Lock()
		defer mu.Unlock()
		got = append(got, int(s.Payload[4])|int(s.Payload[5])<<8)
		if len(got) == n {
			close(done)
		}
	})
	for i := range n {
		if err := w.Write([]byte{0, 1, 0, 0, byte(i), byte(i >> 8)}, nil); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("%d of %d samples reached the listener", len(got), n)
	}
	mu.Lock()
	for i, v := range got {
		if v != i {
			t.Fatalf("listener call %d got sample %d", i, v)
		}
	}
	mu.Unlock()
	if overlapped.Load() > 0 {
		t.Fatalf("%d listener calls overlapped another", overlapped.Load())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if s, err := r.Take(ctx); err == nil {
		t.Fatalf("Take got sample %d that the listener had", s.SN)
	}
}
