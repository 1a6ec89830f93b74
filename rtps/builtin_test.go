package rtps

import (
	"reflect"
	"testing"

	"github.com/actbridge/actbridge/rtps/wire"
)

func TestBuiltinReaderAsksForWhatIsMissing(t *testing.T) {
	peer := wire.GUIDPrefix{9}
	r := newBuiltinReader(wire.EntityIDSEDPPublicationsReader, wire.EntityIDSEDPPublicationsWriter)
	for _, sn := range []wire.SequenceNumber{1, 3, 3, 6} {
		r.onData(peer, sn)
	}
	if r.onData(peer, 3) || r.onData(peer, 1) {
		t.Fatal("duplicate delivered again")
	}
	a := r.onHeartbeat(peer, &wire.Heartbeat{First: 1, Last: 7, Count: 1})
	if a == nil || a.State.Base != 2 || !reflect.DeepEqual(a.State.Members(), []wire.SequenceNumber{2, 4, 5, 7}) {
		t.Fatalf("acknack %+v", a)
	}
	if r.onHeartbeat(peer, &wire.Heartbeat{First: 1, Last: 7, Count: 1}) != nil {
		t.Fatal("answered a repeated heartbeat count")
	}
	r.onGap(peer, &wire.Gap{Start: 2, List: wire.NewSequenceNumberSet(3)}) // 2 irrelevant
	g := wire.NewSequenceNumberSet(5)
	g.Add(5)
	r.onGap(peer, &wire.Gap{Start: 4, List: g}) // 4 and 5 irrelevant
	a = r.onHeartbeat(peer, &wire.Heartbeat{First: 1, Last: 7, Count: 2})
	if a.State.Base != 7 || !reflect.DeepEqual(a.State.Members(), []wire.SequenceNumber{7}) {
		t.Fatalf("after gaps: %+v", a.State)
	}
	// The writer forgot everything below 100: nothing before is asked for.
	a = r.onHeartbeat(peer, &wire.Heartbeat{First: 100, Last: 99, Count: 3, Final: true})
	if a != nil {
		t.Fatalf("final heartbeat with nothing missing answered: %+v", a)
	}
	if !r.onData(peer, 100) || r.writers[peer].next != 101 {
		t.Fatalf("window not moved to the writer's first: %+v", r.writers[peer])
	}
}

func TestBuiltinReaderWindowIsBounded(t *testing.T) {
	peer := wire.GUIDPrefix{9}
	r := newBuiltinReader(wire.EntityIDSEDPPublicationsReader, wire.EntityIDSEDPPublicationsWriter)
	if r.onData(peer, 1+wire.MaxSetBits) {
		t.Fatal("sample beyond the 256-number window accepted")
	}
	a := r.onHeartbeat(peer, &wire.Heartbeat{First: 1, Last: 1 << 40, Count: 1})
	if a.State.NumBits != wire.MaxSetBits {
		t.Fatalf("acknack of %d bits", a.State.NumBits)
	}
}

func TestBuiltinWriterRepairsAndGapsWhatItNoLongerHolds(t *testing.T) {
	peer := wire.GUIDPrefix{9}
	w := newBuiltinWriter(wire.EntityIDSEDPPublicationsWriter, wire.EntityIDSEDPPublicationsReader)
	k1, k2 := wire.GUID{Entity: 0x103}, wire.GUID{Entity: 0x203}
	w.write(k1, []byte("a1")) // sn 1, replaced by sn 3
	w.write(k2, []byte("b"))  // sn 2
	w.write(k1, []byte("a2")) // sn 3
	if subs := w.match(peer); len(subs) != 3 {
		t.Fatalf("match sends %d submessages, want 2 changes and a heartbeat", len(subs))
	}
	nack := wire.NewSequenceNumberSet(1)
	nack.Add(1)
	nack.Add(3)
	subs := w.onAckNack(peer, &wire.AckNack{State: nack, Count: 1})
	if len(subs) != 3 {
		t.Fatalf("repairs %+v", subs)
	}
	if d := subs[0].(*wire.Data); d.WriterSN != 3 || string(d.Payload) != "a2" {
		t.Fatalf("repair %+v", d)
	}
	if g := subs[1].(*wire.Gap); g.Start != 1 {
		t.Fatalf("gap %+v", g)
	}
	if w.acknowledged(peer) {
		t.Fatal("acknowledged before its ACKNACK said so")
	}
	w.onAckNack(peer, &wire.AckNack{State: wire.NewSequenceNumberSet(4), Count: 2})
	if !w.acknowledged(peer) || len(w.unacked()) != 0 {
		t.Fatal("not acknowledged after a positive ACKNACK")
	}
	w.write(k2, nil) // dispose
	w.onAckNack(peer, &wire.AckNack{State: wire.NewSequenceNumberSet(5), Count: 3})
	for _, c := range w.changes {
		if c.key == k2 {
			t.Fatal("acknowledged dispose kept")
		}
	}
}
