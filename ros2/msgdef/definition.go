package msgdef

import (
	"strconv"
	"strings"

	"github.com/actbridge/actbridge/cdr"
)

// Definition is one parsed message: a .msg file, or one part of a .srv
// (Request, Response) or .action (Goal, Result, Feedback).
type Definition struct {
	Package string // "std_msgs"
	// Namespace is "msg", "srv" or "action", the folder the file lives in.
	Namespace string
	// Name is the type name: "Header", "AddTwoInts_Request", "Fibonacci_Goal".
	Name      string
	File      string // where the text came from, for errors
	Fields    []FieldDef
	Constants []Constant
}

// FullName is the name a registry knows the definition by: "pkg/msg/Name".
func (d *Definition) FullName() string {
	return d.Package + "/" + d.Namespace + "/" + d.Name
}

// FieldDef is one field of a definition.
type FieldDef struct {
	Name string
	Type TypeRef
	// Default is the default value in the Go form cdr uses for the field
	// (float64, []int32, string, …), or nil when the definition gives none.
	Default any
	Line    int
}

// TypeRef is a field's type as written, not yet resolved.
type TypeRef struct {
	// Primitive is the ROS 2 primitive ("float64", "string", "byte", …), or
	// "" for a nested type.
	Primitive string
	// Package and Name of a nested type; Package is filled with the
	// definition's own package when the text names none.
	Package, Name string
	// Namespace of a nested type: "" is "msg", the only one .msg text can
	// name; action types derived by rosidl nest "action" types.
	Namespace   string
	StringBound int // string<=N, wstring<=N; 0 = unbounded
	// Collection and Len as in cdr.Type: T[N] is an Array of Len N, T[] an
	// unbounded Sequence, T[<=N] a Sequence of Len N.
	Collection cdr.Collection
	Len        int
}

// String writes the type as a .msg file does.
func (t TypeRef) String() string {
	var b strings.Builder
	if t.Primitive != "" {
		b.WriteString(t.Primitive)
		if t.StringBound > 0 {
			b.WriteString("<=")
			b.WriteString(strconv.Itoa(t.StringBound))
		}
	} else if t.Namespace != "" && t.Namespace != "msg" {
		b.WriteString(t.Package + "/" + t.Namespace + "/" + t.Name)
	} else {
		b.WriteString(t.Package + "/" + t.Name)
	}
	switch {
	case t.Collection == cdr.Array:
		b.WriteString("[" + strconv.Itoa(t.Len) + "]")
	case t.Collection == cdr.Sequence && t.Len > 0:
		b.WriteString("[<=" + strconv.Itoa(t.Len) + "]")
	case t.Collection == cdr.Sequence:
		b.WriteString("[]")
	}
	return b.String()
}

// Constant is a named value a definition declares; constants are not
// part of the serialized message.
type Constant struct {
	Name string
	// Type is the primitive type ("int8", "string", …).
	Type string
	// Value is in the Go form cdr uses for Type.
	Value any
	Line  int
}

// primitiveKind maps a ROS 2 primitive name to its CDR kind. byte is IDL
// octet and char is IDL uint8, as rosidl maps them.
func primitiveKind(name string) (cdr.Kind, bool) {
	switch name {
	case "bool":
		return cdr.Bool, true
	case "byte":
		return cdr.Byte, true
	case "char", "uint8":
		return cdr.Uint8, true
	case "int8":
		return cdr.Int8, true
	case "int16":
		return cdr.Int16, true
	case "uint16":
		return cdr.Uint16, true
	case "int32":
		return cdr.Int32, true
	case "uint32":
		return cdr.Uint32, true
	case "int64":
		return cdr.Int64, true
	case "uint64":
		return cdr.Uint64, true
	case "float32":
		return cdr.Float32, true
	case "float64":
		return cdr.Float64, true
	case "string":
		return cdr.String, true
	case "wstring":
		return cdr.WString, true
	}
	return 0, false
}
