package bridge

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Schema is the JSON Schema subset the vendors' strict modes accept: types,
// enums, ranges, patterns, arrays, closed objects and anyOf. Input schemas
// are always closed (additionalProperties false or a value schema).
type Schema struct {
	Type        string             `json:"type,omitempty"`
	Description string             `json:"description,omitempty"`
	Enum        []string           `json:"enum,omitempty"`
	Minimum     *float64           `json:"minimum,omitempty"`
	Maximum     *float64           `json:"maximum,omitempty"`
	MinLength   *int               `json:"minLength,omitempty"`
	MaxLength   *int               `json:"maxLength,omitempty"`
	Pattern     string             `json:"pattern,omitempty"`
	Items       *Schema            `json:"items,omitempty"`
	MinItems    *int               `json:"minItems,omitempty"`
	MaxItems    *int               `json:"maxItems,omitempty"`
	Properties  map[string]*Schema `json:"properties,omitempty"`
	Required    []string           `json:"required,omitempty"`
	// Additional is nil for "no other properties" on objects (marshalled as
	// false) or the schema every other property must satisfy.
	Additional *Schema   `json:"-"`
	Open       bool      `json:"-"` // output shapes only: extra properties allowed
	Default    any       `json:"default,omitempty"`
	AnyOf      []*Schema `json:"anyOf,omitempty"`
	// Hint is given with any violation inside this value that carries no
	// hint of its own (service_call's request: how to learn more types).
	Hint string `json:"-"`

	once sync.Once
	re   *regexp.Regexp
}

// MarshalJSON emits additionalProperties explicitly for every object.
func (s *Schema) MarshalJSON() ([]byte, error) {
	type plain Schema
	out := struct {
		*plain
		AdditionalProperties any `json:"additionalProperties,omitempty"`
	}{plain: (*plain)(s)}
	if s.Type == "object" {
		switch {
		case s.Additional != nil:
			out.AdditionalProperties = s.Additional
		case !s.Open:
			out.AdditionalProperties = false
		}
	}
	return json.Marshal(out)
}

// Float returns a pointer to v, for schema ranges.
func Float(v float64) *float64 { return &v }

// Int returns a pointer to v, for schema lengths.
func Int(v int) *int { return &v }

// Object builds a closed object schema.
func Object(desc string, props map[string]*Schema, required ...string) *Schema {
	return &Schema{Type: "object", Description: desc, Properties: props, Required: required}
}

// Str builds a string schema with a length bound.
func Str(desc string, maxLen int) *Schema {
	return &Schema{Type: "string", Description: desc, MaxLength: Int(maxLen)}
}

// Num builds a number schema bounded to [lo, hi].
func Num(desc string, lo, hi float64) *Schema {
	return &Schema{Type: "number", Description: desc, Minimum: Float(lo), Maximum: Float(hi)}
}

// Integer builds an integer schema bounded to [lo, hi].
func Integer(desc string, lo, hi float64) *Schema {
	return &Schema{Type: "integer", Description: desc, Minimum: Float(lo), Maximum: Float(hi)}
}

// Enum builds a string enum schema.
func Enum(desc string, values ...string) *Schema {
	return &Schema{Type: "string", Description: desc, Enum: values}
}

// Bool builds a boolean schema.
func Bool(desc string) *Schema { return &Schema{Type: "boolean", Description: desc} }

// Array builds an array schema with a size bound.
func Array(desc string, items *Schema, maxItems int) *Schema {
	return &Schema{Type: "array", Description: desc, Items: items, MaxItems: Int(maxItems)}
}

// Limits on what the decoder accepts before schema validation even starts.
const (
	maxArgBytes = 256 << 10
	maxDepth    = 32
)

// Validate checks a decoded JSON value (from DecodeArgs) against the schema
// and returns the first violation as a field error.
func (s *Schema) Validate(v any) *Error { return s.validate("", v) }

// DropNullOptionals removes, in place and at every depth the schema
// describes, the object properties that are null and not required: a
// null optional means "left out". OpenAI's strict mode (export.go) makes
// every property required and the optional ones nullable, so its
// planners send null for what they skip; dropped here, such a call
// validates, decodes and is identified (its canonical arguments) exactly
// as the call that left them out. A required property that is null stays
// and fails validation.
func (s *Schema) DropNullOptionals(v any) {
	if s == nil {
		return
	}
	if len(s.AnyOf) > 0 {
		// A union (servicerequest.go) has at most one object and one array
		// alternative: the one of v's kind is the one whose nulls apply.
		for _, alt := range s.AnyOf {
			if _, isObj := v.(map[string]any); isObj && alt.Type == "object" {
				alt.DropNullOptionals(v)
				return
			}
			if _, isArr := v.([]any); isArr && alt.Type == "array" {
				alt.DropNullOptionals(v)
				return
			}
		}
		return
	}
	switch x := v.(type) {
	case map[string]any:
		if s.Type != "object" {
			return
		}
		for k, e := range x {
			sub, ok := s.Properties[k]
			switch {
			case !ok:
				s.Additional.DropNullOptionals(e)
			case e == nil && !contains(s.Required, k):
				delete(x, k)
			default:
				sub.DropNullOptionals(e)
			}
		}
	case []any:
		if s.Type != "array" {
			return
		}
		for _, e := range x {
			s.Items.DropNullOptionals(e)
		}
	}
}

func (s *Schema) validate(path string, v any) *Error {
	err := s.check(path, v)
	if err != nil && s.Hint != "" && err.Hint == "" {
		err.Hint = s.Hint
	}
	return err
}

func (s *Schema) check(path string, v any) *Error {
	if len(s.AnyOf) > 0 {
		for _, alt := range s.AnyOf {
			if alt.validate(path, v) == nil {
				return nil
			}
		}
		return FieldError(fieldName(path), s.expected(), describe(v), "value matches none of the allowed shapes")
	}
	switch s.Type {
	case "object":
		m, ok := v.(map[string]any)
		if !ok {
			return FieldError(fieldName(path), "object", describe(v), "wrong type")
		}
		return s.validateObject(path, m)
	case "array":
		a, ok := v.([]any)
		if !ok {
			return FieldError(fieldName(path), "array", describe(v), "wrong type")
		}
		if s.MinItems != nil && len(a) < *s.MinItems {
			return FieldError(fieldName(path), fmt.Sprintf("at least %d items", *s.MinItems), fmt.Sprintf("%d items", len(a)), "too few items")
		}
		if s.MaxItems != nil && len(a) > *s.MaxItems {
			return FieldError(fieldName(path), fmt.Sprintf("at most %d items", *s.MaxItems), fmt.Sprintf("%d items", len(a)), "too many items")
		}
		if s.Items != nil {
			for i, it := range a {
				if err := s.Items.validate(path+"["+strconv.Itoa(i)+"]", it); err != nil {
					return err
				}
			}
		}
		return nil
	case "string":
		str, ok := v.(string)
		if !ok {
			return FieldError(fieldName(path), s.expected(), describe(v), "wrong type")
		}
		return s.validateString(path, str)
	case "number", "integer":
		n, ok := v.(json.Number)
		if !ok {
			return FieldError(fieldName(path), s.expected(), describe(v), "wrong type")
		}
		return s.validateNumber(path, n)
	case "boolean":
		if _, ok := v.(bool); !ok {
			return FieldError(fieldName(path), "boolean", describe(v), "wrong type")
		}
		return nil
	case "":
		return nil
	}
	return FieldError(fieldName(path), s.Type, describe(v), "unsupported schema type")
}

func (s *Schema) validateObject(path string, m map[string]any) *Error {
	for _, r := range s.Required {
		if _, ok := m[r]; !ok {
			return FieldError(join(path, r), s.Properties[r].expected(), "missing", "required field is missing")
		}
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys) // the first error is deterministic
	for _, k := range keys {
		sub, ok := s.Properties[k]
		if !ok {
			if s.Additional == nil {
				if s.Open {
					continue
				}
				return FieldError(join(path, k), "one of: "+strings.Join(s.propertyNames(), ", "),
					quote(k), "unknown field")
			}
			sub = s.Additional
		}
		if err := sub.validate(join(path, k), m[k]); err != nil {
			return err
		}
	}
	return nil
}

func (s *Schema) validateString(path, str string) *Error {
	if len(s.Enum) > 0 {
		for _, e := range s.Enum {
			if e == str {
				return nil
			}
		}
		return FieldError(fieldName(path), s.expected(), quote(str), "not one of the allowed values")
	}
	n := len([]rune(str))
	if s.MinLength != nil && n < *s.MinLength {
		return FieldError(fieldName(path), s.expected(), quote(str), "string too short")
	}
	if s.MaxLength != nil && n > *s.MaxLength {
		return FieldError(fieldName(path), s.expected(), fmt.Sprintf("string of %d characters", n), "string too long")
	}
	if s.Pattern != "" {
		s.once.Do(func() { s.re = regexp.MustCompile(s.Pattern) })
		if !s.re.MatchString(str) {
			return FieldError(fieldName(path), s.expected(), quote(str), "string does not match the pattern")
		}
	}
	return nil
}

func (s *Schema) validateNumber(path string, n json.Number) *Error {
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return FieldError(fieldName(path), s.expected(), clipRunes(string(n), 40), "not a finite number")
	}
	if s.Type == "integer" && f != math.Trunc(f) {
		return FieldError(fieldName(path), s.expected(), string(n), "not an integer")
	}
	// An integer literal past 2^53 reads as a neighbour of itself: refused
	// rather than passed on changed (2^53+1 would be sent as 2^53).
	if i, err := strconv.ParseInt(string(n), 10, 64); err == nil && (i > 1<<53 || i < -(1<<53)) && int64(f) != i {
		return FieldError(fieldName(path), s.expected(), string(n), "integer too large to be exact as a JSON number (at most 2^53 in magnitude)")
	}
	if (s.Minimum != nil && f < *s.Minimum) || (s.Maximum != nil && f > *s.Maximum) {
		return FieldError(fieldName(path), s.expected(), string(n), "number out of range")
	}
	return nil
}

// clone copies the schema's own fields; children are shared.
func (s *Schema) clone() *Schema {
	return &Schema{Type: s.Type, Description: s.Description, Enum: s.Enum, Minimum: s.Minimum, Maximum: s.Maximum,
		MinLength: s.MinLength, MaxLength: s.MaxLength, Pattern: s.Pattern, Items: s.Items, MinItems: s.MinItems,
		MaxItems: s.MaxItems, Properties: s.Properties, Required: s.Required, Additional: s.Additional, Open: s.Open,
		Default: s.Default, AnyOf: s.AnyOf, Hint: s.Hint}
}

// expected renders what a value should be, short enough for an error.
func (s *Schema) expected() string {
	if s == nil {
		return "a value"
	}
	if len(s.AnyOf) > 0 {
		parts := make([]string, len(s.AnyOf))
		for i, a := range s.AnyOf {
			parts[i] = a.expected()
		}
		return strings.Join(parts, " or ")
	}
	switch {
	case len(s.Enum) > 0:
		return "one of: " + strings.Join(s.Enum, ", ")
	case (s.Type == "number" || s.Type == "integer") && (s.Minimum != nil || s.Maximum != nil):
		lo, hi := "-inf", "+inf"
		if s.Minimum != nil {
			lo = strconv.FormatFloat(*s.Minimum, 'g', -1, 64)
		}
		if s.Maximum != nil {
			hi = strconv.FormatFloat(*s.Maximum, 'g', -1, 64)
		}
		return fmt.Sprintf("%s in [%s, %s]", s.Type, lo, hi)
	case s.Type == "string" && s.Pattern != "":
		return "string matching " + s.Pattern
	case s.Type == "string" && s.MaxLength != nil:
		return fmt.Sprintf("string of at most %d characters", *s.MaxLength)
	}
	return s.Type
}

func (s *Schema) propertyNames() []string {
	names := make([]string, 0, len(s.Properties))
	for k := range s.Properties {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

func join(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

func fieldName(path string) string {
	if path == "" {
		return "(arguments)"
	}
	return path
}

func quote(s string) string { return strconv.Quote(clipRunes(s, 60)) }

// describe names a value's JSON type (and value when short) for "actual".
func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean " + strconv.FormatBool(x)
	case json.Number:
		return "number " + clipRunes(string(x), 40)
	case string:
		return "string " + quote(x)
	case []any:
		return fmt.Sprintf("array of %d items", len(x))
	case map[string]any:
		return fmt.Sprintf("object with %d fields", len(x))
	}
	return fmt.Sprintf("%T", v)
}

func clipRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
