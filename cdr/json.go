package cdr

import (
	"encoding/json"
	"math"
	"strconv"
)

// MarshalJSON writes m as one JSON object whose keys are the field names in
// definition order. Byte arrays are arrays of numbers, not base64; NaN and
// infinities, which JSON cannot hold, become the strings "NaN",
// "Infinity" and "-Infinity".
func (m *Message) MarshalJSON() ([]byte, error) {
	return m.AppendJSON(nil), nil
}

// AppendJSON appends the JSON form of m (see MarshalJSON) to dst.
func (m *Message) AppendJSON(dst []byte) []byte {
	if m == nil || m.Type == nil {
		return append(dst, "null"...)
	}
	dst = append(dst, '{')
	for i, f := range m.Type.fields {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = strconv.AppendQuote(dst, f.Name)
		dst = append(dst, ':')
		var v any
		if i < len(m.Fields) {
			v = m.Fields[i]
		}
		dst = appendJSONValue(dst, v)
	}
	return append(dst, '}')
}

func appendJSONValue(dst []byte, v any) []byte {
	switch x := v.(type) {
	case bool:
		return strconv.AppendBool(dst, x)
	case uint8:
		return strconv.AppendUint(dst, uint64(x), 10)
	case int8:
		return strconv.AppendInt(dst, int64(x), 10)
	case int16:
		return strconv.AppendInt(dst, int64(x), 10)
	case uint16:
		return strconv.AppendUint(dst, uint64(x), 10)
	case int32:
		return strconv.AppendInt(dst, int64(x), 10)
	case uint32:
		return strconv.AppendUint(dst, uint64(x), 10)
	case int64:
		return strconv.AppendInt(dst, x, 10)
	case uint64:
		return strconv.AppendUint(dst, x, 10)
	case float32:
		return appendJSONFloat(dst, float64(x), 32)
	case float64:
		return appendJSONFloat(dst, x, 64)
	case string:
		b, _ := json.Marshal(x) // escapes as JSON wants; never fails on a string
		return append(dst, b...)
	case *Message:
		return x.AppendJSON(dst)
	case []bool:
		return appendJSONSlice(dst, x)
	case []uint8:
		return appendJSONSlice(dst, x)
	case []int8:
		return appendJSONSlice(dst, x)
	case []int16:
		return appendJSONSlice(dst, x)
	case []uint16:
		return appendJSONSlice(dst, x)
	case []int32:
		return appendJSONSlice(dst, x)
	case []uint32:
		return appendJSONSlice(dst, x)
	case []int64:
		return appendJSONSlice(dst, x)
	case []uint64:
		return appendJSONSlice(dst, x)
	case []float32:
		return appendJSONSlice(dst, x)
	case []float64:
		return appendJSONSlice(dst, x)
	case []string:
		return appendJSONSlice(dst, x)
	case []*Message:
		return appendJSONSlice(dst, x)
	}
	return append(dst, "null"...)
}

func appendJSONSlice[T any](dst []byte, s []T) []byte {
	dst = append(dst, '[')
	for i, x := range s {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendJSONValue(dst, x)
	}
	return append(dst, ']')
}

func appendJSONFloat(dst []byte, f float64, bits int) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, `"NaN"`...)
	case math.IsInf(f, 1):
		return append(dst, `"Infinity"`...)
	case math.IsInf(f, -1):
		return append(dst, `"-Infinity"`...)
	}
	return strconv.AppendFloat(dst, f, 'g', -1, bits)
}
