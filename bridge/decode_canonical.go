package bridge

import (
	"encoding/json"
	"slices"
	"strconv"
)

// canonicalArgs writes the bytes canonicalJSON writes for values from
// DecodeArgs (the args digest and motion ids depend on them: pinned by
// TestArgsDigestsDoNotChange, fuzzed against canonicalJSON) in one pass,
// without copying the values or marshalling by reflection.
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
// Literals already in that form (most planner numbers) are copied as they
// are, skipping the parse and the format.
func appendCanonicalNumber(b []byte, s string) []byte {
	if isShortestG(s) {
		return append(b, s...)
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return appendJSONString(b, s)
	}
	return strconv.AppendFloat(b, f, 'g', -1, 64)
}

// isShortestG reports whether strconv.FormatFloat(ParseFloat(s), 'g', -1,
// 64) == s, by a sufficient test: a plain decimal (no exponent, no trailing
// fraction zero) of at most 15 significant digits, which float64 keeps
// exactly, whose decimal exponent is in [-4, 6) where 'g' does not switch
// to exponent form.
func isShortestG(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	intStart := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	intDigits := i - intStart
	zeroInt := intDigits == 1 && s[intStart] == '0'
	if intDigits == 0 || intDigits > 6 || (intDigits > 1 && s[intStart] == '0') {
		return false
	}
	sig := intDigits
	if zeroInt {
		sig = 0
	}
	if i == len(s) {
		return true
	}
	if s[i] != '.' || s[len(s)-1] == '0' {
		return false
	}
	frac := s[i+1:]
	if len(frac) == 0 {
		return false
	}
	lead := 0
	for lead < len(frac) && frac[lead] == '0' {
		lead++
	}
	if zeroInt {
		if lead > 3 {
			return false
		}
		sig = len(frac) - lead
	} else {
		sig += len(frac)
	}
	for j := 0; j < len(frac); j++ {
		if frac[j] < '0' || frac[j] > '9' {
			return false
		}
	}
	return sig <= 15
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
