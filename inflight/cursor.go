package inflight

import "encoding/base64"

// Cursor kinds: the first byte of every cursor, so one list's cursor is
// refused by another.
const (
	cursorMotions byte = 'm'
	cursorAudit   byte = 'a'
)

const (
	defaultPageLimit = 50
	maxPageLimit     = 1000
)

// encodeCursor makes an opaque cursor pointing at key, the next item to return.
func encodeCursor(kind byte, key []byte) string {
	return base64.RawURLEncoding.EncodeToString(append([]byte{kind}, key...))
}

// decodeCursor returns the key a cursor points at; "" means the start.
func decodeCursor(kind byte, c string, valid func(key []byte) bool) ([]byte, error) {
	if c == "" {
		return nil, nil
	}
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil || len(b) < 2 || b[0] != kind || !valid(b[1:]) {
		return nil, ErrBadCursor
	}
	return b[1:], nil
}

func pageLimit(limit int) int {
	switch {
	case limit <= 0:
		return defaultPageLimit
	case limit > maxPageLimit:
		return maxPageLimit
	}
	return limit
}
