package rtps

import (
	"context"
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
