package msgdef

import (
	"strings"

	"github.com/actbridge/actbridge/cdr"
)

// TypeHash returns the RIHS01 type hash of a definition ("RIHS01_" and 64
// hex digits), as rosidl computes it since Iron and rmw announces it in
// endpoint user data ("typehash=…;"): SHA-256 of a JSON description of
// the type's fields and of every type it nests, without constants or
// default values. Names are as for Struct; a service ("pkg/srv/X") or an
// action ("pkg/action/X", and its "X_SendGoal" and "X_GetResult"
// services) gets the hash rosidl gives the whole interface, which rmw
// announces for service endpoints.
func (r *Registry) TypeHash(name string) (string, error) {
	d, err := r.Describe(name)
	if err != nil {
		return "", err
	}
	return d.Hash(), nil
}

// fullName turns "pkg/Type" into "pkg/msg/Type".
func fullName(name string) string {
	if strings.Count(name, "/") == 1 {
		p, t, _ := strings.Cut(name, "/")
		return p + "/msg/" + t
	}
	return name
}

// nestedName is the full name of the type a nested field refers to.
func nestedName(t TypeRef) string {
	ns := t.Namespace
	if ns == "" {
		ns = "msg"
	}
	return t.Package + "/" + ns + "/" + t.Name
}

func (r *Registry) collectRefs(name string, refs map[string]bool) {
	for _, f := range r.defs[name].Fields {
		if f.Type.Primitive == "" && !refs[nestedName(f.Type)] {
			refs[nestedName(f.Type)] = true
			r.collectRefs(nestedName(f.Type), refs)
		}
	}
}

// typeID is type_description_interfaces/FieldType's id of a field type:
// the element's id, plus 48 for an array, 96 for a bounded and 144 for an
// unbounded sequence.
func typeID(t TypeRef) int {
	id := 1 // nested type
	switch t.Primitive {
	case "int8":
		id = 2
	case "uint8", "char": // ROS char is IDL uint8
		id = 3
	case "int16":
		id = 4
	case "uint16":
		id = 5
	case "int32":
		id = 6
	case "uint32":
		id = 7
	case "int64":
		id = 8
	case "uint64":
		id = 9
	case "float32":
		id = 10
	case "float64":
		id = 11
	case "bool":
		id = 15
	case "byte":
		id = 16
	case "string":
		id = 17
		if t.StringBound > 0 {
			id = 21
		}
	case "wstring":
		id = 18
		if t.StringBound > 0 {
			id = 22
		}
	}
	switch {
	case t.Collection == cdr.Array:
		id += 48
	case t.Collection == cdr.Sequence && t.Len > 0:
		id += 96
	case t.Collection == cdr.Sequence:
		id += 144
	}
	return id
}
