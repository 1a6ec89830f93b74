package tcpros

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sort"
)

// maxHeader bounds a connection header; real ones are a few KiB (the
// message definition is the largest field).
const maxHeader = 1 << 20

// ErrBadHeader means a connection header did not parse.
var ErrBadHeader = errors.New("bad TCPROS connection header")

// encodeHeader is a connection header: a little-endian length, then
// length-prefixed "key=value" fields (sorted, so the bytes are stable).
func encodeHeader(fields map[string]string) []byte {
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b bytes.Buffer
	b.Write([]byte{0, 0, 0, 0})
	for _, k := range keys {
		b.Write(binary.LittleEndian.AppendUint32(nil, uint32(len(k)+1+len(fields[k]))))
		b.WriteString(k + "=" + fields[k])
	}
	out := b.Bytes()
	binary.LittleEndian.PutUint32(out, uint32(len(out)-4))
	return out
}

// readHeader reads one connection header from r.
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
