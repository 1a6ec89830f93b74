package tcpros

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"slices"
	"testing"
)

// chunks is a reader that returns one chunk per Read, like a socket
// whose data arrived in those pieces.
type chunks struct{ c [][]byte }

func (r *chunks) Read(p []byte) (int, error) {
	if len(r.c) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.c[0])
	if r.c[0] = r.c[0][n:]; len(r.c[0]) == 0 {
		r.c = r.c[1:]
	}
	return n, nil
}

func msg(s string) []byte { return append(binary.LittleEndian.AppendUint32(nil, uint32(len(s))), s...) }

// deliveries runs readBatches (pausing for nothing) over the chunks until
// they run out.
func deliveries(in [][]byte) ([]string, error) { return deliveriesOf(in, false) }

// deliveriesOf is deliveries with every message delivered when all.
func deliveriesOf(in [][]byte, all bool) ([]string, error) {
	var got []string
	err := readBatches(bufio.NewReaderSize(&chunks{in}, 64), all, func(b []byte, _ int) { got = append(got, string(b)) },
		func() error { return nil })
	return got, err
}

func TestWithAllEveryMessageIsDeliveredInOrder(t *testing.T) {
	a, b, c := msg("a"), msg("bb"), msg("ccc")
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	for _, in := range [][][]byte{
		{cat(a, b, c)},
		{a, b, c},
		{cat(a, b[:3]), b[3:], c},
		{cat(a, b[:2]), cat(b[2:], c)},
	} {
		got, err := deliveriesOf(in, true)
		if !errors.Is(err, io.EOF) || !slices.Equal(got, []string{"a", "bb", "ccc"}) {
			t.Errorf("%q: delivered %q (%v), want every message in order", in, got, err)
		}
	}
}

func TestOnlyTheNewestCompleteMessageOfAReadIsDelivered(t *testing.T) {
	a, b, c := msg("a"), msg("bb"), msg("ccc")
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	for _, tc := range []struct {
		name string
		in   [][]byte
		want []string
	}{
		{"one read of three", [][]byte{cat(a, b, c)}, []string{"ccc"}},
		{"a read each", [][]byte{a, b, c}, []string{"a", "bb", "ccc"}},
		{"a split message waits for its rest", [][]byte{cat(a, b[:3]), b[3:], c}, []string{"a", "bb", "ccc"}},
		{"a split length", [][]byte{cat(a, b[:2]), cat(b[2:], c)}, []string{"a", "ccc"}},
		{"empty message", [][]byte{msg("")}, []string{""}},
		{"larger than the buffer", [][]byte{msg(string(bytes.Repeat([]byte("x"), 200)))}, []string{string(bytes.Repeat([]byte("x"), 200))}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := deliveries(tc.in)
			if !errors.Is(err, io.EOF) {
				t.Errorf("end = %v, want EOF", err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("delivered %q, want %q", got, tc.want)
			}
		})
	}
}

func TestBadOrCutStreamsEndWithAnError(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []byte
		want error
	}{
		{"length beyond the bound", binary.LittleEndian.AppendUint32(nil, maxMessage+1), ErrBadMessage},
		{"cut in the length", []byte{3, 0}, io.EOF},
		{"cut in the body", msg("abc")[:5], io.ErrUnexpectedEOF},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := deliveries([][]byte{tc.in})
			if len(got) != 0 || !errors.Is(err, tc.want) {
				t.Errorf("delivered %q, end %v; want nothing and %v", got, err, tc.want)
			}
		})
	}
}

func TestAPauseErrorStopsReading(t *testing.T) {
	stop := errors.New("stop")
	n := 0
	err := readBatches(bufio.NewReader(&chunks{[][]byte{msg("a"), msg("b")}}), false, func([]byte, int) { n++ }, func() error { return stop })
	if !errors.Is(err, stop) || n != 1 {
		t.Errorf("%d deliveries, end %v; want 1 and the pause's error", n, err)
	}
}

// FuzzReadBatches: any stream, cut anywhere, delivers only messages that
// are in it, without panicking.
func FuzzReadBatches(f *testing.F) {
	f.Add(bytes.Join([][]byte{msg("a"), msg("bb")}, nil), uint8(1))
	f.Add([]byte{0xff, 0xff, 0xff, 0x7f, 1}, uint8(0))
	f.Add(msg(""), uint8(3))
	f.Fuzz(func(t *testing.T, in []byte, cut uint8) {
		parts := [][]byte{in}
		if c := int(cut); c < len(in) {
			parts = [][]byte{in[:c], in[c:]}
		}
		_ = readBatches(bufio.NewReaderSize(&chunks{parts}, 16), false, func(b []byte, _ int) {
			if !bytes.Contains(in, b) {
				t.Fatalf("delivered %q, not in the stream", b)
			}
		}, nil)
	})
}
