package inflight

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxCanonicalDepth bounds nesting so hostile arguments cannot exhaust the stack.
const maxCanonicalDepth = 256

// Canonical rewrites one JSON value so equal arguments get equal bytes:
// object keys sorted bytewise, no insignificant whitespace, strings with
// minimal escapes, numbers by value (1, 1.0 and 1e0 are all "1"). Duplicate
// keys are refused, since decoders disagree on which one wins.
func Canonical(raw json.RawMessage) ([]byte, error) {
	if !json.Valid(raw) {
		return nil, fmt.Errorf("%w: not a single well-formed value", ErrInvalidJSON)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var out bytes.Buffer
	if err := canonicalValue(dec, &out, 0); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%w: data after the value", ErrInvalidJSON)
	}
	return out.Bytes(), nil
}

func canonicalValue(dec *json.Decoder, out *bytes.Buffer, depth int) error {
	if depth > maxCanonicalDepth {
		return fmt.Errorf("%w: nested deeper than %d", ErrInvalidJSON, maxCanonicalDepth)
	}
	tok, err := dec.Token()
	if err != nil {
		return fmt.Errorf("%w: %v", ErrInvalidJSON, err)
	}
	switch t := tok.(type) {
	case json.Delim:
		if t == '[' {
			return canonicalArray(dec, out, depth)
		}
		return canonicalObject(dec, out, depth)
	case string:
		writeString(out, t)
	case json.Number:
		n, err := canonicalNumber(string(t))
		if err != nil {
			return err
		}
		out.WriteString(n)
	case bool:
		out.WriteString(strconv.FormatBool(t))
	case nil:
		out.WriteString("null")
	}
	return nil
}

func canonicalArray(dec *json.Decoder, out *bytes.Buffer, depth int) error {
	out.WriteByte('[')
	for i := 0; dec.More(); i++ {
		if i > 0 {
			out.WriteByte(',')
		}
		if err := canonicalValue(dec, out, depth+1); err != nil {
			return err
		}
	}
	_, err := dec.Token() // ']'
	out.WriteByte(']')
	return err
}

func canonicalObject(dec *json.Decoder, out *bytes.Buffer, depth int) error {
	type member struct {
		key   string
		value []byte
	}
	var members []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return fmt.Errorf("%w: %v", ErrInvalidJSON, err)
		}
		key, _ := tok.(string)
		var v bytes.Buffer
		if err := canonicalValue(dec, &v, depth+1); err != nil {
			return err
		}
		members = append(members, member{key, v.Bytes()})
	}
	if _, err := dec.Token(); err != nil { // '}'
		return fmt.Errorf("%w: %v", ErrInvalidJSON, err)
	}
	slices.SortFunc(members, func(a, b member) int { return strings.Compare(a.key, b.key) })
	out.WriteByte('{')
	for i, m := range members {
		if i > 0 {
			if members[i-1].key == m.key {
				return fmt.Errorf("%w: duplicate key %q", ErrInvalidJSON, m.key)
			}
			out.WriteByte(',')
		}
		writeString(out, m.key)
		out.WriteByte(':')
		out.Write(m.value)
	}
	out.WriteByte('}')
	return nil
}

// canonicalNumber prints a number by its value: integral values as exact
// integers, others as the shortest float64 that round-trips (what a Go
// consumer would decode anyway).
func canonicalNumber(s string) (string, error) {
	if !strings.ContainsAny(s, ".eE") {
		var z big.Int
		if _, ok := z.SetString(s, 10); !ok {
			return "", fmt.Errorf("%w: bad number %q", ErrInvalidJSON, s)
		}
		return z.String(), nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return "", fmt.Errorf("%w: number %s out of range", ErrInvalidJSON, s)
	}
	if f != math.Trunc(f) {
		return strconv.FormatFloat(f, 'g', -1, 64), nil
	}
	if math.Abs(f) < 1<<53 {
		return strconv.FormatInt(int64(f), 10), nil
	}
	z, _ := new(big.Float).SetFloat64(f).Int(nil)
	return z.String(), nil
}

// writeString escapes only what JSON requires, so the output does not depend
// on an encoder's HTML-escaping choices.
func writeString(out *bytes.Buffer, s string) {
	const hex = "0123456789abcdef"
	out.WriteByte('"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			out.WriteRune(r) // invalid bytes become U+FFFD, as the decoder does
			i += size
			continue
		}
		switch {
		case c == '"' || c == '\\':
			out.WriteByte('\\')
			out.WriteByte(c)
		case c == '\n':
			out.WriteString(`\n`)
		case c == '\r':
			out.WriteString(`\r`)
		case c == '\t':
			out.WriteString(`\t`)
		case c == '\b':
			out.WriteString(`\b`)
		case c == '\f':
			out.WriteString(`\f`)
		case c < 0x20:
			out.WriteString(`\u00`)
			out.WriteByte(hex[c>>4])
			out.WriteByte(hex[c&0xf])
		default:
			out.WriteByte(c)
		}
		i++
	}
	out.WriteByte('"')
}
