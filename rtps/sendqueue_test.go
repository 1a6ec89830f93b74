package rtps

import (
	"bytes"
	"context"
	"fmt"
	"net/netip"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/actbridge/actbridge/rtps/wire"
)

// TestQueuedSamplesShareDatagramsWithinTheLimit: what writes queued is
// sent in as few datagrams as maxMessage allows, in order, each datagram
// opening with the INFO_TS of the sample it continues, and with one
// heartbeat for the lot instead of one per sample.
func TestQueuedSamplesShareDatagramsWithinTheLimit(t *testing.T) {
	rx, tx, tap := tappedPair(t, 44, []byte("sample"))
	to := []netip.AddrPort{netip.AddrPortFrom(rx.uc.Addr(), rx.uc.Port())}
	writer := wire.EntityID(0x00000103)
	const n = 40
	var batch []pendingSend
	for i := range n {
		payload := append([]byte{0, 1, 0, 0, 's', 'a', 'm', 'p', 'l', 'e', byte(i)}, make([]byte, 1000)...)
		batch = append(batch, pendingSend{out: []outgoing{{dst: rx.self.Prefix, to: to, subs: []wire.Submessage{
			&wire.InfoTS{Time: wire.TimeOf(time.Unix(int64(i), 0))},
			&wire.Data{ReaderID: wire.EntityIDUnknown, WriterID: writer, WriterSN: wire.SequenceNumber(i + 1), Payload: payload},
			&wire.Heartbeat{ReaderID: wire.EntityIDUnknown, WriterID: writer, First: 1, Last: wire.SequenceNumber(i + 1), Count: int32(i + 1)},
		}}}})
	}
	outs, _ := pack(batch, nil, nil)
	tx.sendBuffered(nil, outs)
	datagrams := tap.wait(func(got [][]byte) bool { // the last sample is in
		return len(got) > 0 && bytes.Contains(got[len(got)-1], []byte{'s', 'a', 'm', 'p', 'l', 'e', n - 1})
	})
	next, heartbeats := 0, 0
	for i, m := range messagesOf(t, datagrams) {
		var ts *wire.InfoTS
		for j, s := range m.Submessages[1:] { // after the INFO_DST
			switch s := s.(type) {
			case *wire.InfoTS:
				ts = s
			case *wire.Data:
				if j == 0 || ts == nil || ts.Time != wire.TimeOf(time.Unix(int64(next), 0)) {
					t.Errorf("datagram %d: sample %d without its INFO_TS before it", i, next)
				}
				if s.Payload[10] != byte(next) {
					t.Fatalf("datagram %d: sample %d where %d was next", i, s.Payload[10], next)
				}
				next++
			case *wire.Heartbeat:
				heartbeats++
				if s.Last != n {
					t.Errorf("heartbeat announces up to %d, want %d", s.Last, n)
				}
			}
		}
	}
	if next != n {
		t.Fatalf("%d of %d samples arrived", next, n)
	}
	if want := (n*1100)/maxMessage + 1; len(datagrams) > want {
		t.Errorf("%d samples of 1 KB in %d datagrams, want at most %d", n, len(datagrams), want)
	}
	if heartbeats != 1 {
		t.Errorf("%d heartbeats for %d queued samples, want 1", heartbeats, n)
	}
}

// datagramTap keeps the datagrams a participant received that hold a
// marker.
type datagramTap struct {
	mu  sync.Mutex
	got [][]byte
}

// tappedPair makes a receiving participant whose datagrams holding marker
// are kept, and a sending one, on domain.
func tappedPair(t *testing.T, domain int, marker []byte) (rx, tx *Participant, tap *datagramTap) {
	tap = &datagramTap{}
	rx = newParticipant(t, Config{Domain: domain, tap: func(b []byte) {
		if bytes.Contains(b, marker) {
			tap.mu.Lock()
			defer tap.mu.Unlock()
			tap.got = append(tap.got, bytes.Clone(b))
		}
	}})
	return rx, newParticipant(t, Config{Domain: domain}), tap
}

// wait returns the datagrams kept once done says they are all in, or
// what came within 5 s.
func (d *datagramTap) wait(done func([][]byte) bool) [][]byte {
	deadline := time.Now().Add(5 * time.Second)
	for {
		d.mu.Lock()
		got := slices.Clone(d.got)
		d.mu.Unlock()
		if done(got) || time.Now().After(deadline) {
			return got
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// messagesOf parses datagrams sent, each at most maxMessage octets.
func messagesOf(t *testing.T, datagrams [][]byte) []wire.Message {
	t.Helper()
	out := make([]wire.Message, len(datagrams))
	for i, b := range datagrams {
		if len(b) > maxMessage {
			t.Errorf("datagram %d: %d octets, over %d", i, len(b), maxMessage)
		}
		if err := out[i].Unmarshal(b); err != nil {
			t.Fatalf("datagram %d: %v", i, err)
		}
	}
	return out
}

// TestFragmentsOfQueuedSamplesFillDatagrams: the DATA_FRAGs of large
// samples written back to back fill datagrams up to maxMessage and no
// further, in order, each datagram after the INFO_TS of the sample it
// carries: 31 fragments a sample go as 10, 10, and 10 with the last one.
func TestFragmentsOfQueuedSamplesFillDatagrams(t *testing.T) {
	rx, tx, tap := tappedPair(t, 45, []byte{0x00, 0x00, 0x03, 0x03}) // the writer's id
	to := []netip.AddrPort{netip.AddrPortFrom(rx.uc.Addr(), rx.uc.Port())}
	w := pooledWriter(maxKeepAll)
	w.id = 0x00000303
	w.match(wire.GUID{Prefix: rx.self.Prefix, Entity: 0x304})
	const n, size, frags, wantDatagrams = 3, 40 << 10, 31, 9
	var batch []pendingSend
	for i := range n {
		payload := append([]byte{0, 1, 0, 0}, bytes.Repeat([]byte{byte(i)}, size)...)
		subs := w.write(wire.GUID{}, payload, nil, time.Unix(int64(i+1), 0))
		batch = append(batch, pendingSend{out: []outgoing{{dst: rx.self.Prefix, to: to, subs: subs}}})
	}
	outs, _ := pack(batch, nil, nil)
	// The buffer datagrams are built in never held more than one: a
	// DATA_FRAG appended past maxMessage, then cut and appended again to
	// the next datagram, was its payload copied twice.
	if buf := tx.sendBuffered(nil, outs); cap(buf) > maxMessage+maxMessage/2 {
		t.Errorf("the datagram buffer grew to %d octets, more than a datagram of %d", cap(buf), maxMessage)
	}
	ours := tap.wait(func(got [][]byte) bool { return len(got) >= wantDatagrams })
	if len(ours) != wantDatagrams {
		t.Fatalf("%d datagrams, want %d", len(ours), wantDatagrams)
	}
	sn, next := wire.SequenceNumber(1), uint32(1)
	for i, m := range messagesOf(t, ours) {
		var ts *wire.InfoTS
		for _, s := range m.Submessages {
			switch s := s.(type) {
			case *wire.InfoTS:
				ts = s
			case *wire.DataFrag:
				if next > frags {
					sn, next = sn+1, 1
				}
				if s.WriterSN != sn || s.FragmentStart != next {
					t.Fatalf("datagram %d: sample %d from fragment %d, want %d from %d", i, s.WriterSN, s.FragmentStart, sn, next)
				}
				if ts == nil || ts.Time != wire.TimeOf(time.Unix(int64(sn), 0)) {
					t.Errorf("datagram %d: sample %d without its INFO_TS before it", i, sn)
				}
				next += uint32(s.Fragments)
			}
		}
	}
	if sn != n || next != frags+1 {
		t.Fatalf("ended with sample %d at fragment %d, want %d at %d", sn, next, n, frags+1)
	}
}

// TestPackKeepsAHeartbeatPerSpacing: a writer's heartbeats to a reader
// thin out to one per heartbeatSpacing octets, the last always kept, and
// another writer's or reader's are left alone.
func TestPackKeepsAHeartbeatPerSpacing(t *testing.T) {
	w1, w2 := wire.EntityID(0x00000103), wire.EntityID(0x00000203)
	data := func(size int) wire.Submessage { return &wire.Data{WriterID: w1, Payload: make([]byte, size)} }
	hb := func(w wire.EntityID, count int32) wire.Submessage { return &wire.Heartbeat{WriterID: w, Count: count} }
	final := func(w wire.EntityID, count int32) wire.Submessage {
		return &wire.Heartbeat{WriterID: w, Count: count, Final: true}
	}
	tests := []struct {
		name string
		subs []wire.Submessage
		kept []int32 // the counts of the heartbeats left
		asks []bool  // whether each asks for acknowledgments (not Final)
	}{
		{"small samples: the last", []wire.Submessage{data(1000), hb(w1, 1), data(1000), hb(w1, 2), data(1000), hb(w1, 3)}, []int32{3}, []bool{true}},
		{"a spacing apart: both", []wire.Submessage{data(heartbeatSpacing), hb(w1, 1), data(heartbeatSpacing), hb(w1, 2)}, []int32{1, 2}, []bool{true, true}},
		{"other writers apart", []wire.Submessage{data(100), hb(w1, 1), hb(w2, 7), data(100), hb(w1, 2)}, []int32{7, 2}, []bool{true, true}},
		{"a dropped ask makes the kept one ask", []wire.Submessage{data(100), hb(w1, 1), data(100), final(w1, 2), data(100), final(w1, 3)}, []int32{3}, []bool{true}},
		{"finals stay final", []wire.Submessage{data(100), final(w1, 1), data(100), final(w1, 2)}, []int32{2}, []bool{false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			orig := slices.Clone(tt.subs)
			var finals []bool
			for _, s := range orig {
				if h, ok := s.(*wire.Heartbeat); ok {
					finals = append(finals, h.Final)
				}
			}
			var kept []int32
			var asks []bool
			for _, s := range thinHeartbeats(tt.subs) {
				if h, ok := s.(*wire.Heartbeat); ok {
					kept = append(kept, h.Count)
					asks = append(asks, !h.Final)
				}
			}
			if !slices.Equal(kept, tt.kept) || !slices.Equal(asks, tt.asks) {
				t.Fatalf("kept heartbeats %v asking %v, want %v asking %v", kept, asks, tt.kept, tt.asks)
			}
			var after []bool
			for _, s := range orig {
				if h, ok := s.(*wire.Heartbeat); ok {
					after = append(after, h.Final)
				}
			}
			if !slices.Equal(after, finals) {
				t.Fatal("a heartbeat shared with other destinations was changed in place")
			}
		})
	}
}

// TestPackJoinsRunsPerDestination: consecutive writes to the same reader
// join into one outgoing, another destination starts a new one, every
// submessage stays in its run in order, and the scratch reused for a
// later, smaller batch holds only that batch.
func TestPackJoinsRunsPerDestination(t *testing.T) {
	a, b := wire.GUIDPrefix{1}, wire.GUIDPrefix{2}
	toA := []netip.AddrPort{netip.MustParseAddrPort("127.0.0.1:7411")}
	toB := []netip.AddrPort{netip.MustParseAddrPort("127.0.0.1:7413")}
	sample := func(sn int) []wire.Submessage {
		return []wire.Submessage{&wire.Data{WriterID: 0x103, WriterSN: wire.SequenceNumber(sn)}}
	}
	write := func(sn int, dsts ...wire.GUIDPrefix) pendingSend {
		var q pendingSend
		for _, d := range dsts {
			to := toA
			if d == b {
				to = toB
			}
			q.out = append(q.out, outgoing{dst: d, to: to, subs: sample(sn)})
		}
		return q
	}
	shape := func(outs []outgoing) []string {
		var out []string
		for _, o := range outs {
			s := fmt.Sprint(o.dst[0], ":")
			for _, m := range o.subs {
				s += fmt.Sprint(" ", m.(*wire.Data).WriterSN)
			}
			out = append(out, s)
		}
		return out
	}
	var outs []outgoing
	var subs []wire.Submessage
	batches := []struct {
		batch []pendingSend
		want  []string
	}{
		{[]pendingSend{write(1, a), write(2, a), write(3, b), write(4, b), write(5, a)}, []string{"1: 1 2", "2: 3 4", "1: 5"}},
		{[]pendingSend{write(6, a, b), write(7, a)}, []string{"1: 6", "2: 6", "1: 7"}},
		{[]pendingSend{write(8, b)}, []string{"2: 8"}},
	}
	for _, tt := range batches {
		outs, subs = pack(tt.batch, outs, subs)
		if got := shape(outs); !slices.Equal(got, tt.want) {
			t.Fatalf("packed %v, want %v", got, tt.want)
		}
	}
}

// TestALoneWriteIsSentAtOnce: a write that finds the queue idle sends on
// its own goroutine; one that comes while a send is under way is queued
// and goes with the sender's next datagram, never left behind, and its
// writer learns that it is out (heartbeats may announce it).
func TestALoneWriteIsSentAtOnce(t *testing.T) {
	tx := newSendQueue()
	if self, _ := tx.push(pendingSend{}, true); !self {
		t.Fatal("a write into an idle queue was queued, not sent at once")
	}
	sw := &statefulWriter{inFlight: []wire.SequenceNumber{7}}
	if self, _ := tx.push(pendingSend{sw: sw, sn: 7}, true); self {
		t.Fatal("a write during a send took the token too")
	}
	p := &Participant{tx: tx}
	p.drain()
	if len(sw.inFlight) != 0 || tx.sending || len(tx.queue) != 0 {
		t.Fatalf("after drain: in flight %v, sending %v, %d queued", sw.inFlight, tx.sending, len(tx.queue))
	}
}

// TestAFullQueueSaysSo: a write that leaves more than maxQueued octets
// queued is told to wait for room, and one below it is not.
func TestAFullQueueSaysSo(t *testing.T) {
	tx := newSendQueue()
	tx.sending = true // a batch is being sent
	sample := pendingSend{out: []outgoing{{subs: []wire.Submessage{&wire.Data{Payload: make([]byte, maxQueued/2-100)}}}}}
	for i, want := range []bool{false, false, true} {
		if _, full := tx.push(sample, false); full != want {
			t.Fatalf("push %d: full %v, want %v", i, full, want)
		}
	}
}

// TestHeartbeatsFromElsewhereQueueBehindTheSamples: a heartbeat a
// blocked or lagging writer sends while its samples are queued goes after
// them, never ahead: a reader ignores a heartbeat whose count is not
// above the last it saw, so one overtaking made the queued ones stale.
func TestHeartbeatsFromElsewhereQueueBehindTheSamples(t *testing.T) {
	p := &Participant{tx: newSendQueue()}
	p.tx.sending = true // a batch is being sent
	queuedHB := &wire.Heartbeat{Count: 5}
	p.tx.push(pendingSend{out: []outgoing{{subs: []wire.Submessage{queuedHB}}}}, false)
	later := &wire.Heartbeat{Count: 6}
	p.sendQueued(p.queueOrdered([]outgoing{{subs: []wire.Submessage{later}}}))
	if len(p.tx.queue) != 2 || p.tx.queue[1].out[0].subs[0] != later {
		t.Fatalf("the later heartbeat was not queued behind the earlier one: %d queued", len(p.tx.queue))
	}
}

// TestCloseSendsWhatWritesQueued: samples a streaming writer queued and
// returned for reach the reader although the participant closes right
// after the last Write.
func TestCloseSendsWhatWritesQueued(t *testing.T) {
	w, r := matchedPair(t, Config{Domain: 49}, Config{Domain: 49})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := w.WaitReady(ctx, 1); err != nil {
		t.Fatal(err)
	}
	const n = 300
	for i := range n {
		if err := w.Write(append([]byte{0, 1, 0, 0, byte(i), byte(i >> 8)}, make([]byte, 1000)...), nil); err != nil {
			t.Fatal(err)
		}
	}
	w.p.Close()
	for i, s := range takeN(t, r, n) {
		if int(s.Payload[4])|int(s.Payload[5])<<8 != i {
			t.Fatalf("sample %d carries %d", i, int(s.Payload[4])|int(s.Payload[5])<<8)
		}
	}
}
