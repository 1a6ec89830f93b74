package tcpros

import (
	"bytes"
	"encoding/binary"
	"errors"
	"maps"
	"slices"
	"testing"

	"github.com/bluenviron/goroslib/v2/pkg/protocommon"
	"github.com/bluenviron/goroslib/v2/pkg/prototcp"
)

// field is one length-prefixed header field.
func field(s string) []byte {
	return append(binary.LittleEndian.AppendUint32(nil, uint32(len(s))), s...)
}

func TestHeaderParsesFieldsAndRefusesMalformedOnes(t *testing.T) {
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	for _, tc := range []struct {
		name string
		in   []byte
		want map[string]string // nil: ErrBadHeader
	}{
		{"empty", nil, map[string]string{}},
		{"fields", cat(field("md5sum=abc"), field("type=std_msgs/String")), map[string]string{"md5sum": "abc", "type": "std_msgs/String"}},
		{"value with '='", cat(field("error=a=b")), map[string]string{"error": "a=b"}},
		{"empty value", cat(field("latching=")), map[string]string{"latching": ""}},
		{"last of a repeated key wins", cat(field("k=1"), field("k=2")), map[string]string{"k": "2"}},
		{"no '='", cat(field("md5sum")), nil},
		{"field longer than the rest", cat(binary.LittleEndian.AppendUint32(nil, 50), []byte("k=v")), nil},
		{"huge field length", cat(binary.LittleEndian.AppendUint32(nil, 0xffffffff), []byte("k=v")), nil},
		{"stray bytes", cat(field("k=v"), []byte{1, 0}), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseHeader(tc.in)
			if tc.want == nil {
				if !errors.Is(err, ErrBadHeader) {
					t.Fatalf("parse = %v, %v; want ErrBadHeader", got, err)
				}
				return
			}
			if err != nil || !maps.Equal(got, tc.want) {
				t.Fatalf("parse = %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}

// TestHeaderReadsWhatGoroslibWrites: the subscriber's header, as the
// handshake encodes it with goroslib, reads back field for field.
func TestHeaderReadsWhatGoroslibWrites(t *testing.T) {
	var b bytes.Buffer
	if err := protocommon.HeaderEncode(&b, &prototcp.HeaderSubscriber{Callerid: "/n", Topic: "/t", Type: "std_msgs/String",
		Md5sum: "*", MessageDefinition: "string data\n", TcpNodelay: 1}); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"callerid": "/n", "topic": "/t", "type": "std_msgs/String", "md5sum": "*",
		"message_definition": "string data\n", "tcp_nodelay": "1"}
	got, err := readHeader(&b)
	if err != nil || !maps.Equal(got, want) {
		t.Fatalf("read = %v, %v; want %v", got, err, want)
	}
}

// encodeHeader writes fields as a connection header (sorted), for the
// fuzz target's round trip of arbitrary fields.
func encodeHeader(fields map[string]string) []byte {
	out := []byte{0, 0, 0, 0}
	for _, k := range slices.Sorted(maps.Keys(fields)) {
		out = append(out, field(k+"="+fields[k])...)
	}
	binary.LittleEndian.PutUint32(out, uint32(len(out)-4))
	return out
}

func TestHeaderLongerThanTheBoundIsRefusedBeforeReadingIt(t *testing.T) {
	in := binary.LittleEndian.AppendUint32(nil, maxHeader+1)
	if _, err := readHeader(bytes.NewReader(in)); !errors.Is(err, ErrBadHeader) {
		t.Fatalf("readHeader = %v, want ErrBadHeader", err)
	}
}

// FuzzParseHeader: any bytes parse or fail without panicking, and what
// parses encodes back to the same fields.
func FuzzParseHeader(f *testing.F) {
	f.Add([]byte{})
	f.Add(encodeHeader(map[string]string{"md5sum": "992ce8a1687cec8c8bd883ec73ca41d1", "type": "std_msgs/String"})[4:])
	f.Add(append(field("k=v"), 0xff, 0xff, 0xff, 0xff))
	f.Add(field("novalue"))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := parseHeader(b)
		if err != nil {
			return
		}
		again, err := parseHeader(encodeHeader(got)[4:])
		if err != nil || !maps.Equal(again, got) {
			t.Fatalf("re-encoded %v parses as %v, %v", got, again, err)
		}
	})
}
