package msgdef

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/actbridge/actbridge/cdr"
)

// TypeDescription is type_description_interfaces/msg/TypeDescription: a
// type and every type it nests, field by field, as rosidl hashes it
// (RIHS01) and a node's ~/get_type_description answers it. The JSON
// names are the ROS field names, so the JSON form of the cdr message
// reads into it ([DescriptionOf]) and back ([TypeDescription.Message]).
type TypeDescription struct {
	Type       IndividualTypeDescription   `json:"type_description"`
	Referenced []IndividualTypeDescription `json:"referenced_type_descriptions"`
}

// IndividualTypeDescription is one type of a description: its full name
// ("pkg/msg/X") and its fields.
type IndividualTypeDescription struct {
	Name   string  `json:"type_name"`
	Fields []Field `json:"fields"`
}

// Field is one field of a described type. DefaultValue is the literal
// of the source file; it is not part of the hash, and this package
// neither fills nor reads it.
type Field struct {
	Name         string    `json:"name"`
	Type         FieldType `json:"type"`
	DefaultValue string    `json:"default_value"`
}

// FieldType is a field's type: TypeID is one of FieldType.msg's
// constants (element id, +48 array, +96 bounded sequence, +144
// unbounded sequence); Capacity the array length or sequence bound;
// StringCapacity a bounded string's bound; NestedTypeName the full name
// of a nested type.
type FieldType struct {
	TypeID         uint8  `json:"type_id"`
	Capacity       uint64 `json:"capacity"`
	StringCapacity uint64 `json:"string_capacity"`
	NestedTypeName string `json:"nested_type_name"`
}

// Bounds on a description read from the network: what one can make this
// package hold. ROS types are far smaller (GetTypeDescription itself
// describes 12 types; the largest bridge type has 14 fields).
const (
	MaxDescribedTypes  = 256  // the type and the types it references
	MaxDescribedFields = 1024 // fields of one type
	// MaxDescribedTotal bounds the fields of all its types together:
	// types × fields alone let one description cost gigabytes to build.
	MaxDescribedTotal = 4096
	maxDescribedName  = 255     // a type or field name, as FieldType.msg bounds nested_type_name
	maxZeroElements   = 1 << 16 // elements a zero value of one type holds (fixed arrays multiply)
)

// Describe returns the description rosidl makes of a type (names as for
// TypeHash, a whole service or action too): the type, then every type
// it nests once, sorted by name; an empty message has rosidl's dummy
// field. It is what TypeHash hashes and what ~/get_type_description
// answers for the type.
func (r *Registry) Describe(name string) (TypeDescription, error) {
	name = fullName(name)
	if v := r.interfaceView(name); v != nil {
		return v.Describe(name)
	}
	if _, ok := r.defs[name]; !ok {
		return TypeDescription{}, fmt.Errorf("%w: %s", ErrUnknownType, name)
	}
	// Resolving first rejects unknown nested types and cycles.
	if _, err := r.Struct(name); err != nil {
		return TypeDescription{}, err
	}
	refs := map[string]bool{}
	r.collectRefs(name, refs)
	names := make([]string, 0, len(refs))
	for n := range refs {
		names = append(names, n)
	}
	sort.Strings(names)
	d := TypeDescription{Type: r.individual(name), Referenced: make([]IndividualTypeDescription, 0, len(names))}
	for _, n := range names {
		d.Referenced = append(d.Referenced, r.individual(n))
	}
	return d, nil
}

func (r *Registry) individual(name string) IndividualTypeDescription {
	defs := r.defs[name].Fields
	if len(defs) == 0 {
		defs = []FieldDef{{Name: DummyField, Type: TypeRef{Primitive: "uint8"}}}
	}
	fields := make([]Field, len(defs))
	for i, f := range defs {
		// rosidl's capacity: an array's size or a bounded sequence's bound
		// (Len is 0 for an unbounded one), 0 for a single value.
		ft := FieldType{TypeID: uint8(typeID(f.Type)), StringCapacity: uint64(f.Type.StringBound)}
		if f.Type.Collection != cdr.Single {
			ft.Capacity = uint64(f.Type.Len)
		}
		if f.Type.Primitive == "" {
			ft.NestedTypeName = nestedName(f.Type)
		}
		fields[i] = Field{Name: f.Name, Type: ft}
	}
	return IndividualTypeDescription{Name: name, Fields: fields}
}

// Hash is the RIHS01 hash of d as it stands ("RIHS01_" and 64 hex
// digits): SHA-256 of rosidl's json.dumps(separators=(', ', ': ')) of
// the description without default values.
func (d TypeDescription) Hash() string {
	var b strings.Builder
	b.WriteString(`{"type_description": `)
	d.Type.writeJSON(&b)
	b.WriteString(`, "referenced_type_descriptions": [`)
	for i, t := range d.Referenced {
		if i > 0 {
			b.WriteString(", ")
		}
		t.writeJSON(&b)
	}
	b.WriteString("]}")
	sum := sha256.Sum256([]byte(b.String()))
	return "RIHS01_" + hex.EncodeToString(sum[:])
}

func (t IndividualTypeDescription) nonNil() IndividualTypeDescription {
	if t.Fields == nil {
		t.Fields = []Field{}
	}
	return t
}

func (t IndividualTypeDescription) writeJSON(b *strings.Builder) {
	b.WriteString(`{"type_name": ` + strconv.Quote(t.Name) + `, "fields": [`)
	for i, f := range t.Fields {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(b, `{"name": %q, "type": {"type_id": %d, "capacity": %d, "string_capacity": %d, "nested_type_name": %q}}`,
			f.Name, f.Type.TypeID, f.Type.Capacity, f.Type.StringCapacity, f.Type.NestedTypeName)
	}
	b.WriteString("]}")
}

// DescriptionOf reads a type_description_interfaces/msg/TypeDescription
// message (as a GetTypeDescription response carries it).
func DescriptionOf(m *cdr.Message) (TypeDescription, error) {
	var d TypeDescription
	b, _ := m.MarshalJSON() // never fails
	if err := json.Unmarshal(b, &d); err != nil {
		return d, fmt.Errorf("%w: not a type description: %v", ErrDescription, err)
	}
	return d, nil
}

// Message makes d a value of s, type_description_interfaces/msg/TypeDescription
// of a distro's set.
func (d TypeDescription) Message(s *cdr.Struct) (*cdr.Message, error) {
	// JSON null is no sequence: empty ones are written [].
	refs := make([]IndividualTypeDescription, len(d.Referenced))
	for i, t := range d.Referenced {
		refs[i] = t.nonNil()
	}
	d.Type, d.Referenced = d.Type.nonNil(), refs
	b, err := json.Marshal(d)
	if err != nil {
		return nil, err
	}
	return cdr.FromJSON(s, b)
}

// FromDescription builds the definitions a description received from a
// node gives for type name, and proves them: d must describe name, be
// well formed within the bounds above (every nested type described once,
// nothing described that is not used, no cycle), and the types built
// from it must hash to hash, the RIHS01 hash the node announced for the
// type. What the returned registry encodes is then the node's own type.
// Any failure is ErrDescription or ErrHashMismatch (wrapping the cause).
func FromDescription(d TypeDescription, name, hash string) (*Registry, error) {
	if d.Type.Name != name {
		return nil, fmt.Errorf("%w: describes %q, not %s", ErrDescription, clip(d.Type.Name), name)
	}
	if n := 1 + len(d.Referenced); n > MaxDescribedTypes {
		return nil, fmt.Errorf("%w: %d types, at most %d", ErrDescription, n, MaxDescribedTypes)
	}
	all := append([]IndividualTypeDescription{d.Type}, d.Referenced...)
	total := 0
	for _, t := range all {
		total += len(t.Fields)
	}
	if total > MaxDescribedTotal {
		return nil, fmt.Errorf("%w: %d fields in all, at most %d", ErrDescription, total, MaxDescribedTotal)
	}
	described := make(map[string]bool, len(all))
	for _, t := range all {
		if !validFullName(t.Name) {
			return nil, fmt.Errorf("%w: type name %q: want pkg/msg|srv|action/Type", ErrDescription, clip(t.Name))
		}
		if described[t.Name] {
			return nil, fmt.Errorf("%w: %s described twice", ErrDescription, t.Name)
		}
		described[t.Name] = true
	}
	r := NewRegistry()
	for _, t := range all {
		def, err := definitionOf(t, described)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrDescription, t.Name, err)
		}
		r.defs[def.FullName()] = def
	}
	refs := map[string]bool{}
	r.collectRefs(name, refs)
	for _, t := range d.Referenced {
		if !refs[t.Name] {
			return nil, fmt.Errorf("%w: %s is described but %s does not nest it", ErrDescription, t.Name, name)
		}
	}
	sizes := map[string]int{}
	for n := range described {
		// A zero value is made for every request and every element a
		// request sends: each type's must be small.
		if _, err := r.zeroElements(n, sizes); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrDescription, err)
		}
		if _, err := r.Struct(n); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrDescription, err)
		}
	}
	got, err := r.TypeHash(name)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrDescription, err)
	}
	if got != hash {
		return nil, fmt.Errorf("%w: %s described as %s, announced as %q", ErrHashMismatch, name, got, clip(hash))
	}
	return r, nil
}

// definitionOf turns one described type into a definition; described
// holds the names the description gives.
func definitionOf(t IndividualTypeDescription, described map[string]bool) (*Definition, error) {
	if len(t.Fields) == 0 || len(t.Fields) > MaxDescribedFields {
		return nil, fmt.Errorf("%d fields, want 1 to %d", len(t.Fields), MaxDescribedFields)
	}
	parts := strings.Split(t.Name, "/")
	d := &Definition{Package: parts[0], Namespace: parts[1], Name: parts[2], File: "(type description of " + t.Name + ")"}
	seen := map[string]bool{}
	for i, f := range t.Fields {
		if len(f.Name) > maxDescribedName || !validFieldName(f.Name) {
			return nil, fmt.Errorf("field %d: name %q: want lower case letters, digits and single _", i, clip(f.Name))
		}
		if seen[f.Name] {
			return nil, fmt.Errorf("field %s twice", f.Name)
		}
		seen[f.Name] = true
		ref, err := typeRefOf(f.Type, described)
		if err != nil {
			return nil, fmt.Errorf("field %s: %w", f.Name, err)
		}
		d.Fields = append(d.Fields, FieldDef{Name: f.Name, Type: ref, Line: i + 1})
	}
	return d, nil
}

// typeRefOf is typeID's inverse: the type a FieldType describes. ROS
// char is described as uint8 (rosidl maps it so), and becomes uint8;
// long double, IDL char and wchar, and fixed strings have no ROS .msg
// form and are refused.
func typeRefOf(ft FieldType, described map[string]bool) (TypeRef, error) {
	var t TypeRef
	id := int(ft.TypeID)
	if id < 1 || id > 192 {
		return t, fmt.Errorf("type id %d: not a field type", id)
	}
	coll := (id - 1) / 48
	base := id - 48*coll
	switch coll {
	case 1:
		t.Collection = cdr.Array
	case 2, 3:
		t.Collection = cdr.Sequence
	}
	prim := map[int]string{2: "int8", 3: "uint8", 4: "int16", 5: "uint16", 6: "int32", 7: "uint32", 8: "int64", 9: "uint64",
		10: "float32", 11: "float64", 15: "bool", 16: "byte", 17: "string", 18: "wstring", 21: "string", 22: "wstring"}
	switch name, ok := prim[base]; {
	case base == 1:
		if !described[ft.NestedTypeName] {
			return t, fmt.Errorf("nested type %q is not described", clip(ft.NestedTypeName))
		}
		parts := strings.Split(ft.NestedTypeName, "/")
		t.Package, t.Namespace, t.Name = parts[0], parts[1], parts[2]
		if t.Namespace == "msg" {
			t.Namespace = ""
		}
	case !ok:
		return t, fmt.Errorf("type id %d: no ROS 2 .msg type", id)
	case ft.NestedTypeName != "":
		return t, fmt.Errorf("type id %d names nested type %q", id, clip(ft.NestedTypeName))
	default:
		t.Primitive = name
	}
	bounded := coll == 1 || coll == 2 // an array's length or a bounded sequence's bound
	switch {
	case bounded && (ft.Capacity < 1 || ft.Capacity > maxLen):
		return t, fmt.Errorf("type id %d: capacity %d, want 1 to %d", id, ft.Capacity, maxLen)
	case !bounded && ft.Capacity != 0:
		return t, fmt.Errorf("type id %d takes no capacity, got %d", id, ft.Capacity)
	}
	t.Len = int(ft.Capacity)
	switch boundedString := base == 21 || base == 22; {
	case boundedString && (ft.StringCapacity < 1 || ft.StringCapacity > maxLen):
		return t, fmt.Errorf("type id %d: string capacity %d, want 1 to %d", id, ft.StringCapacity, maxLen)
	case !boundedString && ft.StringCapacity != 0:
		return t, fmt.Errorf("type id %d takes no string capacity, got %d", id, ft.StringCapacity)
	}
	t.StringBound = int(ft.StringCapacity)
	return t, nil
}

// zeroElements counts the elements a zero value of name holds, at most
// maxZeroElements (fixed arrays of nested types multiply), so that
// making one cannot exhaust memory; sizes memoizes per type. Cycles are
// left to Struct: a type met again while in progress counts 1.
func (r *Registry) zeroElements(name string, sizes map[string]int) (int, error) {
	if n, ok := sizes[name]; ok {
		return n, nil
	}
	sizes[name] = 1 // in progress
	total := 0
	for _, f := range r.defs[name].Fields {
		n := 1
		if f.Type.Primitive == "" && f.Type.Collection != cdr.Sequence {
			var err error
			if n, err = r.zeroElements(nestedName(f.Type), sizes); err != nil {
				return 0, err
			}
		}
		if f.Type.Collection == cdr.Array {
			n *= f.Type.Len // each factor is at most 1<<24 and n at most 1<<20: no overflow
		}
		if total += n; total > maxZeroElements {
			return 0, fmt.Errorf("%s: a value holds more than %d elements", name, maxZeroElements)
		}
	}
	sizes[name] = total
	return total, nil
}

// validFullName reports whether s is "pkg/ns/Type" as descriptions name
// types: ns is msg, srv or action; Type may carry the suffixes rosidl
// adds (X_Request, X_SendGoal_Response).
func validFullName(s string) bool {
	parts := strings.Split(s, "/")
	if len(s) > maxDescribedName || len(parts) != 3 || !validPackage(parts[0]) {
		return false
	}
	switch parts[1] {
	case "msg", "srv", "action":
	default:
		return false
	}
	return validTypeName(strings.ReplaceAll(parts[2], "_", "")) && !strings.HasSuffix(parts[2], "_") && !strings.Contains(parts[2], "__")
}

// clip shortens a name from the network for an error message.
func clip(s string) string {
	if len(s) > 64 {
		s = s[:64] + "…"
	}
	return string(bytes.ToValidUTF8([]byte(s), []byte("?")))
}
