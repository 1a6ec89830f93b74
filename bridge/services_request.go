package bridge

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/actbridge/actbridge/actuators"
)

// Bounds of the request schemas built from service types: a type over
// them is not offered (services_list says why), so a transport that
// learns a huge or deeply nested type cannot blow up tools/list.
const (
	maxRequestDepth  = 6   // messages nested below the request
	maxRequestFields = 200 // properties of one type's request, every level counted
	maxUnionFields   = 800 // properties of service_call's request argument
	maxRequestItems  = 256 // items of an unbounded sequence
	maxTypesNamed    = 3   // type names a union field's description lists
)

// serviceCatalog is what service_call is built from: the transport's
// service types, each with its exact request schema or the reason it is
// not offered, and the union of the offered ones for the tool's input.
type serviceCatalog struct {
	known   map[string]string  // every type the transport listed: its definition (definitionOf)
	offered []string           // sorted
	exact   map[string]*Schema // by type: its request, exactly
	refused map[string]string  // by type: why it is not offered
	request *Schema            // the union: the `request` argument
}

// requestHint goes with every violation inside service_call's request:
// the union only knows the types learned so far.
const requestHint = "the request fields service_call takes are those of the service types it knows (its description lists them); " +
	"a service of a type not learned yet: call services_list (it learns the types of the robot's services), then service_call again"

// newServiceCatalog builds the schemas of types, in name order.
func newServiceCatalog(types []actuators.ServiceType) *serviceCatalog {
	c := &serviceCatalog{known: map[string]string{}, exact: map[string]*Schema{}, refused: map[string]string{}}
	sorted := slices.Clone(types)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	union := map[string]*Schema{}
	users := map[string][]string{}
	for _, t := range sorted {
		if _, seen := c.known[t.Name]; seen {
			continue
		}
		c.known[t.Name] = definitionOf(t)
		s, err := typeSchema(t)
		if err != nil {
			c.refused[t.Name] = err.Error()
			continue
		}
		next := make(map[string]*Schema, len(union)+len(s.Properties))
		for k, v := range union {
			next[k] = v
		}
		for k, v := range s.Properties {
			next[k] = unite(next[k], v)
		}
		if n := countFields(&Schema{Type: "object", Properties: next}); n > maxUnionFields {
			c.refused[t.Name] = fmt.Sprintf("service_call's request would have %d fields with it, more than %d", n, maxUnionFields)
			continue
		}
		union = next
		for k := range s.Properties {
			users[k] = append(users[k], t.Name)
		}
		c.exact[t.Name] = s
		c.offered = append(c.offered, t.Name)
	}
	for k, s := range union {
		u := s.clone()
		u.Description = "Field " + k + " of " + namesText(users[k]) + " requests."
		union[k] = u
	}
	c.request = &Schema{Type: "object", Properties: union, Hint: requestHint,
		Description: "The request fields of the service's type (std_srvs Trigger and Empty: none; SetBool: data); nested messages are objects, sequences arrays. Default {}."}
	return c
}

// covers reports whether the catalogue was built from every type listed,
// each as defined now: a node restarted with another definition under the
// same type name (another RIHS01 hash) is a type to build anew.
func (c *serviceCatalog) covers(types []actuators.ServiceType) bool {
	for _, t := range types {
		if d, ok := c.known[t.Name]; !ok || d != definitionOf(t) {
			return false
		}
	}
	return true
}

// definitionOf is a digest of a service type's definition (fields and
// nested messages), what a preview is bound to besides the type name.
func definitionOf(t actuators.ServiceType) string {
	b, _ := json.Marshal(struct {
		Request, Response []actuators.ServiceField
		Messages          map[string][]actuators.ServiceField
	}{t.Request, t.Response, t.Messages}) // map keys come out sorted
	return Digest(b)
}

// definitionNamed is the definition digest of the transport's type name,
// "" when it lists none.
func definitionNamed(ros actuators.Services, name string) string {
	for _, t := range ros.ServiceTypes() {
		if t.Name == name {
			return definitionOf(t)
		}
	}
	return ""
}

func namesText(names []string) string {
	if len(names) <= maxTypesNamed {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:maxTypesNamed], ", "), len(names)-maxTypesNamed)
}

// typeSchema is one service type's request, exact: every top-level field
// required (as ROS 1 needs them), nested messages closed objects whose
// fields left out are zero (false, 0, "", []), as `ros2 service call`
// fills them. An error says why the type is not offered.
func typeSchema(t actuators.ServiceType) (*Schema, error) {
	b := requestBuilder{msgs: t.Messages}
	s := Object(t.Name+" request", map[string]*Schema{})
	for _, f := range t.Request {
		if err := b.count(); err != nil {
			return nil, err
		}
		fs, err := b.field(f.Name, f.Type, 0)
		if err != nil {
			return nil, fmt.Errorf("field %s: %w", f.Name, err)
		}
		s.Properties[f.Name] = fs
		s.Required = append(s.Required, f.Name)
	}
	return s, nil
}

// requestBuilder turns ROS field types into schemas within the bounds.
type requestBuilder struct {
	msgs   map[string][]actuators.ServiceField
	fields int
}

func (b *requestBuilder) count() error {
	if b.fields++; b.fields > maxRequestFields {
		return fmt.Errorf("the request has more than %d fields in all, too many to offer", maxRequestFields)
	}
	return nil
}

// field is the schema of a field called name (empty: an array's item) of
// a ROS type: a scalar, a nested message ("pkg/msg/X") or an array of
// either ("[]", "[<=N]", "[N]").
func (b *requestBuilder) field(name, typ string, depth int) (*Schema, error) {
	if i := strings.LastIndexByte(typ, '['); i > 0 && strings.HasSuffix(typ, "]") {
		items, err := b.field("", typ[:i], depth)
		if err != nil {
			return nil, err
		}
		return arraySchema(items, typ[i+1:len(typ)-1], name+" ("+typ+")."), nil
	}
	desc := name + " (" + typ + ")."
	if name == "" {
		desc = "One " + typ + "."
	}
	if strings.Contains(typ, "/") {
		return b.message(typ, strings.TrimSuffix(desc, ".")+"; fields left out are zero.", depth+1)
	}
	return scalarSchema(typ, desc)
}

// message is a nested message's closed object.
func (b *requestBuilder) message(typ, desc string, depth int) (*Schema, error) {
	if depth > maxRequestDepth {
		return nil, fmt.Errorf("messages nest more than %d deep (at %s), too deep to offer", maxRequestDepth, typ)
	}
	fs, ok := b.msgs[typ]
	if !ok {
		return nil, fmt.Errorf("nests %s, whose definition the transport did not give", typ)
	}
	s := Object(desc, map[string]*Schema{})
	for _, f := range fs {
		if err := b.count(); err != nil {
			return nil, err
		}
		sub, err := b.field(f.Name, f.Type, depth)
		if err != nil {
			return nil, fmt.Errorf("%s.%s: %w", typ, f.Name, err)
		}
		s.Properties[f.Name] = sub
	}
	return s, nil
}

// scalarSchema bounds a ROS scalar to its range; 64-bit integers to ±2^53,
// where JSON numbers stay exact.
func scalarSchema(typ, desc string) (*Schema, error) {
	switch typ {
	case "bool":
		return Bool(desc), nil
	case "string", "wstring":
		return Str(desc, 4096), nil
	case "float32", "float64":
		return Num(desc, -1e12, 1e12), nil
	case "int8":
		return Integer(desc, math.MinInt8, math.MaxInt8), nil
	case "uint8", "byte", "char":
		return Integer(desc, 0, math.MaxUint8), nil
	case "int16":
		return Integer(desc, math.MinInt16, math.MaxInt16), nil
	case "uint16":
		return Integer(desc, 0, math.MaxUint16), nil
	case "int32":
		return Integer(desc, math.MinInt32, math.MaxInt32), nil
	case "uint32":
		return Integer(desc, 0, math.MaxUint32), nil
	case "int64":
		return Integer(desc, -(1 << 53), 1<<53), nil
	case "uint64":
		return Integer(desc, 0, 1<<53), nil
	}
	return nil, fmt.Errorf("type %q is not a ROS scalar this bridge checks", typ)
}

// arraySchema is a ROS array or sequence: "[]" (bounded here),
// "[<=16]" (bound 16), "[3]" (exactly 3).
func arraySchema(items *Schema, bound, desc string) *Schema {
	s := &Schema{Type: "array", Description: desc, Items: items}
	fixed := !strings.HasPrefix(bound, "<=")
	n, err := strconv.Atoi(strings.TrimPrefix(bound, "<="))
	switch {
	case err != nil || n <= 0 || n > maxRequestItems:
		s.MaxItems = Int(maxRequestItems)
	case fixed:
		s.MinItems, s.MaxItems = Int(n), Int(n)
	default:
		s.MaxItems = Int(n)
	}
	return s
}

// unite is a schema that accepts every value a or b accepts (a may be
// nil), so the union of every type's request stays sound when two types
// give one field name different types: like kinds merge (objects field by
// field, ranges and bounds widened), unlike ones become anyOf. Neither a
// nor b is changed.
func unite(a, b *Schema) *Schema {
	if a == nil {
		return b.clone()
	}
	var out []*Schema
	for _, x := range append(alternatives(a), alternatives(b)...) {
		merged := false
		for i, y := range out {
			if m := uniteLike(y, x); m != nil {
				out[i], merged = m, true
				break
			}
		}
		if !merged {
			out = append(out, x)
		}
	}
	if len(out) == 1 {
		return out[0].clone()
	}
	return &Schema{Description: a.Description, AnyOf: out}
}

func alternatives(s *Schema) []*Schema {
	if len(s.AnyOf) > 0 {
		return s.AnyOf
	}
	return []*Schema{s}
}

// uniteLike merges two schemas of one kind, or returns nil.
func uniteLike(a, b *Schema) *Schema {
	numeric := func(s *Schema) bool { return s.Type == "number" || s.Type == "integer" }
	switch {
	case a.Type == "object" && b.Type == "object":
		s := a.clone()
		s.Properties = make(map[string]*Schema, len(a.Properties)+len(b.Properties))
		for k, v := range a.Properties {
			s.Properties[k] = v
		}
		for k, v := range b.Properties {
			if w, ok := s.Properties[k]; ok {
				v = unite(w, v)
			}
			s.Properties[k] = v
		}
		s.Required = nil
		for _, r := range a.Required {
			if slices.Contains(b.Required, r) {
				s.Required = append(s.Required, r)
			}
		}
		return s
	case a.Type == "array" && b.Type == "array":
		s := a.clone()
		s.Items = unite(a.Items, b.Items)
		s.MinItems, s.MaxItems = widen(a.MinItems, b.MinItems, true), widen(a.MaxItems, b.MaxItems, false)
		return s
	case a.Type == "boolean" && b.Type == "boolean":
		return a.clone()
	case a.Type == "string" && b.Type == "string" && a.Pattern == b.Pattern && slices.Equal(a.Enum, b.Enum):
		s := a.clone()
		s.MinLength, s.MaxLength = widen(a.MinLength, b.MinLength, true), widen(a.MaxLength, b.MaxLength, false)
		return s
	case numeric(a) && numeric(b):
		s := a.clone()
		if a.Type != b.Type {
			s.Type = "number"
		}
		s.Minimum, s.Maximum = widen(a.Minimum, b.Minimum, true), widen(a.Maximum, b.Maximum, false)
		return s
	}
	return nil
}

// widen merges two bounds into the wider one: the lower of two lower
// bounds (low), the higher of two upper ones; nil (no bound) is the widest.
func widen[T int | float64](a, b *T, low bool) *T {
	if a == nil || b == nil {
		return nil
	}
	v := max(*a, *b)
	if low {
		v = min(*a, *b)
	}
	return &v
}

// countFields counts the properties of s at every level.
func countFields(s *Schema) int {
	n := 0
	for _, p := range s.Properties {
		n += 1 + countFields(p)
	}
	if s.Items != nil {
		n += countFields(s.Items)
	}
	for _, a := range s.AnyOf {
		n += countFields(a)
	}
	return n
}

// plainJSON turns checked arguments into the values a transport builds a
// request from: numbers as float64 (exact for every integer the schema
// admits: at most 2^53), objects and arrays copied.
func plainJSON(v any) any {
	switch x := v.(type) {
	case json.Number:
		f, _ := strconv.ParseFloat(string(x), 64)
		return f
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = plainJSON(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = plainJSON(e)
		}
		return out
	}
	return v
}
