package rtps

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/actbridge/actbridge/rtps/wire"
)

func TestWriteSNNumbersSamplesAsTheReaderSeesThemAndTellsWhichAreAcknowledgedAndHeard(t *testing.T) {
	w, r := matchedPair(t, Config{Domain: 41}, Config{Domain: 41})
	qos := wire.ParameterList{{ID: wire.PIDRelatedSampleIdentity, Value: make([]byte, 24)}}
	var sns []wire.SequenceNumber
	for i := range 3 {
		sn, err := w.WriteSN([]byte{0, 1, 0, 0, byte(i)}, qos)
		if err != nil {
			t.Fatal(err)
		}
		sns = append(sns, sn)
	}
	for i, s := range takeN(t, r, 3) {
		if s.SN != sns[i] || s.BigEndian || len(s.InlineQoS) != 1 {
			t.Fatalf("sample %d: SN %d BigEndian %v qos %v, WriteSN said %d", i, s.SN, s.BigEndian, s.InlineQoS, sns[i])
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := w.WaitAcknowledged(ctx); err != nil {
		t.Fatal(err)
	}
	if !w.Heard(r.GUID()) {
		t.Fatal("a reader that acknowledged samples is not heard")
	}
	if !w.AcknowledgedBy(r.GUID(), sns[2]) {
		t.Fatalf("reader %v acknowledged everything but AcknowledgedBy(%d) is false", r.GUID(), sns[2])
	}
	if w.AcknowledgedBy(r.GUID(), sns[2]+1) {
		t.Fatal("a sample never written counts as acknowledged")
	}
	if w.AcknowledgedBy(wire.GUID{Prefix: r.GUID().Prefix, Entity: 0x77}, sns[0]) {
		t.Fatal("a reader that is not matched counts as having acknowledged")
	}
}

func TestReaderIsHeardOnceItMatchedTheWriterBeforeAnySample(t *testing.T) {
	w, r := matchedPair(t, Config{Domain: 43}, Config{Domain: 43})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	// The reader's preemptive ACKNACK, sent when it learned the writer.
	if _, err := w.p.WaitParticipants(ctx, func([]ParticipantData) bool { return w.Heard(r.GUID()) }); err != nil {
		t.Fatalf("reader %v never heard: %v", r.GUID(), err)
	}
	if w.Heard(wire.GUID{Prefix: r.GUID().Prefix, Entity: 0x77}) {
		t.Fatal("an unmatched reader counts as heard")
	}
}

// heartbeatFrom reports whether datagram b holds a HEARTBEAT of writer w.
func heartbeatFrom(b []byte, w wire.EntityID) bool {
	var m wire.Message
	_ = m.Unmarshal(b) // what parsed before an error is enough
	for _, s := range m.Submessages {
		if h, ok := s.(*wire.Heartbeat); ok && h.WriterID == w {
			return true
		}
	}
	return false
}

// A reader that matched a writer whose other readers acknowledged all it
// has, and lost the one heartbeat the match sent (or got it before it was
// registered), is heartbeated again until it answers: before, the writer
// heartbeated only readers lacking samples, never heard it, and a service
// client waited for its restarted server for good. What the writer sent
// before the match still never reaches it.
func TestReaderThatLostItsFirstHeartbeatIsHeartbeatedUntilItAnswers(t *testing.T) {
	topic := EndpointData{Topic: "rq/restartedRequest", Type: "T", QoS: QoS{Reliability: Reliable, History: KeepLast, Depth: 10}}
	w, err := newParticipant(t, Config{Domain: 47}).NewWriter(topic)
	if err != nil {
		t.Fatal(err)
	}
	var deaf, lost atomic.Bool
	tap := func(b []byte) {
		if deaf.Load() && heartbeatFrom(b, w.GUID().Entity) {
			lost.Store(true)
		}
	}
	b := newParticipant(t, Config{Domain: 47, tap: tap, drop: deaf.Load})
	first, err := b.NewReader(topic)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := w.WaitReady(ctx, 1); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"old1", "old2", "old3"} {
		if err := w.Write([]byte(s), nil); err != nil {
			t.Fatal(err)
		}
	}
	takeN(t, first, 3)
	if err := w.WaitAcknowledged(ctx); err != nil {
		t.Fatal(err)
	}
	deaf.Store(true)
	late, err := b.NewReader(topic)
	if err != nil {
		t.Fatal(err)
	}
	for !lost.Load() { // the match's heartbeat came and was dropped
		if ctx.Err() != nil {
			t.Fatal("the writer never heartbeated the new reader")
		}
		time.Sleep(time.Millisecond)
	}
	deaf.Store(false)
	heardCtx, cancelHeard := context.WithTimeout(context.Background(), 4*heartbeatPeriod)
	defer cancelHeard()
	if _, err := w.p.WaitParticipants(heardCtx, func([]ParticipantData) bool { return w.Heard(late.GUID()) }); err != nil {
		t.Fatalf("the new reader was never heard: %v", err)
	}
	if err := w.Write([]byte("new"), nil); err != nil {
		t.Fatal(err)
	}
	if got := takeN(t, late, 1); string(got[0].Payload) != "new" {
		t.Fatalf("the new reader got %q first, want only what came after it matched", got[0].Payload)
	}
}

// takeNone fails when r delivers anything within a short wait.
func takeNone(t *testing.T, r *Reader, what string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if s, err := r.Take(ctx); err == nil {
		t.Fatalf("%s: got sn %d %v", what, s.SN, s.Payload)
	}
}

// waitHeard waits until w has heard from reader g.
func waitHeard(t *testing.T, w *Writer, g wire.GUID) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := w.p.WaitParticipants(ctx, func([]ParticipantData) bool { return w.Heard(g) }); err != nil {
		t.Fatalf("reader %v never heard: %v", g, err)
	}
}

// cutLink drops every datagram a participant receives while it is cut,
// and tells when a DATA or a GAP of writer w was among them, so a test
// knows a submessage sent during the cut was lost rather than not yet read.
type cutLink struct {
	cut       atomic.Bool
	w         atomic.Uint32 // the writer's entity id
	data, gap chan struct{}
}

func newCutLink() *cutLink {
	return &cutLink{data: make(chan struct{}, 1), gap: make(chan struct{}, 1)}
}

func (c *cutLink) tap(b []byte) {
	if !c.cut.Load() {
		return
	}
	var m wire.Message
	_ = m.Unmarshal(b)
	for _, s := range m.Submessages {
		ch := c.data
		switch s := s.(type) {
		case *wire.Data:
			if uint32(s.WriterID) != c.w.Load() {
				continue
			}
		case *wire.Gap:
			if uint32(s.WriterID) != c.w.Load() {
				continue
			}
			ch = c.gap
		default:
			continue
		}
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

func (c *cutLink) drop() bool { return c.cut.Load() }

// lost waits until ch says its submessage was dropped.
func lost(t *testing.T, ch chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatalf("no %s reached the cut participant", what)
	}
}

// A sample written while its reader was cut off and then withdrawn is
// never repaired to it once the link heals: the reader gets what comes
// after, and acknowledges past the withdrawn number.
func TestWithdrawnSampleNeverReachesAReaderCutOffWhenItWasWritten(t *testing.T) {
	cut := newCutLink()
	w, r := matchedPair(t, Config{Domain: 44}, Config{Domain: 44, drop: cut.drop, tap: cut.tap})
	cut.w.Store(uint32(w.GUID().Entity))
	waitHeard(t, w, r.GUID())
	cut.cut.Store(true)
	sn, err := w.WriteSN([]byte{0, 1, 0, 0, 'A'}, nil)
	if err != nil {
		t.Fatal(err)
	}
	lost(t, cut.data, "DATA")
	if w.AcknowledgedBy(r.GUID(), sn) {
		t.Fatal("a reader cut off acknowledged the sample")
	}
	if !w.Withdraw(sn) {
		t.Fatalf("sample %d not in the history", sn)
	}
	lost(t, cut.gap, "GAP") // the reader learns of the withdrawal by asking
	cut.cut.Store(false)
	if err := w.Write([]byte{0, 1, 0, 0, 'B'}, nil); err != nil {
		t.Fatal(err)
	}
	if s := takeN(t, r, 1)[0]; s.Payload[4] != 'B' {
		t.Fatalf("the reader got %q (sn %d) first, want B: the withdrawn sample was repaired", s.Payload[4:], s.SN)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := w.WaitAcknowledged(ctx); err != nil {
		t.Fatalf("the reader never acknowledged past the withdrawn sample: %v", err)
	}
	takeNone(t, r, "a withdrawn sample arrived")
	if w.Withdraw(sn) {
		t.Fatal("a sample withdrawn twice")
	}
}

// A sample written to one reader reaches that reader alone: another
// matched reader, even one that missed the GAP and asks for the number,
// never gets it, and both go on with what is written to all.
func TestWriteToReachesOneReaderAndGapsTheOthers(t *testing.T) {
	cut := newCutLink()
	w, a := matchedPair(t, Config{Domain: 45}, Config{Domain: 45})
	topic := EndpointData{Topic: "rt/chatter", Type: "std_msgs::msg::dds_::String_", QoS: QoS{Reliability: Reliable, History: KeepAll}}
	b, err := newParticipant(t, Config{Domain: 45, drop: cut.drop, tap: cut.tap}).NewReader(topic)
	if err != nil {
		t.Fatal(err)
	}
	cut.w.Store(uint32(w.GUID().Entity))
	waitHeard(t, w, a.GUID())
	waitHeard(t, w, b.GUID())
	if _, err := w.WriteTo(wire.GUID{Prefix: b.GUID().Prefix, Entity: 0x77}, []byte{0, 1, 0, 0, 'X'}, nil); !errors.Is(err, ErrNotMatched) {
		t.Fatalf("a write to an unmatched reader: %v, want ErrNotMatched", err)
	}
	cut.cut.Store(true) // b misses the GAP and asks for the number later
	sn, err := w.WriteTo(a.GUID(), []byte{0, 1, 0, 0, 'A'}, nil)
	if err != nil {
		t.Fatal(err)
	}
	lost(t, cut.gap, "GAP")
	if s := takeN(t, a, 1)[0]; s.Payload[4] != 'A' || s.SN != sn {
		t.Fatalf("the reader written to got %+v", s)
	}
	cut.cut.Store(false)
	if err := w.Write([]byte{0, 1, 0, 0, 'B'}, nil); err != nil {
		t.Fatal(err)
	}
	if s := takeN(t, b, 1)[0]; s.Payload[4] != 'B' {
		t.Fatalf("the other reader got %q (sn %d), want only B", s.Payload[4:], s.SN)
	}
	if s := takeN(t, a, 1)[0]; s.Payload[4] != 'B' {
		t.Fatalf("the reader written to got %q next, want B", s.Payload[4:])
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := w.WaitAcknowledged(ctx); err != nil {
		t.Fatalf("readers never acknowledged: %v", err)
	}
	takeNone(t, b, "the other reader got more")
}
