package msgdef

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/actbridge/actbridge/cdr"
)

// ledService is a service whose request nests a message holding an array
// of another, with a bounded string, a char and an empty response part:
// every FieldType form a learned request meets.
func ledRegistry(t testing.TB) *Registry {
	t.Helper()
	r := testRegistry(t)
	for _, f := range []struct{ path, src string }{
		{"led/msg/Color.msg", "float32 r\nfloat32 g\nfloat32 b\nchar c\n"},
		{"led/msg/Pattern.msg", "led/Color[3] colors\nstring<=8 name\nuint8[<=4] steps\nbuiltin_interfaces/Duration[] times\n"},
		{"led/msg/Off.msg", "# no fields\n"},
		{"led/srv/SetLed.srv", "Pattern pattern\nstring[<=2] tags\n---\n"},
	} {
		if err := r.addSource("led", f.path, []byte(f.src)); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// Described types built again hash as the originals: for messages,
// services (the description rmw's hash covers) and actions' parts.
func TestDescriptionBuildsBackTheTypesItDescribes(t *testing.T) {
	r := ledRegistry(t)
	for _, name := range []string{"led/srv/SetLed", "led/msg/Pattern", "led/msg/Off", "trajectory_msgs/msg/JointTrajectory", "action_msgs/srv/CancelGoal"} {
		t.Run(name, func(t *testing.T) {
			d, err := r.Describe(name)
			if err != nil {
				t.Fatal(err)
			}
			want, err := r.TypeHash(name)
			if err != nil || d.Hash() != want {
				t.Fatalf("Describe hashes %s, TypeHash %s %v", d.Hash(), want, err)
			}
			got, err := FromDescription(d, name, want)
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range append([]string{name}, namesOf(d.Referenced)...) {
				b, err := got.Struct(n)
				if err != nil {
					t.Fatalf("%s: %v", n, err)
				}
				if r.Definition(n) == nil {
					continue // a whole service's types exist only in descriptions
				}
				a, err := r.Struct(n)
				if err != nil {
					t.Fatal(err)
				}
				if !sameLayout(a, b) {
					t.Errorf("%s: built %v, want %v", n, fieldsOf(b), fieldsOf(a))
				}
			}
		})
	}
}

func namesOf(ts []IndividualTypeDescription) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Name)
	}
	return out
}

// sameLayout compares two structs field by field, char and uint8 alike.
func sameLayout(a, b *cdr.Struct) bool {
	return fieldsOf(a) == fieldsOf(b)
}

func fieldsOf(s *cdr.Struct) string {
	var b strings.Builder
	for i := range s.NumField() {
		f := s.Field(i).Type
		k := f.Kind
		if k == cdr.Char {
			k = cdr.Uint8
		}
		name := k.String()
		if f.Struct != nil {
			name = f.Struct.Name()
		}
		fmt.Fprintf(&b, "%s %s %d/%d/%d; ", s.Field(i).Name, name, f.Collection, f.Len, f.StringBound)
	}
	return b.String()
}

// A description goes through its cdr message unchanged.
func TestDescriptionMessageRoundTrip(t *testing.T) {
	r := ledRegistry(t)
	for _, src := range []struct{ path, text string }{
		{"type_description_interfaces/msg/FieldType.msg", "uint8 type_id 0\nuint64 capacity\nuint64 string_capacity\nstring<=255 nested_type_name\n"},
		{"type_description_interfaces/msg/Field.msg", "string name\nFieldType type\nstring default_value\n"},
		{"type_description_interfaces/msg/IndividualTypeDescription.msg", "string<=255 type_name\nField[] fields\n"},
		{"type_description_interfaces/msg/TypeDescription.msg", "IndividualTypeDescription type_description\nIndividualTypeDescription[] referenced_type_descriptions\n"},
	} {
		if err := r.addSource("type_description_interfaces", src.path, []byte(src.text)); err != nil {
			t.Fatal(err)
		}
	}
	s, err := r.Struct("type_description_interfaces/msg/TypeDescription")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"led/srv/SetLed", "builtin_interfaces/msg/Time"} {
		d, err := r.Describe(name)
		if err != nil {
			t.Fatal(err)
		}
		m, err := d.Message(s)
		if err != nil {
			t.Fatal(err)
		}
		b, err := cdr.Encode(m, cdr.LittleEndian)
		if err != nil {
			t.Fatal(err)
		}
		m2, err := cdr.Decode(s, b)
		if err != nil {
			t.Fatal(err)
		}
		d2, err := DescriptionOf(m2)
		if err != nil {
			t.Fatal(err)
		}
		if d2.Hash() != d.Hash() || d2.Type.Name != name || len(d2.Referenced) != len(d.Referenced) {
			t.Errorf("%s: back as %+v", name, d2)
		}
	}
}

// Every malformed description is refused with ErrDescription (or
// ErrHashMismatch), before anything is built from it.
func TestMalformedDescriptionsAreRefused(t *testing.T) {
	r := ledRegistry(t)
	const name = "led/srv/SetLed"
	good, err := r.Describe(name)
	if err != nil {
		t.Fatal(err)
	}
	hash := good.Hash()
	// edit returns a deep copy of good changed by f.
	edit := func(f func(d *TypeDescription)) TypeDescription {
		var d TypeDescription
		b, _ := json.Marshal(good)
		_ = json.Unmarshal(b, &d)
		f(&d)
		return d
	}
	ref := func(d *TypeDescription, n string) *IndividualTypeDescription {
		for i := range d.Referenced {
			if d.Referenced[i].Name == n {
				return &d.Referenced[i]
			}
		}
		t.Fatalf("no %s", n)
		return nil
	}
	pattern := func(d *TypeDescription) *IndividualTypeDescription { return ref(d, "led/msg/Pattern") }
	many := func(n int) []IndividualTypeDescription {
		out := make([]IndividualTypeDescription, n)
		for i := range out {
			out[i] = IndividualTypeDescription{Name: "p/msg/T" + strconv.Itoa(i), Fields: []Field{{Name: "x", Type: FieldType{TypeID: 3}}}}
		}
		return out
	}
	for _, c := range []struct {
		why  string
		d    TypeDescription
		hash string
		want error
		says string
	}{
		{"another type", edit(func(d *TypeDescription) { d.Type.Name = "led/srv/Other" }), hash, ErrDescription, "not led/srv/SetLed"},
		{"wrong hash", good, "RIHS01_" + strings.Repeat("0", 64), ErrHashMismatch, "announced"},
		{"a field renamed", edit(func(d *TypeDescription) { pattern(d).Fields[1].Name = "label" }), hash, ErrHashMismatch, "announced"},
		{"too many types", edit(func(d *TypeDescription) { d.Referenced = many(MaxDescribedTypes) }), hash, ErrDescription, "types, at most"},
		{"too many fields", edit(func(d *TypeDescription) {
			p := pattern(d)
			for i := range MaxDescribedFields {
				p.Fields = append(p.Fields, Field{Name: "f" + strconv.Itoa(i), Type: FieldType{TypeID: 3}})
			}
		}), hash, ErrDescription, "fields, want"},
		{"too many fields in all", edit(func(d *TypeDescription) {
			for _, t := range many(MaxDescribedTotal/MaxDescribedFields + 1) {
				for j := range MaxDescribedFields - 1 {
					t.Fields = append(t.Fields, Field{Name: "f" + strconv.Itoa(j), Type: FieldType{TypeID: 3}})
				}
				d.Referenced = append(d.Referenced, t)
			}
		}), hash, ErrDescription, "fields in all"},
		{"no fields", edit(func(d *TypeDescription) { pattern(d).Fields = nil }), hash, ErrDescription, "0 fields"},
		{"bad type name", edit(func(d *TypeDescription) { pattern(d).Name = "led/msg/../x" }), hash, ErrDescription, "type name"},
		{"long type name", edit(func(d *TypeDescription) { pattern(d).Name = "led/msg/P" + strings.Repeat("a", 300) }), hash, ErrDescription, "type name"},
		{"described twice", edit(func(d *TypeDescription) { d.Referenced = append(d.Referenced, d.Referenced[0]) }), hash, ErrDescription, "twice"},
		{"unused type", edit(func(d *TypeDescription) { d.Referenced = append(d.Referenced, many(1)...) }), hash, ErrDescription, "does not nest it"},
		{"missing nested type", edit(func(d *TypeDescription) {
			d.Referenced = slicesDelete(d.Referenced, "led/msg/Color")
		}), hash, ErrDescription, "is not described"},
		{"bad field name", edit(func(d *TypeDescription) { pattern(d).Fields[0].Name = "Colors" }), hash, ErrDescription, "name"},
		{"field twice", edit(func(d *TypeDescription) { pattern(d).Fields[1].Name = "colors" }), hash, ErrDescription, "twice"},
		{"type id 0", edit(func(d *TypeDescription) { pattern(d).Fields[1].Type.TypeID = 0 }), hash, ErrDescription, "not a field type"},
		{"type id 200", edit(func(d *TypeDescription) { pattern(d).Fields[1].Type.TypeID = 200 }), hash, ErrDescription, "not a field type"},
		{"long double", edit(func(d *TypeDescription) { pattern(d).Fields[1].Type.TypeID = 12 }), hash, ErrDescription, "no ROS 2"},
		{"fixed string", edit(func(d *TypeDescription) { pattern(d).Fields[1].Type.TypeID = 19 }), hash, ErrDescription, "no ROS 2"},
		{"array without length", edit(func(d *TypeDescription) { pattern(d).Fields[0].Type.Capacity = 0 }), hash, ErrDescription, "capacity 0"},
		{"huge array", edit(func(d *TypeDescription) { pattern(d).Fields[0].Type.Capacity = 1 << 40 }), hash, ErrDescription, "capacity"},
		{"capacity on a single", edit(func(d *TypeDescription) { ref(d, "led/msg/Color").Fields[0].Type.Capacity = 3 }), hash, ErrDescription, "takes no capacity"},
		{"string capacity on a number", edit(func(d *TypeDescription) { ref(d, "led/msg/Color").Fields[0].Type.StringCapacity = 3 }), hash, ErrDescription, "no string capacity"},
		{"bounded string without bound", edit(func(d *TypeDescription) { pattern(d).Fields[1].Type.StringCapacity = 0 }), hash, ErrDescription, "string capacity 0"},
		{"nested name on a number", edit(func(d *TypeDescription) { pattern(d).Fields[2].Type.NestedTypeName = "led/msg/Color" }), hash, ErrDescription, "names nested type"},
		{"too large a value", edit(func(d *TypeDescription) {
			pattern(d).Fields[0].Type.Capacity = 1 << 20 // Color[1<<20]: 4 Mi elements
		}), hash, ErrDescription, "more than"},
		{"a cycle", edit(func(d *TypeDescription) {
			ref(d, "led/msg/Color").Fields[0].Type = FieldType{TypeID: 145, NestedTypeName: "led/msg/Pattern"}
		}), hash, ErrDescription, "contains itself"},
	} {
		t.Run(c.why, func(t *testing.T) {
			_, err := FromDescription(c.d, name, c.hash)
			if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.says) {
				t.Fatalf("%v, want %v saying %q", err, c.want, c.says)
			}
		})
	}
}

func slicesDelete(ts []IndividualTypeDescription, name string) []IndividualTypeDescription {
	var out []IndividualTypeDescription
	for _, t := range ts {
		if t.Name != name {
			out = append(out, t)
		}
	}
	return out
}
