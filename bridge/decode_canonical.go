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
	w := canonicalWriter{b: make([]byte, 0, canonicalSizeHint(v))}
	w.value(v)
	return w.b
}

// canonicalWriter appends the canonical form to b; keys is scratch for
// sorting each object's keys, shared down the recursion.
type canonicalWriter struct {
	b    []byte
	keys []string
}

func (w *canonicalWriter) value(v any) {
	switch x := v.(type) {
	case nil:
		w.b = append(w.b, "null"...)
	case bool:
		w.b = strconv.AppendBool(w.b, x)
	case string:
		w.b = appendJSONString(w.b, x)
	case json.Number:
		w.b = appendCanonicalNumber(w.b, string(x))
	case []any:
		w.b = append(w.b, '[')
		for i, e := range x {
			if i > 0 {
				w.b = append(w.b, ',')
			}
			w.value(e)
		}
		w.b = append(w.b, ']')
	case map[string]any:
		base := len(w.keys)
		for k := range x {
			w.keys = append(w.keys, k)
		}
		keys := w.keys[base:]
		slices.Sort(keys) // bytewise, as encoding/json sorts map keys
		w.b = append(w.b, '{')
		for i, k := range keys {
			if i > 0 {
				w.b = append(w.b, ',')
			}
			w.b = append(appendJSONString(w.b, k), ':')
			w.value(x[k])
		}
		w.b = append(w.b, '}')
		clear(keys)
		w.keys = w.keys[:base]
	default:
		enc, _ := json.Marshal(v) // not a DecodeArgs type; what canonicalJSON does
		w.b = append(w.b, enc...)
	}
}

// canonicalSizeHint is about the length of v's canonical form, so the
// buffer for 200 KB of arguments is allocated once rather than grown.
func canonicalSizeHint(v any) int {
	switch x := v.(type) {
	case string:
		return len(x) + 2
	case json.Number:
		return len(x) + 2
	case []any:
		n := 2 + len(x)
		for _, e := range x {
			n += canonicalSizeHint(e)
		}
		return n
	case map[string]any:
		n := 2 + len(x)
		for k, e := range x {
			n += len(k) + 3 + canonicalSizeHint(e)
		}
		return n
	}
	return 5
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
