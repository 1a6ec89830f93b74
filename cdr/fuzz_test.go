package cdr

import (
	"bytes"
	"testing"
)

// FuzzDecode feeds arbitrary bytes to the decoder for several types. It
// must never panic, and whatever it accepts must encode and decode back to
// the same bytes.
func FuzzDecode(f *testing.F) {
	types := []*Struct{mixed, point, trajectory,
		MustStruct("deep", Field{Name: "t", Type: Type{Kind: StructKind, Struct: trajectory, Collection: Sequence}})}
	for i := range types {
		for _, e := range []Endianness{LittleEndian, BigEndian} {
			b, err := Encode(Zero(types[i]), e)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(uint8(i), b)
		}
	}
	for _, e := range []Endianness{LittleEndian, BigEndian} {
		b, _ := Encode(mixedValue(), e)
		f.Add(uint8(0), b)
		b, _ = Encode(trajectoryValue(), e)
		f.Add(uint8(2), b)
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		s := types[int(which)%len(types)]
		m, err := Decode(s, data)
		if err != nil {
			return
		}
		e := LittleEndian
		if data[1] == 0 {
			e = BigEndian
		}
		once, err := Encode(m, e)
		if err != nil {
			t.Fatalf("decoded value does not encode: %v", err)
		}
		m2, err := Decode(s, once)
		if err != nil {
			t.Fatalf("re-encoded value does not decode: %v", err)
		}
		twice, err := Encode(m2, e)
		if err != nil || !bytes.Equal(once, twice) {
			t.Fatalf("round trip differs: %x vs %x (%v)", once, twice, err)
		}
	})
}
