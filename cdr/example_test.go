package cdr_test

import (
	"fmt"

	"github.com/actbridge/actbridge/cdr"
)

// A type is described at run time; a value lists its fields in order.
func ExampleEncode() {
	str := cdr.MustStruct("String", cdr.Field{Name: "data", Type: cdr.Type{Kind: cdr.String}})
	b, err := cdr.Encode(&cdr.Message{Type: str, Fields: []any{"hi"}}, cdr.LittleEndian)
	fmt.Printf("% x %v\n", b, err)
	// Output: 00 01 00 00 03 00 00 00 68 69 00 <nil>
}

// Decode reads either endianness; the header says which.
func ExampleDecode() {
	pair := cdr.MustStruct("Pair",
		cdr.Field{Name: "a", Type: cdr.Type{Kind: cdr.Uint8}},
		cdr.Field{Name: "b", Type: cdr.Type{Kind: cdr.Int32}})
	m, err := cdr.Decode(pair, []byte{0, 0, 0, 0, 1, 0, 0, 0, 0xff, 0xff, 0xff, 0xfe})
	fmt.Println(m.Get("a"), m.Get("b"), err)
	// Output: 1 -2 <nil>
}

// Sequences and arrays of numbers are plain Go slices; sequences may be bounded.
func ExampleType_sequence() {
	joints := cdr.MustStruct("Joints",
		cdr.Field{Name: "position", Type: cdr.Type{Kind: cdr.Float64, Collection: cdr.Sequence}},
		cdr.Field{Name: "mask", Type: cdr.Type{Kind: cdr.Bool, Collection: cdr.Array, Len: 2}},
		cdr.Field{Name: "ids", Type: cdr.Type{Kind: cdr.Uint16, Collection: cdr.Sequence, Len: 4}})
	m := &cdr.Message{Type: joints, Fields: []any{[]float64{0.5}, []bool{true, false}, []uint16{3}}}
	b, _ := cdr.Encode(m, cdr.LittleEndian)
	fmt.Printf("% x\n", b)
	// Output: 00 01 00 00 01 00 00 00 00 00 00 00 00 00 00 00 00 00 e0 3f 01 00 00 00 01 00 00 00 03 00
}

// Nested structs are *cdr.Message values; strings may be bounded.
func ExampleType_nested() {
	stamp := cdr.MustStruct("Time",
		cdr.Field{Name: "sec", Type: cdr.Type{Kind: cdr.Int32}},
		cdr.Field{Name: "nanosec", Type: cdr.Type{Kind: cdr.Uint32}})
	header := cdr.MustStruct("Header",
		cdr.Field{Name: "stamp", Type: cdr.Type{Kind: cdr.StructKind, Struct: stamp}},
		cdr.Field{Name: "frame_id", Type: cdr.Type{Kind: cdr.String, StringBound: 16}})
	m := cdr.Zero(header)
	_ = m.Set("frame_id", "base")
	b, _ := cdr.Encode(m, cdr.BigEndian)
	back, _ := cdr.Decode(header, b)
	fmt.Printf("% x\n%s\n", b, back.AppendJSON(nil))
	// Output:
	// 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 05 62 61 73 65 00
	// {"stamp":{"sec":0,"nanosec":0},"frame_id":"base"}
}

// Every failure names the field at fault and wraps a sentinel error.
func ExampleDecode_untrusted() {
	seq := cdr.MustStruct("Seq", cdr.Field{Name: "v", Type: cdr.Type{Kind: cdr.Float64, Collection: cdr.Sequence}})
	_, err := cdr.Decode(seq, []byte{0, 1, 0, 0, 0xff, 0xff, 0xff, 0x7f})
	fmt.Println(err)
	// Output: cdr: v: data truncated: 2147483647 elements, 0 bytes left
}

// A message prints as JSON with its fields in definition order.
func ExampleMessage_MarshalJSON() {
	s := cdr.MustStruct("S",
		cdr.Field{Name: "z", Type: cdr.Type{Kind: cdr.Byte, Collection: cdr.Array, Len: 2}},
		cdr.Field{Name: "a", Type: cdr.Type{Kind: cdr.Float32}})
	j, _ := (&cdr.Message{Type: s, Fields: []any{[]uint8{1, 2}, float32(0.1)}}).MarshalJSON()
	fmt.Println(string(j))
	// Output: {"z":[1,2],"a":0.1}
}

// Pad gives an encoding the 4-byte padding DDS writers put on the wire.
func ExamplePad() {
	s := cdr.MustStruct("S", cdr.Field{Name: "s", Type: cdr.Type{Kind: cdr.String}})
	b, _ := cdr.Encode(&cdr.Message{Type: s, Fields: []any{"ab"}}, cdr.LittleEndian)
	fmt.Printf("% x\n", b)
	fmt.Printf("% x\n", cdr.Pad(b))
	// Output:
	// 00 01 00 00 03 00 00 00 61 62 00
	// 00 01 00 01 03 00 00 00 61 62 00 00
}

// Zero gives a value to fill in: arrays at full length, sequences empty.
func ExampleZero() {
	s := cdr.MustStruct("S",
		cdr.Field{Name: "a", Type: cdr.Type{Kind: cdr.Int16, Collection: cdr.Array, Len: 2}},
		cdr.Field{Name: "q", Type: cdr.Type{Kind: cdr.String, Collection: cdr.Sequence}})
	m := cdr.Zero(s)
	m.Fields[1] = append(m.Fields[1].([]string), "x")
	fmt.Printf("%s\n", m.AppendJSON(nil))
	// Output: {"a":[0,0],"q":["x"]}
}

// AppendEncode reuses a buffer, for encoding at a high rate without garbage.
func ExampleAppendEncode() {
	s := cdr.MustStruct("S", cdr.Field{Name: "v", Type: cdr.Type{Kind: cdr.Float64, Collection: cdr.Sequence}})
	m := &cdr.Message{Type: s, Fields: []any{[]float64{1}}}
	buf := make([]byte, 0, 64)
	for range 3 {
		buf, _ = cdr.AppendEncode(buf[:0], m, cdr.BigEndian)
	}
	fmt.Printf("% x\n", buf)
	// Output: 00 00 00 00 00 00 00 01 00 00 00 00 3f f0 00 00 00 00 00 00
}

// MakeSlice gives the Go form of an array or sequence of any kind.
func ExampleMakeSlice() {
	fmt.Printf("%T %T %T\n",
		cdr.MakeSlice(cdr.Type{Kind: cdr.Float64}, 2),
		cdr.MakeSlice(cdr.Type{Kind: cdr.Char}, 0),
		cdr.MakeSlice(cdr.Type{Kind: cdr.StructKind, Struct: cdr.MustStruct("P")}, 1))
	// Output: []float64 []uint8 []*cdr.Message
}

func ExampleFromJSON() {
	s := cdr.MustStruct("std_srvs/SetBool_Request", cdr.Field{Name: "data", Type: cdr.Type{Kind: cdr.Bool}})
	m, err := cdr.FromJSON(s, []byte(`{"data": true}`))
	fmt.Println(m.Get("data"), err)
	_, err = cdr.FromJSON(s, []byte(`{"data": 1}`))
	fmt.Println(err)
	// Output:
	// true <nil>
	// cdr: data: value does not match type: want true or false, got a number
}
