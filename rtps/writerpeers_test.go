package rtps

import (
	"context"
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
