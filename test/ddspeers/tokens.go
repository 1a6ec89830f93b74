package ddspeers

import (
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"reflect"
	"strconv"

	"github.com/actbridge/actbridge/cdr"
)

// appendTokens writes m as the peers read a sample: one token per value,
// depth first in field order, separated by spaces. Integers are decimal,
// floats are C hex floats (exact), bools 0 or 1, strings "x" followed by
// the hex of their bytes; an array or sequence is its length then its
// elements (the readers check an array's length against the type's).
func appendTokens(dst []byte, m *cdr.Message) ([]byte, error) {
	for i, v := range m.Fields {
		var err error
		if dst, err = appendValueTokens(dst, v); err != nil {
			return nil, fmt.Errorf("%s: %w", m.Type.Field(i).Name, err)
		}
	}
	return dst, nil
}

// SampleLine returns m as one line of a pub peer's stdin (sample text,
// newline ended), for tests outside this package that feed a peer.
func SampleLine(m *cdr.Message) (string, error) {
	b, err := appendTokens(nil, m)
	if err != nil {
		return "", err
	}
	return string(b) + "\n", nil
}

func appendValueTokens(dst []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case bool:
		if x {
			return append(dst, " 1"...), nil
		}
		return append(dst, " 0"...), nil
	case uint8, uint16, uint32, uint64:
		return strconv.AppendUint(append(dst, ' '), reflect.ValueOf(x).Uint(), 10), nil
	case int8, int16, int32, int64:
		return strconv.AppendInt(append(dst, ' '), reflect.ValueOf(x).Int(), 10), nil
	case float32:
		return appendFloat(dst, float64(x)), nil
	case float64:
		return appendFloat(dst, x), nil
	case string:
		dst = append(dst, " x"...)
		return hex.AppendEncode(dst, []byte(x)), nil
	case *cdr.Message:
		return appendTokens(dst, x)
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Slice {
		return nil, fmt.Errorf("value of type %T", v)
	}
	dst = strconv.AppendInt(append(dst, ' '), int64(rv.Len()), 10)
	for i := range rv.Len() {
		var err error
		if dst, err = appendValueTokens(dst, rv.Index(i).Interface()); err != nil {
			return nil, fmt.Errorf("[%d]: %w", i, err)
		}
	}
	return dst, nil
}

func appendFloat(dst []byte, f float64) []byte {
	switch {
	case math.IsInf(f, 1):
		return append(dst, " inf"...)
	case math.IsInf(f, -1):
		return append(dst, " -inf"...)
	}
	return strconv.AppendFloat(append(dst, ' '), f, 'x', -1, 64)
}

// writeSample writes one dump request: type name, endianness, the sample.
func writeSample(w io.Writer, m *cdr.Message, e cdr.Endianness) error {
	line := []byte(m.Type.Name())
	if e == cdr.BigEndian {
		line = append(line, " BE"...)
	} else {
		line = append(line, " LE"...)
	}
	line, err := appendTokens(line, m)
	if err != nil {
		return err
	}
	_, err = w.Write(append(line, '\n'))
	return err
}
