package bridge

import (
	"encoding/json"
	"strconv"
)

// The reference canonical form: the reflection-based rendering that
// canonicalArgs replaced in the pipeline. Digests and motion ids were
// defined by it, so canonicalArgs is held to it byte for byte.

// canonicalJSON renders decoded arguments with sorted keys and normalised
// numbers, so equal arguments always have equal digests.
func canonicalJSON(v any) json.RawMessage {
	b, _ := json.Marshal(normalize(v))
	return b
}

func normalize(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = normalize(e)
		}
		return m
	case []any:
		a := make([]any, len(x))
		for i, e := range x {
			a[i] = normalize(e)
		}
		return a
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil {
			return string(x)
		}
		return json.Number(strconv.FormatFloat(f, 'g', -1, 64))
	}
	return v
}
