package ddspeers

import (
	"math/rand/v2"
	"reflect"

	"github.com/actbridge/actbridge/cdr"
)

// RandomMessage returns a value of s with every field set from rng: numbers
// over their whole range (negatives included), strings of 0 to 9 bytes so
// that every alignment after them occurs, sequences of 0 to maxSeq
// elements (within their bounds).
func RandomMessage(s *cdr.Struct, rng *rand.Rand, maxSeq int) *cdr.Message {
	m := &cdr.Message{Type: s, Fields: make([]any, s.NumField())}
	for i := range m.Fields {
		t := s.Field(i).Type
		switch t.Collection {
		case cdr.Single:
			m.Fields[i] = randomElem(t, rng, maxSeq)
		default:
			n := t.Len
			if t.Collection == cdr.Sequence {
				limit := maxSeq
				if t.Len > 0 && t.Len < limit {
					limit = t.Len
				}
				n = rng.IntN(limit + 1)
			}
			m.Fields[i] = randomSlice(t, n, rng, maxSeq)
		}
	}
	return m
}

func randomSlice(t cdr.Type, n int, rng *rand.Rand, maxSeq int) any {
	s := reflect.ValueOf(cdr.MakeSlice(t, n))
	for i := range n {
		s.Index(i).Set(reflect.ValueOf(randomElem(t, rng, maxSeq)))
	}
	return s.Interface()
}

func randomElem(t cdr.Type, rng *rand.Rand, maxSeq int) any {
	u := rng.Uint64()
	switch t.Kind {
	case cdr.Bool:
		return u&1 == 1
	case cdr.Byte, cdr.Char, cdr.Uint8:
		return uint8(u)
	case cdr.Int8:
		return int8(u)
	case cdr.Int16:
		return int16(u)
	case cdr.Uint16:
		return uint16(u)
	case cdr.Int32:
		return int32(u)
	case cdr.Uint32:
		return uint32(u)
	case cdr.Int64:
		return int64(u)
	case cdr.Uint64:
		return u
	case cdr.Float32:
		return float32(rng.NormFloat64() * 1e3)
	case cdr.Float64:
		return rng.NormFloat64() * 1e6
	case cdr.String, cdr.WString:
		n := rng.IntN(10)
		if t.StringBound > 0 && n > t.StringBound {
			n = t.StringBound
		}
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(' ' + rng.IntN(95)) // printable ASCII
		}
		return string(b)
	}
	return RandomMessage(t.Struct, rng, maxSeq)
}
