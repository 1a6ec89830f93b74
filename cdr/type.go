package cdr

import (
	"fmt"
	"math"
)

// Kind is the element type of a field: a primitive, a string or a struct.
type Kind uint8

// The kinds. Byte (IDL octet), Char and Uint8 share one wire form and the Go
// type uint8; they differ only in what a type description says.
const (
	Bool Kind = iota + 1
	Byte
	Char
	Int8
	Uint8
	Int16
	Uint16
	Int32
	Uint32
	Int64
	Uint64
	Float32
	Float64
	String
	WString
	StructKind
)

var kindNames = [...]string{
	Bool: "bool", Byte: "byte", Char: "char", Int8: "int8", Uint8: "uint8",
	Int16: "int16", Uint16: "uint16", Int32: "int32", Uint32: "uint32",
	Int64: "int64", Uint64: "uint64", Float32: "float32", Float64: "float64",
	String: "string", WString: "wstring", StructKind: "struct",
}

func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// size is the wire size and alignment of a primitive kind, 0 for the others.
func (k Kind) size() int {
	switch k {
	case Bool, Byte, Char, Int8, Uint8:
		return 1
	case Int16, Uint16:
		return 2
	case Int32, Uint32, Float32:
		return 4
	case Int64, Uint64, Float64:
		return 8
	}
	return 0
}

// Collection says whether a field holds one element, a fixed array or a sequence.
type Collection uint8

// The collections.
const (
	Single Collection = iota
	Array
	Sequence
)

// Type is the type of a field.
type Type struct {
	Kind Kind
	// StringBound is the most characters a String or WString may hold; 0 = unbounded.
	StringBound int
	// Struct is the nested type when Kind is StructKind.
	Struct *Struct
	// Collection and Len: an Array holds exactly Len elements; a Sequence
	// holds at most Len elements, or any number when Len is 0.
	Collection Collection
	Len        int
}

// Field is a named member of a struct.
type Field struct {
	Name string
	Type Type
}

// Struct describes a structure type. Build it with [NewStruct], which checks
// the description once so that encoding and decoding need not.
type Struct struct {
	name    string
	fields  []Field
	index   map[string]int
	minSize int // fewest bytes an encoded value can take, alignment aside
	minCost int // fewest octets a decoded value takes in memory (see costOf)
}

// maxArrayLen bounds fixed array lengths so that sizes computed from a
// description cannot overflow.
const maxArrayLen = 1 << 24

// NewStruct checks a type description and returns it ready for use. Nested
// structs must themselves come from NewStruct, which makes recursive types
// impossible to build.
func NewStruct(name string, fields []Field) (*Struct, error) {
	s := &Struct{name: name, fields: append([]Field(nil), fields...), index: make(map[string]int, len(fields))}
	for i, f := range s.fields {
		if f.Name == "" {
			return nil, fmt.Errorf("%w: %s: field %d has no name", ErrInvalidType, name, i)
		}
		if _, dup := s.index[f.Name]; dup {
			return nil, fmt.Errorf("%w: %s: field %q appears twice", ErrInvalidType, name, f.Name)
		}
		s.index[f.Name] = i
		n, err := f.Type.minSize()
		if err != nil {
			return nil, fmt.Errorf("%w: %s.%s: %v", ErrInvalidType, name, f.Name, err)
		}
		s.minSize += n
		if s.minSize > math.MaxInt32 {
			return nil, fmt.Errorf("%w: %s: too large", ErrInvalidType, name)
		}
	}
	s.minCost = messageCost(len(s.fields))
	for _, f := range s.fields {
		s.minCost = min(s.minCost+f.Type.minCost(), math.MaxInt32)
	}
	return s, nil
}

// MustStruct is NewStruct for descriptions fixed in source code; it panics
// on an invalid description.
func MustStruct(name string, fields ...Field) *Struct {
	s, err := NewStruct(name, fields)
	if err != nil {
		panic(err)
	}
	return s
}

// Name returns the struct's name, as given to NewStruct.
func (s *Struct) Name() string { return s.name }

// NumField returns the number of fields.
func (s *Struct) NumField() int { return len(s.fields) }

// Field returns the i-th field in definition order.
func (s *Struct) Field(i int) Field { return s.fields[i] }

// FieldIndex returns the index of the named field, or -1.
func (s *Struct) FieldIndex(name string) int {
	if i, ok := s.index[name]; ok {
		return i
	}
	return -1
}

// elemMinSize is the fewest bytes one element of t takes on the wire.
func (t Type) elemMinSize() int {
	switch t.Kind {
	case String, WString:
		return 4
	case StructKind:
		return t.Struct.minSize
	}
	return t.Kind.size()
}

func (t Type) minSize() (int, error) {
	switch {
	case t.Kind == StructKind && t.Struct == nil:
		return 0, fmt.Errorf("struct kind without a struct")
	case t.Kind != StructKind && t.Struct != nil:
		return 0, fmt.Errorf("%v kind with a struct", t.Kind)
	case t.Kind == 0 || t.Kind > StructKind:
		return 0, fmt.Errorf("unknown kind %d", t.Kind)
	case t.StringBound < 0 || (t.StringBound > 0 && t.Kind != String && t.Kind != WString):
		return 0, fmt.Errorf("string bound %d on %v", t.StringBound, t.Kind)
	case t.Len < 0 || t.Len > maxArrayLen:
		return 0, fmt.Errorf("length %d out of range", t.Len)
	}
	switch t.Collection {
	case Single:
		if t.Len != 0 {
			return 0, fmt.Errorf("length on a single element")
		}
		return t.elemMinSize(), nil
	case Array:
		if t.Len == 0 {
			return 0, fmt.Errorf("array of no elements")
		}
		return t.Len * t.elemMinSize(), nil
	case Sequence:
		return 4, nil
	}
	return 0, fmt.Errorf("unknown collection %d", t.Collection)
}
