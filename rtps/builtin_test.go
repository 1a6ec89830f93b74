package rtps

import (
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

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
	peer := wire.GUID{Prefix: wire.GUIDPrefix{9}, Entity: wire.EntityIDSEDPPublicationsReader}
	w := newBuiltinWriter(wire.EntityIDSEDPPublicationsWriter, wire.EntityIDSEDPPublicationsReader)
	k1, k2 := wire.GUID{Entity: 0x103}, wire.GUID{Entity: 0x203}
	w.write(k1, []byte("a1"), nil, time.Now()) // sn 1, replaced by sn 3
	w.write(k2, []byte("b"), nil, time.Now())  // sn 2
	w.write(k1, []byte("a2"), nil, time.Now()) // sn 3
	if subs := withoutTS(w.match(peer)); len(subs) != 3 {
		t.Fatalf("match sends %d submessages, want 2 changes and a heartbeat", len(subs))
	}
	nack := wire.NewSequenceNumberSet(1)
	nack.Add(1)
	nack.Add(3)
	subs := withoutTS(w.onAckNack(peer, &wire.AckNack{State: nack, Count: 1}))
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
	w.write(k2, nil, nil, time.Now()) // dispose
	w.onAckNack(peer, &wire.AckNack{State: wire.NewSequenceNumberSet(5), Count: 3})
	for _, c := range w.changes {
		if c.key == k2 {
			t.Fatal("acknowledged dispose kept")
		}
	}
}

// Through a channel that drops a third of everything, in both directions,
// heartbeats and ACKNACKs still bring every change to the reader exactly
// once, withdrawn ones as gaps.
func TestBuiltinEndpointsDeliverEverythingOnceUnderLoss(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	lossy := func(subs []wire.Submessage) []wire.Submessage {
		var kept []wire.Submessage
		for _, s := range subs {
			if rng.IntN(3) != 0 {
				kept = append(kept, s)
			}
		}
		return kept
	}
	wp, rp := wire.GUIDPrefix{1}, wire.GUID{Prefix: wire.GUIDPrefix{2}, Entity: wire.EntityIDSEDPPublicationsReader}
	w := newBuiltinWriter(wire.EntityIDSEDPPublicationsWriter, wire.EntityIDSEDPPublicationsReader)
	r := newBuiltinReader(wire.EntityIDSEDPPublicationsReader, wire.EntityIDSEDPPublicationsWriter)
	delivered := map[wire.SequenceNumber]int{}
	deliver := func(subs []wire.Submessage) []wire.Submessage {
		var back []wire.Submessage
		for _, s := range lossy(subs) {
			switch s := s.(type) {
			case *wire.Data:
				if r.onData(wp, s.WriterSN) {
					delivered[s.WriterSN]++
				}
			case *wire.Gap:
				r.onGap(wp, s)
			case *wire.Heartbeat:
				if a := r.onHeartbeat(wp, s); a != nil {
					back = append(back, a)
				}
			}
		}
		return back
	}
	answer := func(acks []wire.Submessage) {
		for _, a := range lossy(acks) {
			deliver(w.onAckNack(rp, a.(*wire.AckNack)))
		}
	}
	answer(deliver(w.match(rp)))
	const n = 300
	for i := range n {
		k := i
		if i >= 200 {
			k = 2*(i-200) + 1 // replaces the odd keys, leaving holes below the first kept change
		}
		key := wire.GUID{Entity: wire.EntityID(k)<<8 | 3}
		deliver(w.write(key, []byte{byte(i)}, nil, time.Now())) // no repairs yet: lost changes get replaced
	}
	for round := 0; round < 200 && !w.acknowledged(rp); round++ {
		answer(deliver([]wire.Submessage{w.heartbeat(false)}))
	}
	if !w.acknowledged(rp) {
		t.Fatal("never acknowledged")
	}
	for sn, c := range delivered {
		if c != 1 {
			t.Fatalf("sn %d delivered %d times", sn, c)
		}
	}
	for _, c := range w.changes {
		if delivered[c.sn] != 1 {
			t.Fatalf("current change %d (key %v) never delivered", c.sn, c.key)
		}
	}
	if r.writers[wp].next != n+1 {
		t.Fatalf("reader stopped at %d of %d", r.writers[wp].next, n)
	}
}
