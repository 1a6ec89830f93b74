package rtps

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/actbridge/actbridge/rtps/wire"
	"github.com/actbridge/actbridge/test/netns"
)

func takeN(t *testing.T, r *Reader, n int) []Sample {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var out []Sample
	for range n {
		s, err := r.Take(ctx)
		if err != nil {
			t.Fatalf("after %d of %d samples: %v", len(out), n, err)
		}
		out = append(out, s)
	}
	return out
}

// matchedPair is a writer on a participant of config a and a reader on
// one of config b, of the same reliable keep-all topic, once matched.
func matchedPair(t *testing.T, a, b Config) (*Writer, *Reader) {
	t.Helper()
	topic := EndpointData{Topic: "rt/chatter", Type: "std_msgs::msg::dds_::String_", QoS: QoS{Reliability: Reliable, History: KeepAll}}
	w, err := newParticipant(t, a).NewWriter(topic)
	if err != nil {
		t.Fatal(err)
	}
	r, err := newParticipant(t, b).NewReader(topic)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := w.WaitMatched(ctx, 1); err != nil {
		t.Fatal(err)
	}
	return w, r
}

func TestReliableWriterReachesReaderInOrder(t *testing.T) {
	w, r := matchedPair(t, Config{Domain: 22}, Config{Domain: 22})
	for i := range 50 {
		if err := w.Write([]byte{0, 1, 0, 0, byte(i)}, nil); err != nil {
			t.Fatal(err)
		}
	}
	for i, s := range takeN(t, r, 50) {
		if s.Payload[4] != byte(i) || s.Writer != w.GUID() {
			t.Fatalf("sample %d: %+v", i, s)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := w.WaitAcknowledged(ctx); err != nil {
		t.Fatalf("samples taken but not acknowledged: %v", err)
	}
}

func TestTransientLocalLateJoinerGetsTheLastSample(t *testing.T) {
	a := newParticipant(t, Config{Domain: 23})
	topic := EndpointData{Topic: "rt/status", Type: "T", QoS: QoS{Reliability: Reliable, Durability: TransientLocal, History: KeepLast, Depth: 1}}
	w, err := a.NewWriter(topic)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		w.Write([]byte{0, 1, 0, 0, byte(i)}, nil)
	}
	b := newParticipant(t, Config{Domain: 23})
	r, err := b.NewReader(topic)
	if err != nil {
		t.Fatal(err)
	}
	if s := takeN(t, r, 1)[0]; s.Payload[4] != 2 || s.SN != 3 {
		t.Fatalf("late joiner got %+v, want the last sample (sn 3)", s)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if s, err := r.Take(ctx); err == nil {
		t.Fatalf("late joiner got an older sample too: %+v", s)
	}
}

func TestWriterRefusesOversizedSamples(t *testing.T) {
	a := newParticipant(t, Config{Domain: 24})
	w, err := a.NewWriter(EndpointData{Topic: "t", Type: "T"})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(make([]byte, maxSample+1), nil); err == nil {
		t.Fatal("oversized sample accepted")
	}
}

// lossy drops the given fraction of calls, deterministically seeded; safe
// for the participant's two receive goroutines.
func lossy(fraction float64, seed uint64) func() bool {
	var mu sync.Mutex
	rng := rand.New(rand.NewPCG(seed, seed))
	return func() bool {
		mu.Lock()
		defer mu.Unlock()
		return rng.Float64() < fraction
	}
}

// With a fifth of all datagrams lost on both sides (discovery included),
// every sample of a reliable writer arrives in order, exactly once.
func TestReliableDeliveryUnderLoss(t *testing.T) {
	// Lost announcements are repeated every AnnouncePeriod.
	w, r := matchedPair(t, Config{Domain: 26, AnnouncePeriod: 300 * time.Millisecond, drop: lossy(0.2, 1)},
		Config{Domain: 26, AnnouncePeriod: 300 * time.Millisecond, drop: lossy(0.2, 2)})
	const n = 300
	for i := range n {
		if err := w.Write([]byte{0, 1, 0, 0, byte(i), byte(i >> 8)}, nil); err != nil {
			t.Fatal(err)
		}
	}
	got := takeN(t, r, n)
	for i, s := range got {
		if int(s.Payload[4])|int(s.Payload[5])<<8 != i {
			t.Fatalf("sample %d carries %d", i, int(s.Payload[4])|int(s.Payload[5])<<8)
		}
	}
	ctx2, cancel2 := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel2()
	if s, err := r.Take(ctx2); err == nil {
		t.Fatalf("a sample arrived twice: sn %d", s.SN)
	}
}

// Samples larger than one DATA go as DATA_FRAGs and come out whole.
func TestLargeSamplesTravelInFragments(t *testing.T) {
	w, r := matchedPair(t, Config{Domain: 27}, Config{Domain: 27})
	for _, size := range []int{maxData + 1, 100_000, 1 << 20} {
		sample := make([]byte, size)
		for i := range sample {
			sample[i] = byte(i * 7)
		}
		if err := w.Write(sample, nil); err != nil {
			t.Fatal(err)
		}
		if got := takeN(t, r, 1)[0]; !bytes.Equal(got.Payload, sample) {
			t.Fatalf("%d-octet sample came out as %d octets, or changed", size, len(got.Payload))
		}
	}
}

// TestFragmentRepairsEndWithAHeartbeat: the fragments a NACK_FRAG asks
// for go out followed by a HEARTBEAT_FRAG and a HEARTBEAT, so the reader
// says at once what it still misses. Without it each round of repairs waited for the periodic
// heartbeat: a 1 MB sample took 4 s to reach a Fast DDS reader whose
// socket dropped a third of every burst.
func TestFragmentRepairsEndWithAHeartbeat(t *testing.T) {
	peer := wire.GUID{Prefix: wire.GUIDPrefix{9}, Entity: 0x107}
	w := &statefulWriter{id: 0x103, readerID: wire.EntityIDUnknown, next: 1, readers: map[wire.GUID]*readerProxy{}, keepLast: 1}
	w.match(peer)
	w.write(wire.GUID{}, make([]byte, 10*fragmentSize), nil, time.Now())
	for _, c := range []struct {
		name  string
		sn    wire.SequenceNumber
		frags []uint32
		want  int // DATA_FRAGs before the HEARTBEAT, or -1 for none
	}{
		{"missing fragments", 1, []uint32{2, 7}, 2},
		{"fragments the sample does not have", 1, []uint32{11, 12}, -1},
	} {
		t.Run(c.name, func(t *testing.T) {
			set := wire.FragmentNumberSet{Base: c.frags[0]}
			for _, f := range c.frags {
				set.Add(f)
			}
			subs := withoutTS(w.onNackFrag(peer, &wire.NackFrag{WriterSN: c.sn, State: set, Count: 1}))
			if c.want < 0 {
				if len(subs) != 0 {
					t.Fatalf("answered %+v", subs)
				}
				return
			}
			if len(subs) != c.want+2 {
				t.Fatalf("answered %d submessages, want %d fragments, a HEARTBEAT_FRAG and a heartbeat", len(subs), c.want)
			}
			if hf, ok := subs[c.want].(*wire.HeartbeatFrag); !ok || hf.WriterSN != c.sn || hf.LastFragment != 10 {
				t.Fatalf("submessage %d is %+v, want a HEARTBEAT_FRAG of sample %d, all 10 fragments there", c.want, subs[c.want], c.sn)
			}
			for i, f := range c.frags {
				if df, ok := subs[i].(*wire.DataFrag); !ok || df.FragmentStart != f {
					t.Fatalf("submessage %d is %+v, want fragment %d", i, subs[i], f)
				}
			}
			if hb, ok := subs[c.want+1].(*wire.Heartbeat); !ok || hb.Last != c.sn || hb.Final {
				t.Fatalf("last submessage %+v, want a HEARTBEAT up to %d asking for an answer", subs[c.want+1], c.sn)
			}
		})
	}
}

// TestPreemptiveAckNackGetsAHeartbeat: a reader that has just matched our
// writer sends an empty, non-final ACKNACK (base 1 from Cyclone, base 0
// from Fast DDS); the writer answers the first with a heartbeat saying
// what it has, even nothing, instead of leaving it to the next period (a
// transient-local Cyclone late joiner waited 0.5 s more for it; Cyclone
// lost a first large sample when its first heartbeat already announced
// it), and the second with nothing.
func TestPreemptiveAckNackGetsAHeartbeat(t *testing.T) {
	for _, c := range []struct {
		name   string
		base   wire.SequenceNumber
		writes int
		last   wire.SequenceNumber // the heartbeat's
	}{
		{"Fast DDS's, changes held", 0, 2, 2},
		{"Cyclone's, changes held", 1, 2, 2},
		{"nothing written", 1, 0, 0},
		{"everything acknowledged", 3, 2, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			peer := wire.GUID{Prefix: wire.GUIDPrefix{9}, Entity: 0x104}
			w := &statefulWriter{id: 0x103, readerID: wire.EntityIDUnknown, next: 1, readers: map[wire.GUID]*readerProxy{}, keepLast: 4, durable: true}
			for range c.writes {
				w.write(wire.GUID{}, []byte("x"), nil, time.Now())
			}
			w.match(peer)
			for count := int32(1); count <= 2; count++ {
				subs := w.onAckNack(peer, &wire.AckNack{State: wire.NewSequenceNumberSet(c.base), Count: count})
				if count == 2 {
					if len(subs) != 0 {
						t.Fatalf("the second ACKNACK was answered with %+v", subs)
					}
					continue
				}
				if len(subs) != 1 {
					t.Fatalf("the first ACKNACK was answered with %+v, want a heartbeat", subs)
				}
				if hb, ok := subs[0].(*wire.Heartbeat); !ok || hb.Last != c.last || hb.Final {
					t.Fatalf("the first ACKNACK was answered with %+v, want a heartbeat up to %d", subs, c.last)
				}
			}
		})
	}
}

// TestKeepAllWriterWaitsForItsReadersInsteadOfDropping: a reliable
// keep-all writer whose reader stops acknowledging sends at most its
// window (256 KiB) ahead; the next Write waits MaxBlockingTime and fails
// with ErrBlocked, having sent nothing; once the reader hears again, a
// WriteContext goes through and the reader gets every sample, in order.
func TestKeepAllWriterWaitsForItsReadersInsteadOfDropping(t *testing.T) {
	netns.Require(t)
	var deaf atomic.Bool
	w, r := matchedPair(t, Config{Domain: 23}, Config{Domain: 23, drop: deaf.Load})
	sample := func(i int) []byte {
		b := make([]byte, 64<<10)
		b[1], b[4] = 1, byte(i)
		return b
	}
	deaf.Store(true)
	for i := range writeWindow / (64 << 10) {
		if err := w.Write(sample(i), nil); err != nil {
			t.Fatalf("sample %d within the window: %v", i, err)
		}
	}
	start := time.Now()
	if err := w.Write(sample(99), nil); !errors.Is(err, ErrBlocked) {
		t.Fatalf("a write past the window of a deaf reader: %v, want ErrBlocked", err)
	}
	if d := time.Since(start); d < MaxBlockingTime {
		t.Fatalf("gave up after %v, before MaxBlockingTime", d)
	}
	deaf.Store(false)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	n := writeWindow / (64 << 10)
	if err := w.WriteContext(ctx, sample(n), nil); err != nil {
		t.Fatalf("after the reader heard again: %v", err)
	}
	for i, s := range takeN(t, r, n+1) {
		if s.Payload[4] != byte(i) {
			t.Fatalf("sample %d arrived as %d", i, s.Payload[4])
		}
	}
}

// withoutTS drops the INFO_TS submessages (each change's source time).
func withoutTS(subs []wire.Submessage) []wire.Submessage {
	var out []wire.Submessage
	for _, s := range subs {
		if _, ts := s.(*wire.InfoTS); !ts {
			out = append(out, s)
		}
	}
	return out
}

// TestSamplesCarryTheirSourceTime: our writer sends an INFO_TS with every
// sample, in every datagram of a fragmented one, and our reader exposes
// it as Sample.SourceTime: the time of the Write, small and large.
func TestSamplesCarryTheirSourceTime(t *testing.T) {
	netns.Require(t)
	w, r := matchedPair(t, Config{Domain: 24}, Config{Domain: 24})
	for _, size := range []int{100, 100_000} {
		before := time.Now()
		b := make([]byte, size)
		b[1] = 1
		if err := w.Write(b, nil); err != nil {
			t.Fatal(err)
		}
		after := time.Now()
		s := takeN(t, r, 1)[0]
		// INFO_TS counts in 1/2^32 s: allow a nanosecond of rounding.
		if s.SourceTime.Before(before.Add(-time.Nanosecond)) || s.SourceTime.After(after) {
			t.Fatalf("%d octets: source time %v, written between %v and %v", size, s.SourceTime, before, after)
		}
	}
}

// TestLostLastSampleIsRepairedBeforeThePeriodicHeartbeat: the only sample
// of a reliable writer is lost (the reader hears nothing while it is
// sent, its piggybacked heartbeat included); the writer's heartbeat 10 ms
// after the write brings it, well before the 500 ms periodic one.
func TestLostLastSampleIsRepairedBeforeThePeriodicHeartbeat(t *testing.T) {
	netns.Require(t)
	var deaf atomic.Bool
	w, r := matchedPair(t, Config{Domain: 25}, Config{Domain: 25, drop: deaf.Load})
	if err := w.Write([]byte{0, 1, 0, 0, 1}, nil); err != nil {
		t.Fatal(err)
	}
	takeN(t, r, 1) // both sides know each other
	deaf.Store(true)
	start := time.Now()
	if err := w.Write([]byte{0, 1, 0, 0, 2}, nil); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Millisecond)
	deaf.Store(false)
	if s := takeN(t, r, 1)[0]; s.Payload[4] != 2 {
		t.Fatalf("took %v", s.Payload)
	}
	if d := time.Since(start); d > heartbeatPeriod/2 {
		t.Fatalf("the lost sample came %v after its write, want well under the %v heartbeat", d, heartbeatPeriod)
	}
}

// TestALateJoinerGetsTheHistoryAddressedToIt: a transient-local writer
// sends its history to the reader that matched, not to every reader of
// that reader's participant, which have it already.
func TestALateJoinerGetsTheHistoryAddressedToIt(t *testing.T) {
	w := &statefulWriter{id: 0x103, readerID: wire.EntityIDUnknown, next: 1, readers: map[wire.GUID]*readerProxy{}, keepLast: 2, durable: true}
	for _, p := range []string{"a", "b", "c"} {
		w.write(wire.GUID{}, bytes.Repeat([]byte(p), 2*maxData), nil, time.Now())
	}
	late := wire.GUID{Prefix: wire.GUIDPrefix{9}, Entity: 0x204}
	frags := 0
	for _, s := range w.match(late) {
		if df, ok := s.(*wire.DataFrag); ok {
			frags++
			if df.ReaderID != late.Entity {
				t.Fatalf("sample %d of the history went to reader %v, want %v", df.WriterSN, df.ReaderID, late.Entity)
			}
		}
	}
	if frags == 0 {
		t.Fatal("no history sent")
	}
}

// lagging matches w with a reliable reader that has answered a heartbeat
// and acknowledged nothing, so that w's history keeps what it writes.
func lagging(w *statefulWriter) {
	g := wire.GUID{Prefix: wire.GUIDPrefix{9}, Entity: 0x104}
	w.match(g)
	w.readers[g].synced = true
}

// TestHeartbeatsNeverAnnounceASampleStillBeingSent: while a Write sends a
// change's datagrams, heartbeats from elsewhere (periodic, repairs)
// announce only the changes before it, so none overtakes it on the wire.
func TestHeartbeatsNeverAnnounceASampleStillBeingSent(t *testing.T) {
	w := &statefulWriter{id: 0x103, readerID: wire.EntityIDUnknown, next: 1, readers: map[wire.GUID]*readerProxy{}, keepLast: 4}
	lagging(w)
	w.write(wire.GUID{}, []byte("a"), nil, time.Now())
	w.write(wire.GUID{}, []byte("b"), nil, time.Now())
	w.inFlight = []wire.SequenceNumber{2}
	if hb := w.heartbeat(false); hb.Last != 1 {
		t.Fatalf("heartbeat up to %d while 2 is being sent, want 1", hb.Last)
	}
	w.inFlight = nil
	if hb := w.heartbeat(false); hb.Last != 2 {
		t.Fatalf("heartbeat up to %d once 2 is out, want 2", hb.Last)
	}
}

// TestHeartbeatsStayWellFormedWhenTheHistoryPassedASampleBeingSent: a
// change still in a batch being sent that the history let go of (the
// writer went on past its keep-last depth) neither holds Last back nor
// makes it fall below First-1, which CycloneDDS logged as "malformed
// packet received from vendor 1.171" and dropped.
func TestHeartbeatsStayWellFormedWhenTheHistoryPassedASampleBeingSent(t *testing.T) {
	w := &statefulWriter{id: 0x103, readerID: wire.EntityIDUnknown, next: 1, readers: map[wire.GUID]*readerProxy{}, keepLast: 2}
	lagging(w)
	w.inFlight = []wire.SequenceNumber{1}
	for _, p := range []string{"a", "b", "c", "d"} {
		w.write(wire.GUID{}, []byte(p), nil, time.Now())
	}
	hb := w.heartbeat(false)
	if hb.First != 3 || hb.Last != 4 {
		t.Fatalf("heartbeat %d..%d with 1 still being sent and 3..4 held, want 3..4", hb.First, hb.Last)
	}
	w.inFlight = []wire.SequenceNumber{1, 4}
	if hb := w.heartbeat(false); hb.Last != 3 || hb.Last < hb.First-1 {
		t.Fatalf("heartbeat %d..%d with 4 being sent, want 3..3", hb.First, hb.Last)
	}
}

// TestVolatileWriterNeverSendsALateReaderWhatCameBeforeIt: a reader that
// matches a volatile writer after samples were written, and asks for
// them (a heartbeat announced them), gets a GAP, never the samples: a
// restarted service server must never receive an old request again.
func TestVolatileWriterNeverSendsALateReaderWhatCameBeforeIt(t *testing.T) {
	w := &statefulWriter{id: 0x103, readerID: wire.EntityIDUnknown, next: 1, readers: map[wire.GUID]*readerProxy{}, keepLast: 10}
	for _, p := range []string{"old1", "old2"} {
		w.write(wire.GUID{}, []byte(p), nil, time.Now())
	}
	late := wire.GUID{Prefix: wire.GUIDPrefix{9}, Entity: 0x104}
	w.match(late)
	w.write(wire.GUID{}, []byte("new"), nil, time.Now())
	nack := wire.NewSequenceNumberSet(1)
	for sn := wire.SequenceNumber(1); sn <= 3; sn++ {
		nack.Add(sn)
	}
	var sent []string
	gapped := false
	for _, s := range w.onAckNack(late, &wire.AckNack{State: nack, Count: 1}) {
		switch s := s.(type) {
		case *wire.Data:
			if s.ReaderID == late.Entity { // a repair, to it alone
				sent = append(sent, string(s.Payload))
			}
		case *wire.Gap:
			// Addressed to it alone: another reader of its participant,
			// matched before, may still lack 1 and 2.
			gapped = s.Start == 1 && s.ReaderID == late.Entity
		}
	}
	if !slices.Equal(sent, []string{"new"}) || !gapped {
		t.Fatalf("a late reader asking for 1..3 got %q (gap from 1, to it: %v), want only \"new\" and a gap to it", sent, gapped)
	}
}

// firstHeartbeatReader is a reliable volatile reader as CycloneDDS is to
// a writer of another vendor (its trace, and ddsi_receive.c's
// handle_Heartbeat): it keeps data that come before any heartbeat, takes
// the first heartbeat it hears as the start of its stream and skips every
// change up to its Last that it lacks; until then its ACKNACKs are
// preemptive (base 1, nothing asked, not final, count 0).
type firstHeartbeatReader struct {
	have, skipped map[wire.SequenceNumber]bool
	synced        bool
	next          wire.SequenceNumber // next to take
	last          wire.SequenceNumber // highest announced
	count         int32
	took          []wire.SequenceNumber
}

func newFirstHeartbeatReader() *firstHeartbeatReader {
	return &firstHeartbeatReader{have: map[wire.SequenceNumber]bool{}, skipped: map[wire.SequenceNumber]bool{}, next: 1}
}

// receive takes a datagram's submessages and returns its ACKNACK, if any.
func (r *firstHeartbeatReader) receive(subs []wire.Submessage) *wire.AckNack {
	var ack *wire.AckNack
	for _, s := range subs {
		switch s := s.(type) {
		case *wire.Data:
			r.have[s.WriterSN] = true
		case *wire.Heartbeat:
			if !r.synced {
				r.synced = true
				for sn := wire.SequenceNumber(1); sn <= s.Last; sn++ {
					r.skipped[sn] = !r.have[sn]
				}
			}
			for sn := wire.SequenceNumber(1); sn < s.First; sn++ {
				r.skipped[sn] = r.skipped[sn] || !r.have[sn]
			}
			r.last = max(r.last, s.Last)
			ack = r.ackNack(s.Final)
		}
	}
	if r.synced {
		r.take()
	}
	return ack
}

// ackNack answers a heartbeat: what it misses up to the last announced.
func (r *firstHeartbeatReader) ackNack(final bool) *wire.AckNack {
	r.take()
	state := wire.NewSequenceNumberSet(r.next)
	for sn := r.next; sn <= r.last; sn++ {
		if !r.have[sn] && !r.skipped[sn] {
			state.Add(sn)
		}
	}
	if final && state.NumBits == 0 {
		return nil
	}
	r.count++
	return &wire.AckNack{State: state, Count: r.count, Final: state.NumBits == 0}
}

// take takes what is in order, passing what it skipped.
func (r *firstHeartbeatReader) take() {
	for r.have[r.next] || r.skipped[r.next] {
		if r.have[r.next] {
			r.took = append(r.took, r.next)
		}
		r.next++
	}
}

// TestFirstHeartbeatAfterALostMatchHeartbeatSkipsNothing: the heartbeat
// of the match and the reader's preemptive ACKNACK are lost, so the
// first heartbeat a CycloneDDS-like reader hears comes with a later
// write, after the datagram of the first sample was lost; it still gets
// every sample, in order, once (TestReliableSamplesSurviveALossyRelay
// lost one of 150 into CycloneDDS now and then).
func TestFirstHeartbeatAfterALostMatchHeartbeatSkipsNothing(t *testing.T) {
	for _, c := range []struct {
		name string
		lost []int // writes whose datagram is lost (0 is the first)
	}{
		{"first write lost", []int{0}},
		{"first two lost", []int{0, 1}},
		{"a middle one lost", []int{2}},
		{"none lost", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			peer := wire.GUID{Prefix: wire.GUIDPrefix{9}, Entity: 0x104}
			w := &statefulWriter{id: 0x103, readerID: wire.EntityIDUnknown, next: 1, readers: map[wire.GUID]*readerProxy{}, keepLast: 100}
			w.match(peer) // its heartbeat is lost
			r := newFirstHeartbeatReader()
			if subs := w.onAckNack(peer, &wire.AckNack{State: wire.NewSequenceNumberSet(1), Count: 0}); len(subs) == 0 {
				t.Fatal("the preemptive ACKNACK got no heartbeat")
			} // and that heartbeat is lost too
			const n = 6
			var acks []*wire.AckNack
			for i := range n {
				subs := w.write(wire.GUID{}, []byte{byte(i)}, nil, time.Now())
				if slices.Contains(c.lost, i) {
					continue
				}
				if a := r.receive(subs); a != nil {
					acks = append(acks, a)
				}
			}
			// Heartbeats and repairs until the reader has all, as the
			// writer's timer sends them.
			for range 10 {
				for _, a := range acks {
					if subs := w.onAckNack(peer, a); len(subs) > 0 {
						if b := r.receive(subs); b != nil {
							acks = append(acks, b)
						}
					}
				}
				acks = nil
				if a := r.receive([]wire.Submessage{w.heartbeat(false)}); a != nil {
					acks = append(acks, a)
				}
			}
			want := make([]wire.SequenceNumber, n)
			for i := range want {
				want[i] = wire.SequenceNumber(i + 1)
			}
			if !slices.Equal(r.took, want) {
				t.Fatalf("the reader took %v, want %v", r.took, want)
			}
		})
	}
}

// TestWritesAskForAcknowledgmentsNowAndThen: a user writer's write
// heartbeats are Final but when askEvery has passed since the last that
// asked, or a quarter window (in octets, and for a blocking writer in
// samples too) was written since, so that a sample answered by a round
// trip costs no ACKNACK; an SEDP announcer's always ask; a heartbeat that
// asks from elsewhere (repair, blocked) starts the count again.
func TestWritesAskForAcknowledgmentsNowAndThen(t *testing.T) {
	user := func(keepLast int, blocking bool) *statefulWriter {
		return &statefulWriter{id: 0x103, readerID: wire.EntityIDUnknown, next: 1, readers: map[wire.GUID]*readerProxy{},
			keepLast: keepLast, blocking: blocking, quietWrites: true}
	}
	tests := []struct {
		name   string
		w      *statefulWriter
		size   int
		gap    time.Duration // between writes
		writes int
		asking []int // the writes (from 1) whose heartbeat asks
		repair int   // a heartbeat that asks goes after this write (0: none)
	}{
		{"announcer: every write", newBuiltinWriter(0x3c2, 0x3c7), 200, 0, 3, []int{1, 2, 3}, 0},
		{"lone writes: each", user(10, false), 200, 2 * askEvery, 3, []int{1, 2, 3}, 0},
		{"a 1 kHz stream: every askEvery", user(10, false), 200, time.Millisecond, 25, []int{1, 11, 21}, 0},
		{"keep-last 1 KB at once: a quarter window of octets", user(1, false), 1 << 10, 0, 600, []int{1, 257, 513}, 0},
		{"keep-all 100 B at once: a quarter of the samples", user(maxKeepAll, true), 100, 0, 600, []int{1, 257, 513}, 0},
		{"keep-all 64 KB at once: every fourth", user(maxKeepAll, true), 64 << 10, 0, 9, []int{1, 5, 9}, 0},
		{"a repair heartbeat starts again", user(1, false), 1 << 10, 0, 600, []int{1, 356}, 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t0 := time.Now()
			var asking []int
			for i := 1; i <= tt.writes; i++ {
				ask := tt.w.asks(tt.size, t0.Add(time.Duration(i)*tt.gap))
				if ask {
					asking = append(asking, i)
				}
				tt.w.heartbeatThrough(!ask, 0) // as write does
				if i == tt.repair {
					tt.w.heartbeat(false)
				}
			}
			if !slices.Equal(asking, tt.asking) {
				t.Fatalf("writes whose heartbeat asks: %v, want %v", asking, tt.asking)
			}
		})
	}
}

// TestAWriteHeartbeatIsFinalWithinAskEvery: the heartbeat a write sends
// asks for acknowledgments when the writer last asked long ago and is
// Final right after.
func TestAWriteHeartbeatIsFinalWithinAskEvery(t *testing.T) {
	w := &statefulWriter{id: 0x103, readerID: wire.EntityIDUnknown, next: 1, readers: map[wire.GUID]*readerProxy{},
		keepLast: 1, quietWrites: true}
	var finals []bool
	for i := range 2 {
		for _, s := range w.write(wire.GUID{Entity: wire.EntityID(i + 1)}, make([]byte, 100), nil, time.Now()) {
			if h, ok := s.(*wire.Heartbeat); ok {
				finals = append(finals, h.Final)
			}
		}
	}
	if !slices.Equal(finals, []bool{false, true}) {
		t.Fatalf("write heartbeats Final: %v, want [false true]", finals)
	}
}

// TestWritesAreAcknowledgedSoonWhileAnotherWriterStreams: with a second
// writer of the participant streaming at 200 Hz (its write heartbeats
// mostly Final), a lone sample of the first is acknowledged at once (its
// heartbeat asks), and the stream's last sample soon after it stops
// (the repair heartbeats back off only while no reader acknowledges
// more). Both took up to the 500 ms of the backed-off repair heartbeat
// when a write asked only once a quarter window.
func TestWritesAreAcknowledgedSoonWhileAnotherWriterStreams(t *testing.T) {
	netns.Require(t)
	w, r := matchedPair(t, Config{Domain: 26}, Config{Domain: 26})
	topic := EndpointData{Topic: "rt/stream", Type: "std_msgs::msg::dds_::String_", QoS: QoS{Reliability: Reliable, History: KeepLast, Depth: 10}}
	sw, err := w.p.NewWriter(topic)
	if err != nil {
		t.Fatal(err)
	}
	sr, err := r.p.NewReader(topic)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	if err := sw.WaitReady(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if err := w.WaitReady(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if err := w.Write([]byte{0, 1, 0, 0, 1}, nil); err != nil { // w has written before
		t.Fatal(err)
	}
	stop := make(chan struct{})
	streamed := make(chan wire.SequenceNumber, 1)
	go func() {
		var last wire.SequenceNumber
		defer func() { streamed <- last }()
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				sn, err := sw.WriteSN([]byte{0, 1, 0, 0, 1}, nil)
				if err != nil {
					return
				}
				last = sn
			}
		}
	}()
	time.Sleep(1500 * time.Millisecond) // the repair heartbeats back off as far as they would
	acked := func(w *Writer, sn wire.SequenceNumber) time.Duration {
		start := time.Now()
		for !w.AcknowledgedBy(r.GUID(), sn) && !w.AcknowledgedBy(sr.GUID(), sn) {
			if time.Since(start) > 5*time.Second {
				t.Fatalf("sample %d never acknowledged", sn)
			}
			time.Sleep(200 * time.Microsecond)
		}
		return time.Since(start)
	}
	sn, err := w.WriteSN([]byte{0, 1, 0, 0, 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := acked(w, sn); d > heartbeatPeriod/5 {
		t.Errorf("a lone sample was acknowledged %v after its write while another writer streamed, want at once", d)
	}
	close(stop)
	if d := acked(sw, <-streamed); d > heartbeatPeriod/5 {
		t.Errorf("a stream's last sample was acknowledged %v after it stopped, want within a few repair heartbeats", d)
	}
}

// TestWriterDestinationsFollowTheGraph: a writer's destinations are made
// once per change of the participant's view: the same while nothing
// changes, made again when a matched reader's participant announces other
// locators, and empty once the reader is gone.
func TestWriterDestinationsFollowTheGraph(t *testing.T) {
	a := newParticipant(t, Config{Domain: 30})
	topic := EndpointData{Topic: "rt/dests", Type: "T", QoS: QoS{Reliability: Reliable}}
	w, err := a.NewWriter(topic)
	if err != nil {
		t.Fatal(err)
	}
	remote := fakeParticipant(1, time.Minute, 30)
	at := func(port uint16) []wire.Locator { return []wire.Locator{wire.UDPv4Locator(loopback, port)} }
	remote.MetatrafficUnicast, remote.DefaultUnicast = at(40000), at(40001)
	a.learnVia(remote, wire.GUIDPrefix{})
	reader := topic
	reader.GUID = wire.GUID{Prefix: remote.Prefix, Entity: 0x1004}
	dests := func() []string {
		var out []string
		for _, d := range w.destinations() {
			out = append(out, fmt.Sprint(d.dst == remote.Prefix, d.to))
		}
		return out
	}
	a.mu.Lock()
	a.sedp.remote[reader.GUID] = reader
	a.matchWriter(w, reader)
	first, firstArray := dests(), &w.destinations()[0]
	again, againArray := dests(), &w.destinations()[0]
	a.mu.Unlock()
	if want := []string{"true [127.0.0.1:40001]"}; !slices.Equal(first, want) || !slices.Equal(again, want) {
		t.Fatalf("destinations %v then %v, want %v", first, again, want)
	}
	if firstArray != againArray {
		t.Fatal("destinations made again with nothing changed")
	}
	remote.DefaultUnicast = at(40003)
	a.learnVia(remote, wire.GUIDPrefix{})
	a.mu.Lock()
	moved := dests()
	a.unmatchReader(reader.GUID)
	gone := dests()
	a.mu.Unlock()
	if want := []string{"true [127.0.0.1:40003]"}; !slices.Equal(moved, want) {
		t.Fatalf("after the reader's participant moved: %v, want %v", moved, want)
	}
	if len(gone) != 0 {
		t.Fatalf("after the reader went: %v, want none", gone)
	}
}

// TestFragmentsGoTenToADataFrag: a large sample's fragments go in runs of
// up to fragmentsPerData consecutive ones per DATA_FRAG, as CycloneDDS
// sends them; repairs group what a NACK_FRAG asks the same way.
func TestFragmentsGoTenToADataFrag(t *testing.T) {
	tests := []struct {
		name  string
		frags []uint32 // nil: all
		total uint32
		qos   int // octets of inline QoS the sample carries
		want  []fragmentRun
	}{
		{"a 64 KB sample", nil, 49, 24, []fragmentRun{{1, 10}, {11, 10}, {21, 10}, {31, 10}, {41, 9}}},
		{"a repair of scattered fragments", []uint32{3, 4, 5, 9, 20, 21, 22}, 49, 24, []fragmentRun{{3, 3}, {9, 1}, {20, 3}}},
		{"numbers outside the sample left out", []uint32{0, 1, 2, 50}, 49, 24, []fragmentRun{{1, 2}}},
		{"a long run split", []uint32{5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, 49, 24, []fragmentRun{{5, 10}, {15, 2}}},
		{"a large inline QoS leaves room in the first", nil, 25, 5000, []fragmentRun{{1, 7}, {8, 10}, {18, 8}}},
		{"an inline QoS larger than a datagram: one fragment with it", nil, 12, 20000, []fragmentRun{{1, 1}, {2, 10}, {12, 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := pooledWriter(1)
			payload := make([]byte, int(tt.total-1)*fragmentSize+100)
			for i := range payload {
				payload[i] = byte(i / fragmentSize)
			}
			qos := wire.ParameterList{{ID: wire.PIDRelatedSampleIdentity, Value: make([]byte, tt.qos)}}
			w.write(wire.GUID{}, payload, qos, time.Now())
			var got []fragmentRun
			for _, s := range w.submessages(w.changes[0], tt.frags) {
				df, ok := s.(*wire.DataFrag)
				if !ok {
					continue
				}
				got = append(got, fragmentRun{df.FragmentStart, df.Fragments})
				off := int(df.FragmentStart-1) * fragmentSize
				if want := payload[off:min(off+int(df.Fragments)*fragmentSize, len(payload))]; !bytes.Equal(df.Payload, want) {
					t.Fatalf("fragments %d+%d carry %d octets, not the sample's %d at %d", df.FragmentStart, df.Fragments, len(df.Payload), len(want), off)
				}
				if (df.InlineQoS != nil) != (df.FragmentStart == 1) {
					t.Fatalf("fragments from %d: inline QoS %v (only the first fragment carries it)", df.FragmentStart, df.InlineQoS)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("DATA_FRAGs %v, want %v", got, tt.want)
			}
			// Each goes in one datagram of maxMessage, unless its QoS alone
			// is larger.
			sizes := map[uint32]int{}
			for _, s := range w.submessages(w.changes[0], tt.frags) {
				if df, ok := s.(*wire.DataFrag); ok {
					b, err := wire.AppendSubmessage(nil, df)
					if err != nil {
						t.Fatal(err)
					}
					sizes[df.FragmentStart] = len(b)
				}
			}
			for start, n := range sizes {
				if over := dataFragOverhead - 36 + n; over > maxMessage && (start != 1 || tt.qos < maxMessage) {
					t.Fatalf("DATA_FRAG from fragment %d makes a datagram of %d octets, over %d", start, over, maxMessage)
				}
			}
		})
	}
}
