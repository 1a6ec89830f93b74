package cdr

import (
	"encoding/binary"
	"errors"
	"runtime"
	"testing"
)

// allocated is the octets f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

var (
	uuid   = MustStruct("uuid", Field{Name: "uuid", Type: Type{Kind: Uint8, Collection: Array, Len: 16}})
	stamp  = MustStruct("stamp", Field{Name: "sec", Type: Type{Kind: Int32}}, Field{Name: "nanosec", Type: Type{Kind: Uint32}})
	info   = MustStruct("info", Field{Name: "goal_id", Type: Type{Kind: StructKind, Struct: uuid}}, Field{Name: "stamp", Type: Type{Kind: StructKind, Struct: stamp}})
	status = MustStruct("status", Field{Name: "goal_info", Type: Type{Kind: StructKind, Struct: info}}, Field{Name: "status", Type: Type{Kind: Int8}})
	array  = MustStruct("array", Field{Name: "status_list", Type: Type{Kind: StructKind, Struct: status, Collection: Sequence}})
)

// statusArray encodes n statuses (GoalStatusArray's layout) in about
// 28n octets.
func statusArray(t testing.TB, n int) []byte {
	t.Helper()
	encode := func(k int) []byte {
		m := Zero(array)
		m.Fields[0] = MakeSlice(array.Field(0).Type, k)
		b, err := Encode(m, LittleEndian)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	one, two := encode(1), encode(2)
	entry := two[len(one):] // every status after the first has this alignment
	b := append(make([]byte, 0, len(one)+(n-1)*len(entry)), one...)
	for range n - 1 {
		b = append(b, entry...)
	}
	binary.LittleEndian.PutUint32(b[4:], uint32(n))
	return b
}

// TestManySmallStructsAreRefusedBeforeTheyAreAllocated: an 8 MiB array of
// small structs would take about ten times its size decoded; Decode
// refuses it with ErrTooLarge having allocated next to nothing, and still
// decodes a few thousand, and 8 MiB of octets.
func TestManySmallStructsAreRefusedBeforeTheyAreAllocated(t *testing.T) {
	big := statusArray(t, 8<<20/28)
	var err error
	n := allocated(func() { _, err = Decode(array, big) })
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("an %d-octet array of %d structs: %v, want ErrTooLarge", len(big), 8<<20/28, err)
	}
	if n > 1<<20 {
		t.Fatalf("refusing it allocated %d octets", n)
	}
	t.Logf("refused %d octets having allocated %d", len(big), n)
	m, err := Decode(array, statusArray(t, 3000))
	if err != nil || len(m.Fields[0].([]*Message)) != 3000 {
		t.Fatalf("3000 statuses: %v", err)
	}
	blob := MustStruct("blob", Field{Name: "data", Type: Type{Kind: Uint8, Collection: Sequence}})
	b := make([]byte, 8+8<<20)
	b[1] = 1
	binary.LittleEndian.PutUint32(b[4:], 8<<20)
	if _, err := Decode(blob, b); err != nil {
		t.Fatalf("8 MiB of octets: %v", err)
	}
	if _, err := DecodeLimit(blob, b, 1<<20); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("8 MiB of octets within 1 MiB: %v", err)
	}
}

// TestDecodedMemoryStaysWithinTheLimit: whatever the shape, what Decode
// allocates stays near the limit it counts against (its cost model is
// not far below what the runtime allocates).
func TestDecodedMemoryStaysWithinTheLimit(t *testing.T) {
	for _, n := range []int{1000, 3000} {
		b := statusArray(t, n)
		limit := DefaultLimit(len(b))
		var err error
		got := allocated(func() { _, err = Decode(array, b) })
		t.Logf("%d statuses (%d octets): allocated %d, limit %d, %v", n, len(b), got, limit, err)
		if got > uint64(limit)+uint64(limit)/4 {
			t.Fatalf("allocated %d for a limit of %d", got, limit)
		}
	}
}
