package bench

import (
	"testing"
	"time"

	"github.com/actbridge/actbridge/rtps/wire"
)

// udpPacket is an IPv4 UDP packet carrying an RTPS message of one DATA
// from writer with payload.
func udpPacket(t testing.TB, writer wire.GUID, payload []byte) []byte {
	t.Helper()
	m := wire.Message{Header: wire.Header{Version: wire.Version(), Prefix: writer.Prefix},
		Submessages: []wire.Submessage{&wire.Data{WriterID: writer.Entity, WriterSN: 1, Payload: payload}}}
	rtps, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	ip := make([]byte, 28, 28+len(rtps))
	ip[0], ip[9] = 0x45, 17 // IPv4, 20-octet header; UDP
	return append(ip, rtps...)
}

// TestWireTapHandsEachWatchOnlyItsWritersDataHoldingTheNeedle: a watch
// gets the DATA of its writer only, seen skips the ones whose payload
// lacks the needle, and packets that are not IPv4 UDP RTPS give nothing.
func TestWireTapHandsEachWatchOnlyItsWritersDataHoldingTheNeedle(t *testing.T) {
	a := wire.GUID{Prefix: wire.GUIDPrefix{1, 2, 3}, Entity: 0x103}
	b := wire.GUID{Prefix: wire.GUIDPrefix{1, 2, 3}, Entity: 0x203}
	needle := []byte("0123456789abcdef")
	var tap wireTap
	wa, wb := tap.watch(a), tap.watch(b)
	at := time.Unix(1, 0)
	junk := [][]byte{nil, {0x45}, udpPacket(t, a, []byte{0, 1, 0, 0})[:30], append([]byte{0x60}, make([]byte, 40)...)}
	tcp := udpPacket(t, a, []byte{0, 1, 0, 0, 'x'})
	tcp[9] = 6
	for _, p := range append(junk, tcp) {
		tap.match(p, at)
	}
	tap.match(udpPacket(t, a, []byte{0, 1, 0, 0, 'n', 'o'}), at)
	tap.match(udpPacket(t, a, append([]byte{0, 1, 0, 0}, needle...)), at.Add(time.Second))
	d, err := tap.seen(wa, needle, time.Second)
	if err != nil || !d.at.Equal(at.Add(time.Second)) || len(d.payload) != 4+len(needle) {
		t.Fatalf("watch of a: %+v, %v; want the second DATA, stamped %v", d, err, at.Add(time.Second))
	}
	if d, err := tap.seen(wb, nil, 50*time.Millisecond); err == nil {
		t.Fatalf("watch of b got %+v from a's DATA", d)
	}
	if len(tap.want) != 0 {
		t.Fatalf("%d watches left after seen", len(tap.want))
	}
}

// FuzzWireTapMatch: no packet makes the tap panic.
func FuzzWireTapMatch(f *testing.F) {
	g := wire.GUID{Prefix: wire.GUIDPrefix{1}, Entity: 0x103}
	f.Add(udpPacket(f, g, []byte{0, 1, 0, 0, 1, 2, 3}))
	f.Add([]byte{0x45, 0, 0, 0})
	f.Fuzz(func(t *testing.T, pkt []byte) {
		var tap wireTap
		w := tap.watch(g)
		tap.match(pkt, time.Unix(0, 0))
		tap.forget(w)
	})
}
