package cdr

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
)

// FromJSON reads a value of s from the JSON form MarshalJSON writes: an
// object keyed by field names. Fields left out keep their zero value (as
// `ros2 service call` fills defaults); a key s has no field of, a value of
// the wrong JSON type, a number out of the field's range, a fixed array of
// the wrong length or a sequence over its bound is an error naming the
// field's path (ErrValueType or ErrBound). Float fields also take "NaN",
// "Infinity" and "-Infinity". Byte arrays are arrays of numbers.
func FromJSON(s *Struct, data []byte) (*Message, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, fmt.Errorf("%w: not JSON: %v", ErrValueType, err)
	}
	if d.More() {
		return nil, fmt.Errorf("%w: more than one JSON value", ErrValueType)
	}
	return messageFromJSON(s, v)
}

func messageFromJSON(s *Struct, v any) (*Message, error) {
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%w: %s wants a JSON object, got %s", ErrValueType, s.name, jsonKind(v))
	}
	m := Zero(s)
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys) // the first error is the same on every run
	for _, name := range keys {
		fv := obj[name]
		i := s.FieldIndex(name)
		if i < 0 {
			return nil, inField(strconv.Quote(name), fmt.Errorf("%w: %s has no field %q (fields: %s)", ErrValueType, s.name, name, s.fieldNames()))
		}
		x, err := fieldFromJSON(s.fields[i].Type, fv)
		if err != nil {
			return nil, inField(name, err)
		}
		m.Fields[i] = x
	}
	return m, nil
}

func fieldFromJSON(t Type, v any) (any, error) {
	if t.Collection == Single {
		return elemFromJSON(t, v)
	}
	arr, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%w: want a JSON array, got %s", ErrValueType, jsonKind(v))
	}
	switch {
	case t.Collection == Array && len(arr) != t.Len:
		return nil, fmt.Errorf("%w: a fixed array of %d elements, got %d", ErrValueType, t.Len, len(arr))
	case t.Collection == Sequence && t.Len > 0 && len(arr) > t.Len:
		return nil, fmt.Errorf("%w: %d elements, bound %d", ErrBound, len(arr), t.Len)
	}
	out := MakeSlice(t, len(arr))
	for i, ev := range arr {
		x, err := elemFromJSON(t, ev)
		if err != nil {
			return nil, inElement(i, err)
		}
		setElem(out, i, x)
	}
	return out, nil
}

// setElem stores x, of the element type MakeSlice chose, at s[i].
func setElem(s any, i int, x any) {
	switch s := s.(type) {
	case []bool:
		s[i] = x.(bool)
	case []uint8:
		s[i] = x.(uint8)
	case []int8:
		s[i] = x.(int8)
	case []int16:
		s[i] = x.(int16)
	case []uint16:
		s[i] = x.(uint16)
	case []int32:
		s[i] = x.(int32)
	case []uint32:
		s[i] = x.(uint32)
	case []int64:
		s[i] = x.(int64)
	case []uint64:
		s[i] = x.(uint64)
	case []float32:
		s[i] = x.(float32)
	case []float64:
		s[i] = x.(float64)
	case []string:
		s[i] = x.(string)
	case []*Message:
		s[i] = x.(*Message)
	}
}

func elemFromJSON(t Type, v any) (any, error) {
	switch t.Kind {
	case StructKind:
		return messageFromJSON(t.Struct, v)
	case String, WString:
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("%w: want a string, got %s", ErrValueType, jsonKind(v))
		}
		return s, nil
	case Bool:
		b, ok := v.(bool)
		if !ok {
			return nil, fmt.Errorf("%w: want true or false, got %s", ErrValueType, jsonKind(v))
		}
		return b, nil
	case Float32, Float64:
		f, err := floatFromJSON(v)
		if err != nil {
			return nil, err
		}
		if t.Kind == Float32 {
			if !math.IsInf(f, 0) && !math.IsNaN(f) && math.Abs(f) > math.MaxFloat32 {
				return nil, fmt.Errorf("%w: %g is outside float32", ErrValueType, f)
			}
			return float32(f), nil
		}
		return f, nil
	}
	n, ok := v.(json.Number)
	if !ok {
		return nil, fmt.Errorf("%w: want an integer (%s), got %s", ErrValueType, t.Kind, jsonKind(v))
	}
	return intFromJSON(t.Kind, n.String())
}

func floatFromJSON(v any) (float64, error) {
	switch x := v.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(x.String(), 64)
		if err != nil {
			return 0, fmt.Errorf("%w: %s is outside float64", ErrValueType, x)
		}
		return f, nil
	case string:
		switch x {
		case "NaN":
			return math.NaN(), nil
		case "Infinity":
			return math.Inf(1), nil
		case "-Infinity":
			return math.Inf(-1), nil
		}
	}
	return 0, fmt.Errorf("%w: want a number (or \"NaN\", \"Infinity\", \"-Infinity\"), got %s", ErrValueType, jsonKind(v))
}

// intFromJSON parses s as an integer of kind k, refusing fractions and
// values outside k's range.
func intFromJSON(k Kind, s string) (any, error) {
	bits := 8 * k.size()
	signed := k == Int8 || k == Int16 || k == Int32 || k == Int64
	if signed {
		i, err := strconv.ParseInt(s, 10, bits)
		if err != nil {
			return nil, fmt.Errorf("%w: %s is not a %s", ErrValueType, s, k)
		}
		switch k {
		case Int8:
			return int8(i), nil
		case Int16:
			return int16(i), nil
		case Int32:
			return int32(i), nil
		}
		return i, nil
	}
	u, err := strconv.ParseUint(s, 10, bits)
	if err != nil {
		return nil, fmt.Errorf("%w: %s is not a %s", ErrValueType, s, k)
	}
	switch k {
	case Byte, Char, Uint8:
		return uint8(u), nil
	case Uint16:
		return uint16(u), nil
	case Uint32:
		return uint32(u), nil
	}
	return u, nil
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// fieldNames lists s's fields for messages: "a, b, c".
func (s *Struct) fieldNames() string {
	var b []byte
	for i, f := range s.fields {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, f.Name...)
	}
	return string(b)
}
