package bridge

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// DecodeArgs parses tool arguments into generic JSON values with numbers
// kept exact, refusing oversized bodies, deep nesting, duplicate keys and
// trailing data before any schema is consulted. It is the one argument
// decoder: one pass over the bytes (argsParser), yielding what
// encoding/json yields with UseNumber and refusing what it refuses.
func DecodeArgs(raw []byte) (map[string]any, *Error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return map[string]any{}, nil
	}
	if len(raw) > maxArgBytes {
		return nil, FieldError("(arguments)", fmt.Sprintf("at most %d bytes", maxArgBytes),
			fmt.Sprintf("%d bytes", len(raw)), "arguments too large")
	}
	p := argsParser{data: raw}
	v, err := p.value(0)
	if err != nil {
		return nil, FieldError("(arguments)", "a JSON object", "invalid JSON: "+clipRunes(err.Error(), 120), "arguments are not valid JSON")
	}
	if p.skipSpace(); p.pos < len(raw) {
		return nil, FieldError("(arguments)", "a single JSON object", "trailing data", "arguments are not valid JSON")
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, FieldError("(arguments)", "object", describe(v), "arguments must be a JSON object")
	}
	return m, nil
}

var errTooDeep = errors.New("nesting deeper than 32 levels")

// argsSyntaxError says where the bytes stop being JSON, in encoding/json's
// words and with its offset (bytes read, the offending one included).
type argsSyntaxError struct {
	msg    string
	offset int
}

func (e *argsSyntaxError) Error() string {
	return e.msg + " at offset " + strconv.Itoa(e.offset)
}

// argsParser is a recursive descent over one JSON text. It exists, rather
// than json.Decoder, for two properties that need each key and level seen
// as it is read: a duplicate key is refused (decoders disagree on which
// one wins, and the motion id must name one meaning), and nesting is
// bounded before recursing. Where it refuses, and the values it yields,
// are held to encoding/json's by TestDecodeArgsAgreesWithEncodingJSON and
// its fuzz target.
type argsParser struct {
	data []byte
	pos  int
	// elems holds the elements of the arrays being read, so each array is
	// allocated once at its final length.
	elems []any
	// chunk is a copy of data from chunkAt on that number literals are
	// cut from (see numberText).
	chunk   string
	chunkAt int
	// keys holds the object keys read so far, so a key repeated in every
	// waypoint is allocated once.
	keys map[string]string
}

// textChunk is how much of the body one copy for number literals takes:
// a number kept past the call keeps at most this much (or itself) alive.
const textChunk = 4 << 10

// maxInternedKeys bounds keys, for bodies whose keys are all different.
const maxInternedKeys = 64

// value reads the value starting at the next non-space byte; depth counts
// the arrays and objects around it.
func (p *argsParser) value(depth int) (any, error) {
	if depth > maxDepth {
		return nil, errTooDeep
	}
	c, err := p.peek()
	if err != nil {
		return nil, err
	}
	switch {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		return p.str()
	case c == '-' || '0' <= c && c <= '9':
		return p.number()
	case c == 't':
		return true, p.literal("true")
	case c == 'f':
		return false, p.literal("false")
	case c == 'n':
		return nil, p.literal("null")
	}
	return nil, p.invalid(p.pos, "looking for beginning of value")
}

func (p *argsParser) object(depth int) (any, error) {
	m := map[string]any{}
	p.pos++ // '{'
	c, err := p.peek()
	if err != nil {
		return nil, err
	}
	if c == '}' {
		p.pos++
		return m, nil
	}
	for {
		if c != '"' {
			return nil, p.invalid(p.pos, "looking for beginning of object key string")
		}
		k, err := p.objectKey()
		if err != nil {
			return nil, err
		}
		if _, dup := m[k]; dup {
			return nil, fmt.Errorf("duplicate key %q", clipRunes(k, 40))
		}
		if c, err = p.peek(); err != nil {
			return nil, err
		}
		if c != ':' {
			return nil, p.invalid(p.pos, "after object key")
		}
		p.pos++
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		m[k] = v
		if c, err = p.peek(); err != nil {
			return nil, err
		}
		switch c {
		case ',':
			p.pos++
			if c, err = p.peek(); err != nil {
				return nil, err
			}
		case '}':
			p.pos++
			return m, nil
		default:
			return nil, p.invalid(p.pos, "after object key:value pair")
		}
	}
}

func (p *argsParser) array(depth int) (any, error) {
	p.pos++ // '['
	c, err := p.peek()
	if err != nil {
		return nil, err
	}
	base := len(p.elems)
	if c != ']' {
		for {
			v, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			p.elems = append(p.elems, v)
			if c, err = p.peek(); err != nil {
				return nil, err
			}
			if c == ']' {
				break
			}
			if c != ',' {
				return nil, p.invalid(p.pos, "after array element")
			}
			p.pos++
		}
	}
	p.pos++ // ']'
	a := make([]any, len(p.elems)-base)
	copy(a, p.elems[base:])
	clear(p.elems[base:])
	p.elems = p.elems[:base]
	return a, nil
}

// str is unquoted's string as a value.
func (p *argsParser) str() (any, error) {
	s, err := p.unquoted()
	if err != nil {
		return nil, err
	}
	return s, nil
}

// objectKey is unquoted, with plain keys (no escapes, valid UTF-8) interned.
func (p *argsParser) objectKey() (string, error) {
	start := p.pos + 1
	if n := bytes.IndexByte(p.data[start:], '"'); n >= 0 {
		// Only plain keys are interned, so a hit is this key's value.
		if k, ok := p.keys[string(p.data[start:start+n])]; ok {
			p.pos = start + n + 1
			return k, nil
		}
	}
	s, err := p.unquoted()
	if err != nil || string(p.data[start:p.pos-1]) != s || len(p.keys) >= maxInternedKeys {
		return s, err
	}
	if p.keys == nil {
		p.keys = make(map[string]string)
	}
	p.keys[s] = s
	return s, nil
}

// unquoted reads the string whose opening quote is at pos. Strings without
// escapes or invalid UTF-8 (nearly all) are copied as they are.
func (p *argsParser) unquoted() (string, error) {
	start := p.pos + 1
	for i := start; i < len(p.data); {
		switch c := p.data[i]; {
		case c == '"':
			p.pos = i + 1
			return string(p.data[start:i]), nil
		case c == '\\':
			return p.unquote(start, i)
		case c < ' ':
			return "", p.invalid(i, "in string literal")
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRune(p.data[i:])
			if r == utf8.RuneError && size == 1 {
				return p.unquote(start, i)
			}
			i += size
		}
	}
	return "", p.eof()
}

// unquote finishes a string from i, where the first escape or invalid
// UTF-8 byte is, as encoding/json's unquote does: invalid UTF-8 and
// unpaired surrogates become U+FFFD, one per byte or escape.
func (p *argsParser) unquote(start, i int) (string, error) {
	b := append(make([]byte, 0, 2*(i-start)+16), p.data[start:i]...)
	for i < len(p.data) {
		c := p.data[i]
		switch {
		case c == '"':
			p.pos = i + 1
			return string(b), nil
		case c == '\\':
			if i+1 >= len(p.data) {
				return "", p.invalid(i+1, "in string escape code")
			}
			switch e := p.data[i+1]; e {
			case '"', '\\', '/':
				b = append(b, e)
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				r, err := p.hex4(i + 2)
				if err != nil {
					return "", err
				}
				i += 6
				if utf16.IsSurrogate(r) {
					if d := utf16.DecodeRune(r, p.lowSurrogate(i)); d != unicode.ReplacementChar {
						r = d
						i += 6
					} else {
						r = unicode.ReplacementChar
					}
				}
				b = utf8.AppendRune(b, r)
				continue
			default:
				return "", p.invalid(i+1, "in string escape code")
			}
			i += 2
		case c < ' ':
			return "", p.invalid(i, "in string literal")
		case c < utf8.RuneSelf:
			b = append(b, c)
			i++
		default:
			r, size := utf8.DecodeRune(p.data[i:])
			b = utf8.AppendRune(b, r)
			i += size
		}
	}
	return "", p.eof()
}

// hex4 reads the four hex digits of a \u escape starting at i.
func (p *argsParser) hex4(i int) (rune, error) {
	var r rune
	for j := i; j < i+4; j++ {
		if j >= len(p.data) {
			return 0, p.invalid(j, "in \\u hexadecimal character escape")
		}
		c := p.data[j]
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, p.invalid(j, "in \\u hexadecimal character escape")
		}
		r = r<<4 | rune(c)
	}
	return r, nil
}

// lowSurrogate is the \u escape at i that may complete a surrogate pair,
// or -1 when there is none (an error in it is reported when it is read).
func (p *argsParser) lowSurrogate(i int) rune {
	if i+1 >= len(p.data) || p.data[i] != '\\' || p.data[i+1] != 'u' {
		return -1
	}
	r, err := p.hex4(i + 2)
	if err != nil {
		return -1
	}
	return r
}

// number reads a number literal as it is spelt, for json.Number.
func (p *argsParser) number() (any, error) {
	d, start := p.data, p.pos
	i := start
	if d[i] == '-' {
		i++
		if err := p.digitAt(i, "in numeric literal"); err != nil {
			return nil, err
		}
	}
	if d[i] == '0' {
		i++
	} else {
		i = digits(d, i)
	}
	if i < len(d) && d[i] == '.' {
		i++
		if err := p.digitAt(i, "after decimal point in numeric literal"); err != nil {
			return nil, err
		}
		i = digits(d, i)
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if err := p.digitAt(i, "in exponent of numeric literal"); err != nil {
			return nil, err
		}
		i = digits(d, i)
	}
	p.pos = i
	return json.Number(p.numberText(start, i)), nil
}

// digitAt refuses anything but a digit at i, where a number needs one.
func (p *argsParser) digitAt(i int, context string) error {
	if i >= len(p.data) || p.data[i] < '0' || p.data[i] > '9' {
		return p.invalid(i, context)
	}
	return nil
}

// numberText is data[start:end] as a string without an allocation per
// number: it is cut from a copy of the body made a chunk at a time.
func (p *argsParser) numberText(start, end int) string {
	off := start - p.chunkAt
	if off < 0 || end-p.chunkAt > len(p.chunk) {
		p.chunk = string(p.data[start:min(len(p.data), max(end, start+textChunk))])
		p.chunkAt, off = start, 0
	}
	return p.chunk[off : off+end-start]
}

func digits(d []byte, i int) int {
	for i < len(d) && '0' <= d[i] && d[i] <= '9' {
		i++
	}
	return i
}

// literal reads true, false or null, whose first byte is at pos.
func (p *argsParser) literal(word string) error {
	for k := 1; k < len(word); k++ {
		if i := p.pos + k; i >= len(p.data) || p.data[i] != word[k] {
			return p.invalid(i, "in literal "+word+" (expecting "+quoteChar(word[k])+")")
		}
	}
	p.pos += len(word)
	return nil
}

// peek skips JSON whitespace and returns the byte there.
func (p *argsParser) peek() (byte, error) {
	if p.skipSpace(); p.pos >= len(p.data) {
		return 0, p.eof()
	}
	return p.data[p.pos], nil
}

func (p *argsParser) skipSpace() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

// invalid refuses the byte at i. At the end of the input it words the
// refusal as encoding/json does: it feeds its scanner one space there.
func (p *argsParser) invalid(i int, context string) error {
	if i >= len(p.data) {
		return &argsSyntaxError{"invalid character ' ' " + context, len(p.data)}
	}
	return &argsSyntaxError{"invalid character " + quoteChar(p.data[i]) + " " + context, i + 1}
}

func (p *argsParser) eof() error {
	return &argsSyntaxError{"unexpected end of JSON input", len(p.data)}
}

// quoteChar formats c as encoding/json's syntax errors do.
func quoteChar(c byte) string {
	switch c {
	case '\'':
		return `'\''`
	case '"':
		return `'"'`
	}
	s := strconv.Quote(string(rune(c)))
	return "'" + s[1:len(s)-1] + "'"
}
