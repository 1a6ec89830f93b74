package cdr

import (
	"bytes"
	"encoding/hex"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
)

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// mixed has a byte, a float64 that must be aligned to 8 after the header,
// a string of odd length and a sequence of negative int16.
var mixed = MustStruct("mixed",
	Field{Name: "a", Type: Type{Kind: Uint8}},
	Field{Name: "b", Type: Type{Kind: Float64}},
	Field{Name: "c", Type: Type{Kind: String}},
	Field{Name: "d", Type: Type{Kind: Int16, Collection: Sequence}},
)

var point = MustStruct("point",
	Field{Name: "positions", Type: Type{Kind: Float64, Collection: Sequence}},
	Field{Name: "label", Type: Type{Kind: String, StringBound: 8}},
)

var trajectory = MustStruct("trajectory",
	Field{Name: "names", Type: Type{Kind: String, Collection: Sequence}},
	Field{Name: "points", Type: Type{Kind: StructKind, Struct: point, Collection: Sequence, Len: 4}},
	Field{Name: "flags", Type: Type{Kind: Bool, Collection: Array, Len: 3}},
	Field{Name: "origin", Type: Type{Kind: StructKind, Struct: point}},
	Field{Name: "w", Type: Type{Kind: WString}},
)

func mixedValue() *Message {
	return &Message{Type: mixed, Fields: []any{uint8(7), 1.5, "abc", []int16{-1, 2}}}
}

func trajectoryValue() *Message {
	p := func(label string, xs ...float64) *Message {
		return &Message{Type: point, Fields: []any{xs, label}}
	}
	return &Message{Type: trajectory, Fields: []any{
		[]string{"j1", "joint_2"},
		[]*Message{p("a", 1, -2.5), p("", math.Inf(1))},
		[]bool{true, false, true},
		p("origin", 0),
		"héllo ハロー",
	}}
}

func TestEncodeAlignsAfterHeaderBothEndians(t *testing.T) {
	tests := []struct {
		name string
		e    Endianness
		want string
	}{
		{"little", LittleEndian, "00010000 07000000 00000000 000000000000f83f 04000000 61626300 02000000 ffff0200"},
		{"big", BigEndian, "00000000 07000000 00000000 3ff8000000000000 00000004 61626300 00000002 ffff0002"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Encode(mixedValue(), tc.e)
			if err != nil {
				t.Fatal(err)
			}
			if want := unhex(t, tc.want); !bytes.Equal(got, want) {
				t.Fatalf("got  %x\nwant %x", got, want)
			}
			back, err := Decode(mixed, got)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(back, mixedValue()) {
				t.Fatalf("decoded %v", back.Fields)
			}
		})
	}
}

func TestAlignmentCountsFromHeaderNotBuffer(t *testing.T) {
	a, err := Encode(mixedValue(), LittleEndian)
	if err != nil {
		t.Fatal(err)
	}
	b, err := AppendEncode([]byte{9, 9, 9}, mixedValue(), LittleEndian)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b[3:], a) {
		t.Fatalf("appended after 3 bytes: %x, alone: %x", b[3:], a)
	}
}

func TestNestedSequencesRoundTripBothEndians(t *testing.T) {
	for _, e := range []Endianness{LittleEndian, BigEndian} {
		b, err := Encode(trajectoryValue(), e)
		if err != nil {
			t.Fatal(err)
		}
		m, err := Decode(trajectory, b)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(m, trajectoryValue()) {
			t.Fatalf("endian %d: decoded %s", e, m.AppendJSON(nil))
		}
	}
}

func TestEmptySequenceOfFloat64AddsNoPadding(t *testing.T) {
	s := MustStruct("s",
		Field{Name: "v", Type: Type{Kind: Float64, Collection: Sequence}},
		Field{Name: "n", Type: Type{Kind: Int32}})
	got, err := Encode(&Message{Type: s, Fields: []any{[]float64{}, int32(-2)}}, LittleEndian)
	if err != nil {
		t.Fatal(err)
	}
	if want := unhex(t, "00010000 00000000 feffffff"); !bytes.Equal(got, want) {
		t.Fatalf("got %x want %x", got, want)
	}
}

func TestStringEncodingCountsTerminator(t *testing.T) {
	s := MustStruct("std_msgs/String", Field{Name: "data", Type: Type{Kind: String}})
	got, err := Encode(&Message{Type: s, Fields: []any{"hello"}}, LittleEndian)
	if err != nil {
		t.Fatal(err)
	}
	if want := unhex(t, "00010000 06000000 68656c6c6f00"); !bytes.Equal(got, want) {
		t.Fatalf("got %x want %x", got, want)
	}
	empty, err := Encode(&Message{Type: s, Fields: []any{""}}, LittleEndian)
	if err != nil {
		t.Fatal(err)
	}
	if want := unhex(t, "00010000 01000000 00"); !bytes.Equal(empty, want) {
		t.Fatalf("empty: got %x want %x", empty, want)
	}
}

func TestDecodeIgnoresOptionsAndTrailingPadding(t *testing.T) {
	s := MustStruct("s", Field{Name: "x", Type: Type{Kind: Uint16}})
	m, err := Decode(s, unhex(t, "00010003 3412 000000"))
	if err != nil {
		t.Fatal(err)
	}
	if m.Get("x") != uint16(0x1234) {
		t.Fatalf("x = %v", m.Get("x"))
	}
}

func TestDecodeRejectsMalformedInput(t *testing.T) {
	str := MustStruct("s", Field{Name: "s", Type: Type{Kind: String, StringBound: 3}})
	seq := MustStruct("q", Field{Name: "q", Type: Type{Kind: Float64, Collection: Sequence, Len: 2}})
	flag := MustStruct("b", Field{Name: "b", Type: Type{Kind: Bool}})
	tests := []struct {
		name string
		s    *Struct
		data string
		want error
	}{
		{"no header", str, "0001", ErrTruncated},
		{"PL_CDR encapsulation", str, "00030000 01000000 00", ErrEncapsulation},
		{"string longer than data", str, "00010000 ffffffff 00", ErrTruncated},
		{"string over bound", str, "00010000 05000000 61626364 00", ErrBound},
		{"string without terminator", str, "00010000 02000000 6161", ErrInvalidValue},
		{"string with inner NUL", str, "00010000 03000000 610000", ErrInvalidValue},
		{"sequence larger than data", seq, "00010000 ffffff7f", ErrTruncated},
		{"sequence over bound", seq, "00010000 03000000 " + strings.Repeat("00", 28), ErrBound},
		{"sequence cut short", seq, "00010000 01000000 00000000 000000", ErrTruncated},
		{"bool of 2", flag, "00010000 02", ErrInvalidValue},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode(tc.s, unhex(t, tc.data))
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
		})
	}
}

func TestDecodeOfHugeCountAllocatesNothingLarge(t *testing.T) {
	nested := MustStruct("n", Field{Name: "p", Type: Type{Kind: StructKind, Struct: point, Collection: Sequence}})
	data := unhex(t, "00010000 ffffffff 00000000")
	allocs := testing.AllocsPerRun(20, func() {
		if _, err := Decode(nested, data); !errors.Is(err, ErrTruncated) {
			t.Fatalf("err = %v", err)
		}
	})
	if allocs > 10 {
		t.Fatalf("%v allocations for a rejected count", allocs)
	}
}

func TestEncodeRejectsValuesNotMatchingType(t *testing.T) {
	tests := []struct {
		name   string
		fields []any
		want   error
		path   string
	}{
		{"int for uint8", []any{7, 1.5, "abc", []int16{}}, ErrValueType, "a"},
		{"[]int for []int16", []any{uint8(7), 1.5, "abc", []int{1}}, ErrValueType, "d"},
		{"NUL inside string", []any{uint8(7), 1.5, "a\x00c", []int16{}}, ErrInvalidValue, "c"},
		{"missing field", []any{uint8(7)}, ErrValueType, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Encode(&Message{Type: mixed, Fields: tc.fields}, LittleEndian)
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.path) {
				t.Fatalf("err = %v, want %v at %q", err, tc.want, tc.path)
			}
		})
	}
}

func TestEncodeErrorNamesNestedPath(t *testing.T) {
	m := trajectoryValue()
	m.Fields[1].([]*Message)[1].Fields[1] = "longer than eight"
	_, err := Encode(m, LittleEndian)
	if !errors.Is(err, ErrBound) || !strings.Contains(err.Error(), "points[1].label") {
		t.Fatalf("err = %v", err)
	}
}

func TestEncodeEnforcesArrayLengthAndSequenceBound(t *testing.T) {
	m := trajectoryValue()
	m.Fields[2] = []bool{true}
	if _, err := Encode(m, LittleEndian); !errors.Is(err, ErrValueType) {
		t.Fatalf("short array: %v", err)
	}
	m = trajectoryValue()
	m.Fields[1] = make([]*Message, 5)
	if _, err := Encode(m, LittleEndian); !errors.Is(err, ErrBound) {
		t.Fatalf("sequence over bound: %v", err)
	}
}

func TestNewStructRejectsInvalidDescriptions(t *testing.T) {
	tests := []struct {
		name   string
		fields []Field
	}{
		{"duplicate", []Field{{Name: "a", Type: Type{Kind: Bool}}, {Name: "a", Type: Type{Kind: Bool}}}},
		{"unnamed", []Field{{Type: Type{Kind: Bool}}}},
		{"struct without struct", []Field{{Name: "a", Type: Type{Kind: StructKind}}}},
		{"no kind", []Field{{Name: "a"}}},
		{"empty array", []Field{{Name: "a", Type: Type{Kind: Bool, Collection: Array}}}},
		{"bound on int", []Field{{Name: "a", Type: Type{Kind: Int32, StringBound: 3}}}},
		{"huge array", []Field{{Name: "a", Type: Type{Kind: Bool, Collection: Array, Len: 1 << 30}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := NewStruct("s", tc.fields); !errors.Is(err, ErrInvalidType) {
				t.Fatalf("err = %v", err)
			}
		})
	}
}

func TestZeroEncodesAndDecodes(t *testing.T) {
	z := Zero(trajectory)
	b, err := Encode(z, BigEndian)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Decode(trajectory, b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, z) {
		t.Fatalf("zero decoded as %s", back.AppendJSON(nil))
	}
}

func TestJSONKeepsDefinitionOrder(t *testing.T) {
	got := string(trajectoryValue().AppendJSON(nil))
	want := `{"names":["j1","joint_2"],"points":[{"positions":[1,-2.5],"label":"a"},{"positions":["Infinity"],"label":""}],"flags":[true,false,true],"origin":{"positions":[0],"label":"origin"},"w":"héllo ハロー"}`
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

func BenchmarkEncodeJointStateSized(b *testing.B) {
	m := &Message{Type: point, Fields: []any{make([]float64, 7), "x"}}
	buf := make([]byte, 0, 128)
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if buf, err = AppendEncode(buf[:0], m, LittleEndian); err != nil {
			b.Fatal(err)
		}
	}
}

func TestPadRecordsPaddingInOptions(t *testing.T) {
	tests := []struct{ in, want string }{
		{"00010000 01", "00010003 01000000"},
		{"00000000 0102", "00000002 01020000"},
		{"00010000 010203", "00010001 01020300"},
		{"00010000 01020304", "00010000 01020304"},
	}
	for _, tc := range tests {
		got := Pad(unhex(t, tc.in))
		if want := unhex(t, tc.want); !bytes.Equal(got, want) {
			t.Errorf("Pad(%s) = %x, want %x", tc.in, got, want)
		}
		if _, err := Decode(MustStruct("b", Field{Name: "b", Type: Type{Kind: Uint8}}), got); err != nil {
			t.Errorf("padded %x does not decode: %v", got, err)
		}
	}
}
