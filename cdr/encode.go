package cdr

import (
	"encoding/binary"
	"fmt"
	"math"
	"reflect"
	"unicode/utf16"
)

// Endianness selects the byte order of an encoding.
type Endianness uint8

// The two classic CDR encodings, with their encapsulation identifiers
// (CDR_BE = 0x0000, CDR_LE = 0x0001).
const (
	LittleEndian Endianness = iota
	BigEndian
)

func (e Endianness) order() binary.ByteOrder {
	if e == BigEndian {
		return binary.BigEndian
	}
	return binary.LittleEndian
}

// headerSize is the size of the encapsulation header before the body.
const headerSize = 4

// Encode returns m encoded with its encapsulation header.
func Encode(m *Message, e Endianness) ([]byte, error) {
	return AppendEncode(nil, m, e)
}

// AppendEncode appends m, encapsulation header first, to dst. Alignment is
// counted from the end of the header, wherever it lands in dst.
func AppendEncode(dst []byte, m *Message, e Endianness) ([]byte, error) {
	kind := byte(0) // CDR_BE
	if e == LittleEndian {
		kind = 1 // CDR_LE
	}
	dst = append(dst, 0, kind, 0, 0)
	enc := encoder{buf: dst, origin: len(dst), order: e.order().(binary.AppendByteOrder)}
	if err := enc.message(m); err != nil {
		return dst[:enc.origin-headerSize], err
	}
	return enc.buf, nil
}

type encoder struct {
	buf    []byte
	origin int
	order  binary.AppendByteOrder
}

func (e *encoder) align(n int) {
	for (len(e.buf)-e.origin)&(n-1) != 0 {
		e.buf = append(e.buf, 0)
	}
}

func (e *encoder) message(m *Message) error {
	if m == nil || m.Type == nil {
		return fmt.Errorf("%w: nil message", ErrValueType)
	}
	s := m.Type
	if len(m.Fields) != len(s.fields) {
		return fmt.Errorf("%w: %s has %d fields, message has %d", ErrValueType, s.name, len(s.fields), len(m.Fields))
	}
	for i, f := range s.fields {
		if err := e.field(f.Type, m.Fields[i]); err != nil {
			return inField(f.Name, err)
		}
	}
	return nil
}

func (e *encoder) field(t Type, v any) error {
	switch t.Collection {
	case Array:
		n, err := e.sliceLen(t, v)
		if err != nil {
			return err
		}
		if n != t.Len {
			return fmt.Errorf("%w: array of %d elements, value has %d", ErrValueType, t.Len, n)
		}
		return e.elements(t, v)
	case Sequence:
		n, err := e.sliceLen(t, v)
		if err != nil {
			return err
		}
		if t.Len > 0 && n > t.Len {
			return fmt.Errorf("%w: %d elements, bound %d", ErrBound, n, t.Len)
		}
		if uint64(n) > math.MaxUint32 {
			return fmt.Errorf("%w: %d elements", ErrBound, n)
		}
		e.align(4)
		e.buf = e.order.AppendUint32(e.buf, uint32(n))
		return e.elements(t, v)
	}
	return e.single(t, v)
}

// sliceLen checks that v is the slice type of t's kind and returns its length.
func (e *encoder) sliceLen(t Type, v any) (int, error) {
	rv := reflect.ValueOf(v)
	if !rv.IsValid() || rv.Type() != sliceType(t.Kind) {
		return 0, fmt.Errorf("%w: want a slice of %v, have %T", ErrValueType, t.Kind, v)
	}
	return rv.Len(), nil
}

// sliceType is the Go type of an array or sequence of kind k.
func sliceType(k Kind) reflect.Type {
	switch k {
	case Bool:
		return reflect.TypeFor[[]bool]()
	case Byte, Char, Uint8:
		return reflect.TypeFor[[]uint8]()
	case Int8:
		return reflect.TypeFor[[]int8]()
	case Int16:
		return reflect.TypeFor[[]int16]()
	case Uint16:
		return reflect.TypeFor[[]uint16]()
	case Int32:
		return reflect.TypeFor[[]int32]()
	case Uint32:
		return reflect.TypeFor[[]uint32]()
	case Int64:
		return reflect.TypeFor[[]int64]()
	case Uint64:
		return reflect.TypeFor[[]uint64]()
	case Float32:
		return reflect.TypeFor[[]float32]()
	case Float64:
		return reflect.TypeFor[[]float64]()
	case String, WString:
		return reflect.TypeFor[[]string]()
	}
	return reflect.TypeFor[[]*Message]()
}

// elements writes the elements of a slice whose type sliceLen has checked.
func (e *encoder) elements(t Type, v any) error {
	if sz := t.Kind.size(); sz > 1 {
		if n, _ := e.sliceLen(t, v); n > 0 {
			e.align(sz)
		}
	}
	switch s := v.(type) {
	case []bool:
		for _, x := range s {
			b := byte(0)
			if x {
				b = 1
			}
			e.buf = append(e.buf, b)
		}
	case []uint8:
		e.buf = append(e.buf, s...)
	case []int8:
		for _, x := range s {
			e.buf = append(e.buf, byte(x))
		}
	case []int16:
		for _, x := range s {
			e.buf = e.order.AppendUint16(e.buf, uint16(x))
		}
	case []uint16:
		for _, x := range s {
			e.buf = e.order.AppendUint16(e.buf, x)
		}
	case []int32:
		for _, x := range s {
			e.buf = e.order.AppendUint32(e.buf, uint32(x))
		}
	case []uint32:
		for _, x := range s {
			e.buf = e.order.AppendUint32(e.buf, x)
		}
	case []int64:
		for _, x := range s {
			e.buf = e.order.AppendUint64(e.buf, uint64(x))
		}
	case []uint64:
		for _, x := range s {
			e.buf = e.order.AppendUint64(e.buf, x)
		}
	case []float32:
		for _, x := range s {
			e.buf = e.order.AppendUint32(e.buf, math.Float32bits(x))
		}
	case []float64:
		for _, x := range s {
			e.buf = e.order.AppendUint64(e.buf, math.Float64bits(x))
		}
	case []string:
		for i, x := range s {
			if err := e.str(t, x); err != nil {
				return inElement(i, err)
			}
		}
	case []*Message:
		for i, x := range s {
			if x == nil || x.Type != t.Struct {
				return inElement(i, fmt.Errorf("%w: want a message of %s", ErrValueType, t.Struct.name))
			}
			if err := e.message(x); err != nil {
				return inElement(i, err)
			}
		}
	}
	return nil
}

func (e *encoder) single(t Type, v any) error {
	switch t.Kind {
	case String, WString:
		if x, ok := v.(string); ok {
			return e.str(t, x)
		}
	case StructKind:
		if x, ok := v.(*Message); ok && x != nil && x.Type == t.Struct {
			return e.message(x)
		}
	default:
		if bits, ok := scalarBits(t.Kind, v); ok {
			e.put(t.Kind.size(), bits)
			return nil
		}
	}
	return fmt.Errorf("%w: want %v, have %T", ErrValueType, t.Kind, v)
}

// put writes the low size bytes of bits, aligned to size.
func (e *encoder) put(size int, bits uint64) {
	switch size {
	case 1:
		e.buf = append(e.buf, byte(bits))
	case 2:
		e.align(2)
		e.buf = e.order.AppendUint16(e.buf, uint16(bits))
	case 4:
		e.align(4)
		e.buf = e.order.AppendUint32(e.buf, uint32(bits))
	default:
		e.align(8)
		e.buf = e.order.AppendUint64(e.buf, bits)
	}
}

// scalarBits returns the wire bits of a primitive value and whether its Go
// type is the one kind k takes.
func scalarBits(k Kind, v any) (uint64, bool) {
	switch x := v.(type) {
	case bool:
		if x {
			return 1, k == Bool
		}
		return 0, k == Bool
	case uint8:
		return uint64(x), k == Byte || k == Char || k == Uint8
	case int8:
		return uint64(uint8(x)), k == Int8
	case int16:
		return uint64(uint16(x)), k == Int16
	case uint16:
		return uint64(x), k == Uint16
	case int32:
		return uint64(uint32(x)), k == Int32
	case uint32:
		return uint64(x), k == Uint32
	case int64:
		return uint64(x), k == Int64
	case uint64:
		return x, k == Uint64
	case float32:
		return uint64(math.Float32bits(x)), k == Float32
	case float64:
		return math.Float64bits(x), k == Float64
	}
	return 0, false
}

// str writes a string: a uint32 length then the bytes. A String's length
// counts its NUL terminator; a WString is UTF-16 code units, its length
// the number of units, without a terminator. That wide string form is not
// checked against a vendor: idlc 0.10 has no wstring, and rmw_fastrtps
// sends 4-byte wchar_t instead.
func (e *encoder) str(t Type, s string) error {
	e.align(4)
	if t.Kind == WString {
		u := utf16.Encode([]rune(s))
		if t.StringBound > 0 && len(u) > t.StringBound {
			return fmt.Errorf("%w: %d characters, bound %d", ErrBound, len(u), t.StringBound)
		}
		e.buf = e.order.AppendUint32(e.buf, uint32(len(u)))
		for _, c := range u {
			e.buf = e.order.AppendUint16(e.buf, c)
		}
		return nil
	}
	if t.StringBound > 0 && len(s) > t.StringBound {
		return fmt.Errorf("%w: %d bytes, bound %d", ErrBound, len(s), t.StringBound)
	}
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			return fmt.Errorf("%w: NUL byte inside a string", ErrInvalidValue)
		}
	}
	if uint64(len(s)) >= math.MaxUint32 {
		return fmt.Errorf("%w: string of %d bytes", ErrBound, len(s))
	}
	e.buf = e.order.AppendUint32(e.buf, uint32(len(s)+1))
	e.buf = append(e.buf, s...)
	e.buf = append(e.buf, 0)
	return nil
}
