package msgdef

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
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
	name = fullName(name)
	if v := r.interfaceView(name); v != nil {
		return v.TypeHash(name)
	}
	if _, ok := r.defs[name]; !ok {
		return "", fmt.Errorf("%w: %s", ErrUnknownType, name)
	}
	// Resolving first rejects unknown nested types and cycles.
	if _, err := r.Struct(name); err != nil {
		return "", err
	}
	refs := map[string]bool{}
	r.collectRefs(name, refs)
	names := make([]string, 0, len(refs))
	for n := range refs {
		names = append(names, n)
	}
	sort.Strings(names)
	// json.dumps(separators=(', ', ': ')) of rosidl's dictionaries.
	var b strings.Builder
	b.WriteString(`{"type_description": `)
	r.writeDescription(&b, name)
	b.WriteString(`, "referenced_type_descriptions": [`)
	for i, n := range names {
		if i > 0 {
			b.WriteString(", ")
		}
		r.writeDescription(&b, n)
	}
	b.WriteString("]}")
	sum := sha256.Sum256([]byte(b.String()))
	return "RIHS01_" + hex.EncodeToString(sum[:]), nil
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

func (r *Registry) writeDescription(b *strings.Builder, name string) {
	fields := r.defs[name].Fields
	if len(fields) == 0 {
		fields = []FieldDef{{Name: DummyField, Type: TypeRef{Primitive: "uint8"}}}
	}
	fmt.Fprintf(b, `{"type_name": %q, "fields": [`, name)
	for i, f := range fields {
		if i > 0 {
			b.WriteString(", ")
		}
		// rosidl's capacity: an array's size or a bounded sequence's bound
		// (Len is 0 for an unbounded one), 0 for a single value.
		capacity, nested := 0, ""
		if f.Type.Collection != cdr.Single {
			capacity = f.Type.Len
		}
		if f.Type.Primitive == "" {
			nested = nestedName(f.Type)
		}
		fmt.Fprintf(b, `{"name": %q, "type": {"type_id": %d, "capacity": %d, "string_capacity": %d, "nested_type_name": %q}}`,
			f.Name, typeID(f.Type), capacity, f.Type.StringBound, nested)
	}
	b.WriteString("]}")
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
