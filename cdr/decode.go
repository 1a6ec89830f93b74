package cdr

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"unicode/utf16"
)

// Decode reads a value of s from data, encapsulation header first. Bytes
// after the value (the padding DDS may add) are ignored, as are the
// header's options. The value may take at most DefaultLimit(len(data))
// octets of memory: data that would decode to more (many small structs:
// an 8 MiB GoalStatusArray took 82 MiB) fails with ErrTooLarge, found
// before the large allocations are made.
func Decode(s *Struct, data []byte) (*Message, error) {
	return DecodeLimit(s, data, DefaultLimit(len(data)))
}

// DefaultLimit is the memory Decode allows a value of n encoded octets:
// four times n, plus 1 MiB so that a small message of small structs fits.
func DefaultLimit(n int) int { return 4*n + 1<<20 }

// DecodeLimit is Decode with at most limit octets of memory for the value.
func DecodeLimit(s *Struct, data []byte, limit int) (*Message, error) {
	order, body, err := Body(data)
	if err != nil {
		return nil, err
	}
	d := decoder{buf: body, order: order, left: limit}
	return d.message(s)
}

// Body reads data's encapsulation header (CDR_BE or CDR_LE): the byte
// order it names, and the octets after it, from whose start alignment
// counts. For readers of one type that need no Message.
func Body(data []byte) (binary.ByteOrder, []byte, error) {
	if len(data) < headerSize {
		return nil, nil, fmt.Errorf("%w: %d bytes, no encapsulation header", ErrTruncated, len(data))
	}
	switch {
	case data[0] == 0 && data[1] == 0:
		return binary.BigEndian, data[headerSize:], nil
	case data[0] == 0 && data[1] == 1:
		return binary.LittleEndian, data[headerSize:], nil
	}
	return nil, nil, fmt.Errorf("%w: %#02x%02x", ErrEncapsulation, data[0], data[1])
}

// decoder reads from buf, whose first byte follows the encapsulation
// header, so that alignment is the offset into buf.
type decoder struct {
	buf   []byte
	pos   int
	order binary.ByteOrder
	left  int // octets of memory the value may still take
}

// charge takes n octets of memory from what the value may still take.
func (d *decoder) charge(n int) error {
	if n > d.left {
		return fmt.Errorf("%w: %d more octets, %d left", ErrTooLarge, n, d.left)
	}
	d.left -= n
	return nil
}

// take aligns to align and returns the next n bytes.
func (d *decoder) take(align, n int) ([]byte, error) {
	p := (d.pos + align - 1) &^ (align - 1)
	if p > len(d.buf) || n > len(d.buf)-p {
		return nil, fmt.Errorf("%w: need %d bytes at offset %d of %d", ErrTruncated, n, p, len(d.buf))
	}
	d.pos = p + n
	return d.buf[p:d.pos], nil
}

// count reads a sequence or string length and checks that the bytes left
// can hold that many elements of at least minSize bytes each, so that
// nothing is allocated for data that is not there.
func (d *decoder) count(minSize int) (int, error) {
	b, err := d.take(4, 4)
	if err != nil {
		return 0, err
	}
	n := d.order.Uint32(b)
	if minSize < 1 {
		minSize = 1
	}
	if uint64(n)*uint64(minSize) > uint64(len(d.buf)-d.pos) {
		return 0, fmt.Errorf("%w: %d elements, %d bytes left", ErrTruncated, n, len(d.buf)-d.pos)
	}
	return int(n), nil
}

func (d *decoder) message(s *Struct) (*Message, error) {
	if err := d.charge(messageCost(len(s.fields))); err != nil {
		return nil, err
	}
	m := &Message{Type: s, Fields: make([]any, len(s.fields))}
	for i, f := range s.fields {
		v, err := d.field(f.Type)
		if err != nil {
			return nil, inField(f.Name, err)
		}
		m.Fields[i] = v
	}
	return m, nil
}

func (d *decoder) field(t Type) (any, error) {
	switch t.Collection {
	case Array:
		if t.Len*t.elemMinSize() > len(d.buf)-d.pos {
			return nil, fmt.Errorf("%w: array of %d elements, %d bytes left", ErrTruncated, t.Len, len(d.buf)-d.pos)
		}
		return d.elements(t, t.Len)
	case Sequence:
		n, err := d.count(t.elemMinSize())
		if err != nil {
			return nil, err
		}
		if t.Len > 0 && n > t.Len {
			return nil, fmt.Errorf("%w: %d elements, bound %d", ErrBound, n, t.Len)
		}
		return d.elements(t, n)
	}
	return d.single(t)
}

// elements reads n elements; the caller has checked that the data can hold them.
func (d *decoder) elements(t Type, n int) (any, error) {
	elem := t.Kind.size()
	switch t.Kind {
	case String, WString:
		elem = stringHdr
	case StructKind:
		elem = pointer
		// Every element will take at least this much: refuse before
		// allocating any.
		if int64(n)*int64(pointer+t.Struct.minCost) > int64(d.left) {
			return nil, fmt.Errorf("%w: %d elements of %s, at least %d octets each, %d left", ErrTooLarge, n, t.Struct.name, pointer+t.Struct.minCost, d.left)
		}
	}
	if err := d.charge(sliceCost + elem*n); err != nil {
		return nil, err
	}
	var raw []byte
	if sz := t.Kind.size(); sz > 0 && n > 0 {
		var err error
		if raw, err = d.take(sz, sz*n); err != nil {
			return nil, err
		}
	}
	o := d.order
	switch t.Kind {
	case Bool:
		s := make([]bool, n)
		for i, b := range raw {
			if b > 1 {
				return nil, inElement(i, fmt.Errorf("%w: bool %d", ErrInvalidValue, b))
			}
			s[i] = b == 1
		}
		return s, nil
	case Byte, Char, Uint8:
		return append(make([]uint8, 0, n), raw...), nil
	case Int8:
		s := make([]int8, n)
		for i, b := range raw {
			s[i] = int8(b)
		}
		return s, nil
	case Int16:
		s := make([]int16, n)
		for i := range s {
			s[i] = int16(o.Uint16(raw[2*i:]))
		}
		return s, nil
	case Uint16:
		s := make([]uint16, n)
		for i := range s {
			s[i] = o.Uint16(raw[2*i:])
		}
		return s, nil
	case Int32:
		s := make([]int32, n)
		for i := range s {
			s[i] = int32(o.Uint32(raw[4*i:]))
		}
		return s, nil
	case Uint32:
		s := make([]uint32, n)
		for i := range s {
			s[i] = o.Uint32(raw[4*i:])
		}
		return s, nil
	case Int64:
		s := make([]int64, n)
		for i := range s {
			s[i] = int64(o.Uint64(raw[8*i:]))
		}
		return s, nil
	case Uint64:
		s := make([]uint64, n)
		for i := range s {
			s[i] = o.Uint64(raw[8*i:])
		}
		return s, nil
	case Float32:
		s := make([]float32, n)
		for i := range s {
			s[i] = math.Float32frombits(o.Uint32(raw[4*i:]))
		}
		return s, nil
	case Float64:
		s := make([]float64, n)
		for i := range s {
			s[i] = math.Float64frombits(o.Uint64(raw[8*i:]))
		}
		return s, nil
	case String, WString:
		s := make([]string, n)
		for i := range s {
			x, err := d.str(t)
			if err != nil {
				return nil, inElement(i, err)
			}
			s[i] = x
		}
		return s, nil
	}
	s := make([]*Message, n)
	for i := range s {
		m, err := d.message(t.Struct)
		if err != nil {
			return nil, inElement(i, err)
		}
		s[i] = m
	}
	return s, nil
}

func (d *decoder) single(t Type) (any, error) {
	switch t.Kind {
	case String, WString:
		if err := d.charge(stringHdr); err != nil {
			return nil, err
		}
		return d.str(t)
	case StructKind:
		return d.message(t.Struct)
	}
	sz := t.Kind.size()
	if sz > 1 {
		if err := d.charge(boxCost); err != nil {
			return nil, err
		}
	}
	b, err := d.take(sz, sz)
	if err != nil {
		return nil, err
	}
	o := d.order
	switch t.Kind {
	case Bool:
		if b[0] > 1 {
			return nil, fmt.Errorf("%w: bool %d", ErrInvalidValue, b[0])
		}
		return b[0] == 1, nil
	case Byte, Char, Uint8:
		return b[0], nil
	case Int8:
		return int8(b[0]), nil
	case Int16:
		return int16(o.Uint16(b)), nil
	case Uint16:
		return o.Uint16(b), nil
	case Int32:
		return int32(o.Uint32(b)), nil
	case Uint32:
		return o.Uint32(b), nil
	case Int64:
		return int64(o.Uint64(b)), nil
	case Uint64:
		return o.Uint64(b), nil
	case Float32:
		return math.Float32frombits(o.Uint32(b)), nil
	}
	return math.Float64frombits(o.Uint64(b)), nil
}

// str reads a string in the form encoder.str writes. A String of length 0
// (no terminator) is read as empty, as Fast CDR does.
func (d *decoder) str(t Type) (string, error) {
	if t.Kind == WString {
		n, err := d.count(2)
		if err != nil {
			return "", err
		}
		if t.StringBound > 0 && n > t.StringBound {
			return "", fmt.Errorf("%w: %d characters, bound %d", ErrBound, n, t.StringBound)
		}
		if err := d.charge(9 * n); err != nil { // the UTF-16 units, the runes and the UTF-8 string
			return "", err
		}
		raw, err := d.take(2, 2*n)
		if err != nil {
			return "", err
		}
		u := make([]uint16, n)
		for i := range u {
			u[i] = d.order.Uint16(raw[2*i:])
		}
		return string(utf16.Decode(u)), nil
	}
	n, err := d.count(1)
	if err != nil {
		return "", err
	}
	if n == 0 {
		return "", nil
	}
	if t.StringBound > 0 && n-1 > t.StringBound {
		return "", fmt.Errorf("%w: %d bytes, bound %d", ErrBound, n-1, t.StringBound)
	}
	if err := d.charge(n - 1); err != nil {
		return "", err
	}
	raw, _ := d.take(1, n)
	if raw[n-1] != 0 {
		return "", fmt.Errorf("%w: string without NUL terminator", ErrInvalidValue)
	}
	if bytes.IndexByte(raw[:n-1], 0) >= 0 {
		return "", fmt.Errorf("%w: NUL byte inside a string", ErrInvalidValue)
	}
	return string(raw[:n-1]), nil
}
