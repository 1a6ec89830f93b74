package bridge

import (
	"encoding/json"
	"slices"
	"strconv"
)

// canonicalArgs is the second pass over decoded arguments, kept for one
// property: equal arguments have equal bytes (keys sorted, numbers by
// value), which the args digest and the motion id are computed from. Its
// bytes are pinned by TestArgsDigestsDoNotChange and fuzzed against the
// reflection-based canonicalJSON they were first defined by.
func canonicalArgs(v any) json.RawMessage {
	return appendCanonical(make([]byte, 0, 512), v)
}

func appendCanonical(b []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...)
	case bool:
		return strconv.AppendBool(b, x)
	case string:
		return appendJSONString(b, x)
	case json.Number:
		return appendCanonicalNumber(b, string(x))
	case []any:
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendCanonical(b, e)
		}
		return append(b, ']')
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys) // bytewise, as encoding/json sorts map keys
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(appendJSONString(b, k), ':')
			b = appendCanonical(b, x[k])
		}
		return append(b, '}')
	}
	enc, _ := json.Marshal(v) // not a DecodeArgs type; what canonicalJSON does
	return append(b, enc...)
}

// appendCanonicalNumber writes what normalize makes of a number: the
// shortest 'g' form of its float64, or a JSON string when out of range.
func appendCanonicalNumber(b []byte, s string) []byte {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return appendJSONString(b, s)
	}
	return strconv.AppendFloat(b, f, 'g', -1, 64)
}

// appendJSONString writes s as encoding/json does (HTML-escaped); plain
// ASCII is copied, anything else goes to encoding/json itself.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			enc, _ := json.Marshal(s)
			return append(b, enc...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
