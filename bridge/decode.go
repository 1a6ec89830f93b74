package bridge

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// DecodeArgs parses tool arguments into generic JSON values with numbers
// kept exact, refusing oversized bodies, deep nesting, duplicate keys and
// trailing data before any schema is consulted. It is the one argument
// decoder: walkArgs, over encoding/json's tokens.
func DecodeArgs(raw []byte) (map[string]any, *Error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return map[string]any{}, nil
	}
	if len(raw) > maxArgBytes {
		return nil, FieldError("(arguments)", fmt.Sprintf("at most %d bytes", maxArgBytes),
			fmt.Sprintf("%d bytes", len(raw)), "arguments too large")
	}
	v, err := walkArgs(raw)
	if err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, FieldError("(arguments)", "object", describe(v), "arguments must be a JSON object")
	}
	return m, nil
}

// walkArgs decodes by walking json.Decoder tokens rather than by
// Decode, because two properties need each key seen: a duplicate key is
// refused (decoders disagree on which one wins, and the motion id must
// name one meaning), and nesting is bounded before recursion.
func walkArgs(raw []byte) (any, *Error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	v, err := decodeValue(dec, 0)
	if err != nil {
		return nil, FieldError("(arguments)", "a JSON object", "invalid JSON: "+clipRunes(err.Error(), 120), "arguments are not valid JSON")
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, FieldError("(arguments)", "a single JSON object", "trailing data", "arguments are not valid JSON")
	}
	return v, nil
}

var errTooDeep = errors.New("nesting deeper than 32 levels")

// decodeValue walks tokens so depth and duplicate keys are checked without
// trusting encoding/json's recursion on hostile input.
func decodeValue(dec *json.Decoder, depth int) (any, error) {
	if depth > maxDepth {
		return nil, errTooDeep
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			m := map[string]any{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, ok := kt.(string)
				if !ok {
					return nil, errors.New("object key is not a string")
				}
				if _, dup := m[k]; dup {
					return nil, fmt.Errorf("duplicate key %q", clipRunes(k, 40))
				}
				v, err := decodeValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				m[k] = v
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return m, nil
		case '[':
			a := []any{}
			for dec.More() {
				v, err := decodeValue(dec, depth+1)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return a, nil
		}
		return nil, fmt.Errorf("unexpected %v", t)
	default:
		return t, nil
	}
}
