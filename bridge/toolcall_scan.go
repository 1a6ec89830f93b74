package bridge

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// scanToolCall reads the usual JSON-RPC request body without
// encoding/json's Decoder, whose token API costs most of parsing a read
// (~9 µs hot, ~50 µs after an idle pause; every request pays it). It
// answers only where it is sure to agree with decodeToolCall: ok=false
// leaves the body to it, which is the reference (escapes in keys or in the
// string fields, non-ASCII keys, anything malformed). The call's raw
// fields are slices of body, which must not change afterwards.
func scanToolCall(body []byte) (call *rpcCall, ok bool) {
	s := scanner{b: body}
	var c rpcCall
	meta := func(k string) bool {
		switch k {
		case "progressToken":
			return s.raw(&c.Params.Meta.ProgressToken)
		case "io.modelcontextprotocol/protocolVersion":
			return s.raw(&c.Params.Meta.ProtocolVersion)
		case "io.modelcontextprotocol/clientCapabilities":
			return s.raw(&c.Params.Meta.ClientCapabilities)
		}
		return s.raw(nil)
	}
	params := func(k string) bool {
		switch k {
		case "name":
			return s.str(&c.Params.Name)
		case "arguments":
			return s.raw(&c.Params.Arguments)
		case "requestState":
			return s.str(&c.Params.RequestState)
		case "inputResponses":
			return s.raw(&c.Params.InputResponses)
		case "_meta":
			return s.object(meta)
		}
		return s.raw(nil)
	}
	top := func(k string) bool {
		switch k {
		case "jsonrpc":
			return s.str(&c.JSONRPC)
		case "id":
			return s.raw(&c.ID)
		case "method":
			return s.str(&c.Method)
		case "params":
			return s.object(params)
		}
		return s.raw(nil)
	}
	if !s.object(top) {
		return nil, false
	}
	if s.space(); s.i != len(s.b) { // trailing data
		return nil, false
	}
	if c.Method != "tools/call" {
		return nil, true
	}
	return &c, true
}

// scanner walks one JSON text; every method reports false on anything it
// does not read exactly as encoding/json would.
type scanner struct {
	b []byte
	i int
}

func (s *scanner) space() { s.i = skipSpace(s.b, s.i) }

// maxScanKeys bounds the keys of one object the scan reads: it finds a
// repeated key by comparing with each earlier one, which is quadratic, so
// a body of many keys goes to the decoder (a map) instead.
const maxScanKeys = 32

// object reads an object, calling field for each key (which reads the
// value); a repeated key ends it false, as decodeToolCall's exactObject.
func (s *scanner) object(field func(key string) bool) bool {
	if s.space(); s.i >= len(s.b) || s.b[s.i] != '{' {
		return false
	}
	s.i++
	if s.space(); s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		return true
	}
	var seen []string
	for {
		s.space()
		k, ok := s.key()
		if !ok {
			return false
		}
		if len(seen) == maxScanKeys {
			return false
		}
		for _, prev := range seen {
			if prev == k {
				return false
			}
		}
		seen = append(seen, k)
		if s.space(); s.i >= len(s.b) || s.b[s.i] != ':' {
			return false
		}
		s.i++
		if !field(k) {
			return false
		}
		if s.space(); s.i >= len(s.b) {
			return false
		}
		switch s.b[s.i] {
		case ',':
			s.i++
		case '}':
			s.i++
			return true
		default:
			return false
		}
	}
}

// key reads a key of printable ASCII without escapes.
func (s *scanner) key() (string, bool) {
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return "", false
	}
	for j := s.i + 1; j < len(s.b); j++ {
		switch c := s.b[j]; {
		case c == '"':
			k := string(s.b[s.i+1 : j])
			s.i = j + 1
			return k, true
		case c == '\\' || c < 0x20 || c >= utf8.RuneSelf:
			return "", false
		}
	}
	return "", false
}

// str reads a string field: a string without escapes in valid UTF-8 (a
// valid JSON string has no control characters), or null (which leaves dst
// as it is, as encoding/json does).
func (s *scanner) str(dst *string) bool {
	v, ok := s.value()
	switch {
	case !ok:
		return false
	case string(v) == "null":
		return true
	case v[0] != '"':
		return false
	}
	in := v[1 : len(v)-1]
	if bytes.IndexByte(in, '\\') >= 0 || !utf8.Valid(in) {
		return false
	}
	*dst = string(in)
	return true
}

// raw reads any valid value into dst (nil: skip it).
func (s *scanner) raw(dst *json.RawMessage) bool {
	v, ok := s.value()
	if ok && dst != nil {
		*dst = v
	}
	return ok
}

// value returns the next value's bytes, checked by json.Valid: the walk
// only finds where the value ends (strings skipped, brackets counted).
func (s *scanner) value() ([]byte, bool) {
	s.space()
	start, depth := s.i, 0
	for s.i < len(s.b) {
		switch c := s.b[s.i]; c {
		case '"':
			if !s.skipString() {
				return nil, false
			}
			if depth == 0 {
				return s.checked(start)
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 { // the end of the enclosing object: a literal ended
				return s.checked(start)
			}
			depth--
			if depth == 0 {
				s.i++
				return s.checked(start)
			}
		case ',', ' ', '\t', '\n', '\r':
			if depth == 0 {
				return s.checked(start)
			}
		}
		s.i++
	}
	if depth == 0 {
		return s.checked(start)
	}
	return nil, false
}

// checked is the value's bytes, capped so that an append copies rather
// than writes over the rest of the body.
func (s *scanner) checked(start int) ([]byte, bool) {
	v := s.b[start:s.i:s.i]
	return v, len(v) > 0 && json.Valid(v)
}

// skipString moves past the string starting at s.i.
func (s *scanner) skipString() bool {
	for j := s.i + 1; j < len(s.b); j++ {
		switch s.b[j] {
		case '\\':
			j++
		case '"':
			s.i = j + 1
			return true
		}
	}
	return false
}
