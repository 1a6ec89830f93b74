package tcpros

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// maxHeader bounds a connection header; real ones are a few KiB (the
// message definition is the largest field).
const maxHeader = 1 << 20

// ErrBadHeader means a connection header did not parse.
var ErrBadHeader = errors.New("bad TCPROS connection header")

// readHeader reads one connection header from r. Headers are written with
// goroslib's encoder (handshake); they are read here rather than with
// protocommon.HeaderRawDecode, which reads the length with a single Read
// and allocates each field by the length the peer declares (up to 16 MiB)
// before reading it: this reads whole lengths and checks every field
// against the bytes read.
func readHeader(r io.Reader) (map[string]string, error) {
	var l [4]byte
	if _, err := io.ReadFull(r, l[:]); err != nil {
		return nil, fmt.Errorf("read header length: %w", err)
	}
	n := binary.LittleEndian.Uint32(l[:])
	if n > maxHeader {
		return nil, fmt.Errorf("%w: %d bytes, at most %d", ErrBadHeader, n, maxHeader)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r, b); err != nil {
		return nil, fmt.Errorf("read header: %w", err)
	}
	return parseHeader(b)
}

// parseHeader parses a header's fields (after its length). A key given
// twice keeps its last value, as in roscpp.
func parseHeader(b []byte) (map[string]string, error) {
	fields := map[string]string{}
	for len(b) > 0 {
		if len(b) < 4 {
			return nil, fmt.Errorf("%w: %d stray bytes", ErrBadHeader, len(b))
		}
		n := binary.LittleEndian.Uint32(b)
		b = b[4:]
		if uint64(n) > uint64(len(b)) {
			return nil, fmt.Errorf("%w: field of %d bytes with %d left", ErrBadHeader, n, len(b))
		}
		k, v, ok := bytes.Cut(b[:n], []byte("="))
		if !ok {
			return nil, fmt.Errorf("%w: field %q has no '='", ErrBadHeader, b[:n])
		}
		fields[string(k)] = string(v)
		b = b[n:]
	}
	return fields, nil
}
