package bridge

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// DecodeArgs parses tool arguments into generic JSON values with numbers
// kept exact, refusing oversized bodies, deep nesting, duplicate keys and
// trailing data before any schema is consulted. Valid arguments take one
// pass of parseArgs; whatever it declines is decoded or refused by walkArgs.
func DecodeArgs(raw []byte) (map[string]any, *Error) {
	return decodeArgsWith(raw, func(raw []byte) (any, *Error) {
		if v, ok := parseArgs(raw); ok {
			return v, nil
		}
		return walkArgs(raw)
	})
}

// decodeArgsWith is DecodeArgs with the value decoder given (tests compare
// the fast parser with walkArgs alone through it).
func decodeArgsWith(raw []byte, decode func([]byte) (any, *Error)) (map[string]any, *Error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return map[string]any{}, nil
	}
	if len(raw) > maxArgBytes {
		return nil, FieldError("(arguments)", fmt.Sprintf("at most %d bytes", maxArgBytes),
			fmt.Sprintf("%d bytes", len(raw)), "arguments too large")
	}
	v, err := decode(raw)
	if err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, FieldError("(arguments)", "object", describe(v), "arguments must be a JSON object")
	}
	return m, nil
}

// walkArgs is the reference decoder: it walks json.Decoder tokens and words
// the refusals. DecodeArgs uses it only for what parseArgs declines, so
// every error reads as it always has.
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

// parseArgs decodes raw in one pass over the bytes into the values
// walkArgs would produce (same types, same depth and duplicate-key rules).
// It only declines, never explains: anything it does not accept goes to
// walkArgs, which either refuses it in its own words or decodes it.
func parseArgs(raw []byte) (any, bool) {
	p := argParser{b: raw}
	v, ok := p.value(0)
	p.space()
	return v, ok && p.i == len(p.b)
}

// argParser is parseArgs' state. Strings and number literals are copied
// into shared chunks (arena) rather than one allocation each; a retained
// value keeps at most one chunk alive.
type argParser struct {
	b     []byte
	i     int
	stack []any // elements of the arrays being parsed, innermost last
	arena *strings.Builder
}

const arenaChunk = 8 << 10

// value parses one value at depth; like decodeValue, any value (scalar or
// not) deeper than maxDepth is refused.
func (p *argParser) value(depth int) (any, bool) {
	if depth > maxDepth {
		return nil, false
	}
	p.space()
	if p.i >= len(p.b) {
		return nil, false
	}
	switch p.b[p.i] {
	case '{':
		return p.object(depth)
	case '[':
		return p.array(depth)
	case '"':
		s, ok := p.str()
		return s, ok
	case 't':
		return true, p.literal("true")
	case 'f':
		return false, p.literal("false")
	case 'n':
		return nil, p.literal("null")
	}
	return p.number()
}

// object parses an object, refusing a key seen before (after unescaping).
func (p *argParser) object(depth int) (any, bool) {
	m := map[string]any{}
	p.i++ // '{'
	if p.space(); p.peek() == '}' {
		p.i++
		return m, true
	}
	for {
		p.space()
		k, ok := p.str()
		if !ok {
			return nil, false
		}
		if _, dup := m[k]; dup {
			return nil, false
		}
		if p.space(); p.peek() != ':' {
			return nil, false
		}
		p.i++
		v, ok := p.value(depth + 1)
		if !ok {
			return nil, false
		}
		m[k] = v
		switch p.space(); p.peek() {
		case ',':
			p.i++
		case '}':
			p.i++
			return m, true
		default:
			return nil, false
		}
	}
}

// array collects elements on the shared stack and copies them out at the
// end, so each array is one allocation of its final size.
func (p *argParser) array(depth int) (any, bool) {
	p.i++ // '['
	if p.space(); p.peek() == ']' {
		p.i++
		return []any{}, true
	}
	base := len(p.stack)
	for {
		v, ok := p.value(depth + 1)
		if !ok {
			return nil, false
		}
		p.stack = append(p.stack, v)
		switch p.space(); p.peek() {
		case ',':
			p.i++
		case ']':
			p.i++
			a := make([]any, len(p.stack)-base)
			copy(a, p.stack[base:])
			p.stack = p.stack[:base]
			return a, true
		default:
			return nil, false
		}
	}
}

// str parses a string literal. Plain ones (no escapes, valid UTF-8) are
// copied as they are; others are unquoted by encoding/json itself, so
// escapes, surrogates and invalid bytes come out exactly as walkArgs'.
func (p *argParser) str() (string, bool) {
	if p.peek() != '"' {
		return "", false
	}
	start := p.i
	plain, ascii := true, true
	for p.i++; p.i < len(p.b); p.i++ {
		switch c := p.b[p.i]; {
		case c == '"':
			p.i++
			lit := p.b[start:p.i]
			if plain && (ascii || utf8.Valid(lit)) {
				return p.keep(lit[1 : len(lit)-1]), true
			}
			var s string
			if json.Unmarshal(lit, &s) != nil {
				return "", false
			}
			return s, true
		case c == '\\':
			plain = false
			p.i++ // the escaped byte cannot end the string; Unmarshal checks it
		case c < 0x20:
			return "", false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return "", false
}

// number parses a number literal by JSON's grammar and keeps its spelling.
func (p *argParser) number() (any, bool) {
	start := p.i
	if p.peek() == '-' {
		p.i++
	}
	switch c := p.peek(); {
	case c == '0':
		p.i++
	case c >= '1' && c <= '9':
		p.digits()
	default:
		return nil, false
	}
	if p.peek() == '.' {
		p.i++
		if !p.digits() {
			return nil, false
		}
	}
	if c := p.peek(); c == 'e' || c == 'E' {
		p.i++
		if c := p.peek(); c == '+' || c == '-' {
			p.i++
		}
		if !p.digits() {
			return nil, false
		}
	}
	return json.Number(p.keep(p.b[start:p.i])), true
}

// digits skips a run of decimal digits and reports whether there was one.
func (p *argParser) digits() bool {
	start := p.i
	for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
		p.i++
	}
	return p.i > start
}

// literal consumes word (true, false or null) or declines.
func (p *argParser) literal(word string) bool {
	if !bytes.HasPrefix(p.b[p.i:], []byte(word)) {
		return false
	}
	p.i += len(word)
	return true
}

// space skips JSON whitespace.
func (p *argParser) space() { p.i = skipSpace(p.b, p.i) }

// skipSpace returns the index of the first byte from i on that is not JSON
// whitespace (len(b) if none).
func skipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// peek returns the current byte, or 0 at the end (never valid there).
func (p *argParser) peek() byte {
	if p.i < len(p.b) {
		return p.b[p.i]
	}
	return 0
}

// keep copies b into the current arena chunk and returns it as a string.
func (p *argParser) keep(b []byte) string {
	if p.arena == nil || p.arena.Cap()-p.arena.Len() < len(b) {
		p.arena = new(strings.Builder)
		p.arena.Grow(max(len(b), min(arenaChunk, len(p.b))))
	}
	p.arena.Write(b)
	s := p.arena.String() // earlier strings stay valid: a Builder only appends
	return s[len(s)-len(b):]
}
