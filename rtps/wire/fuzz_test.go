package wire

import (
	"bytes"
	"testing"
)

// FuzzMessage: any input parses without panic, and whatever parses
// marshals to bytes that parse and marshal to the same bytes again.
func FuzzMessage(f *testing.F) {
	for _, s := range sampleSubmessages() {
		b, _ := (&Message{Header: Header{Version: Version()}, Submessages: []Submessage{s}}).Marshal()
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var m Message
		if err := m.Unmarshal(b); err != nil {
			return
		}
		out, err := m.Marshal()
		if err != nil {
			return // e.g. a Data body grown past 64 KiB by padding
		}
		var m2 Message
		if err := m2.Unmarshal(out); err != nil {
			t.Fatalf("re-parse of our own output: %v\n% x", err, out)
		}
		out2, err := m2.Marshal()
		if err != nil || !bytes.Equal(out, out2) {
			t.Fatalf("not stable: %v\n% x\n% x", err, out, out2)
		}
	})
}

// FuzzParameterList: any input parses without panic; a parsed list
// marshals and parses back to the same parameters.
func FuzzParameterList(f *testing.F) {
	f.Add([]byte{0x05, 0, 8, 0, 4, 0, 0, 0, 'a', 'b', 'c', 0, 1, 0, 0, 0}, true)
	f.Add([]byte{0, 0x50, 0, 16, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 0, 0, 1, 0xc1, 0, 1, 0, 0}, false)
	f.Fuzz(func(t *testing.T, b []byte, little bool) {
		o := order(little)
		pl, n, err := UnmarshalParameterList(b, o)
		if err != nil {
			return
		}
		if n > len(b) {
			t.Fatalf("consumed %d of %d", n, len(b))
		}
		out, err := pl.AppendTo(nil, o)
		if err != nil {
			t.Fatal(err)
		}
		pl2, _, err := UnmarshalParameterList(out, o)
		if err != nil || len(pl2) != len(pl) {
			t.Fatalf("re-parse: %v (%d vs %d)", err, len(pl2), len(pl))
		}
		for i := range pl {
			if pl[i].ID != pl2[i].ID || !bytes.Equal(pl[i].Value, pl2[i].Value) {
				t.Fatalf("parameter %d changed", i)
			}
		}
		for _, p := range pl {
			ParseString(p.Value, o)
			ParseOctets(p.Value, o)
			UnmarshalLocator(p.Value, o)
		}
	})
}
