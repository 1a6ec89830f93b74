package cdr

import (
	"fmt"
)

// Message is a value of a [Struct]: Fields[i] holds the value of the i-th
// field in definition order.
//
// The Go type of a value follows the field's Type: bool; uint8 for Byte,
// Char and Uint8; int8 … uint64; float32, float64; string for String and
// WString (UTF-8 in Go); *Message for a struct. Arrays and sequences are
// slices of those ([]float64, []string, []*Message, …), so a sequence of
// numbers is never boxed element by element.
type Message struct {
	Type   *Struct
	Fields []any
}

// Zero returns the zero value of s: zero numbers, empty strings and
// sequences, arrays of their full length.
func Zero(s *Struct) *Message {
	m := &Message{Type: s, Fields: make([]any, len(s.fields))}
	for i, f := range s.fields {
		m.Fields[i] = zeroField(f.Type)
	}
	return m
}

func zeroField(t Type) any {
	switch t.Collection {
	case Array:
		return MakeSlice(t, t.Len)
	case Sequence:
		return MakeSlice(t, 0)
	}
	if t.Kind == StructKind {
		return Zero(t.Struct)
	}
	return zeroElem(t.Kind)
}

func zeroElem(k Kind) any {
	switch k {
	case Bool:
		return false
	case Byte, Char, Uint8:
		return uint8(0)
	case Int8:
		return int8(0)
	case Int16:
		return int16(0)
	case Uint16:
		return uint16(0)
	case Int32:
		return int32(0)
	case Uint32:
		return uint32(0)
	case Int64:
		return int64(0)
	case Uint64:
		return uint64(0)
	case Float32:
		return float32(0)
	case Float64:
		return float64(0)
	}
	return ""
}

// MakeSlice returns n zero elements of t's kind in the Go form an array or
// sequence of them takes ([]float64, []string, []*Message, …).
func MakeSlice(t Type, n int) any {
	switch t.Kind {
	case Bool:
		return make([]bool, n)
	case Byte, Char, Uint8:
		return make([]uint8, n)
	case Int8:
		return make([]int8, n)
	case Int16:
		return make([]int16, n)
	case Uint16:
		return make([]uint16, n)
	case Int32:
		return make([]int32, n)
	case Uint32:
		return make([]uint32, n)
	case Int64:
		return make([]int64, n)
	case Uint64:
		return make([]uint64, n)
	case Float32:
		return make([]float32, n)
	case Float64:
		return make([]float64, n)
	case String, WString:
		return make([]string, n)
	}
	ms := make([]*Message, n)
	for i := range ms {
		ms[i] = Zero(t.Struct)
	}
	return ms
}

// Get returns the value of the named field, or nil if there is none.
func (m *Message) Get(name string) any {
	i := m.Type.FieldIndex(name)
	if i < 0 || i >= len(m.Fields) {
		return nil
	}
	return m.Fields[i]
}

// Set sets the named field; it reports an error when the struct has no
// such field. The value's type is checked when the message is encoded.
func (m *Message) Set(name string, v any) error {
	i := m.Type.FieldIndex(name)
	if i < 0 || i >= len(m.Fields) {
		return fmt.Errorf("%w: %s has no field %q", ErrValueType, m.Type.name, name)
	}
	m.Fields[i] = v
	return nil
}
