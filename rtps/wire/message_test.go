package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"reflect"
	"testing"
)

func testPrefix() GUIDPrefix { return GUIDPrefix{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12} }

func sampleSubmessages() []Submessage {
	acks := NewSequenceNumberSet(3)
	acks.Add(3)
	acks.Add(40)
	frags := FragmentNumberSet{Base: 2}
	frags.Add(2)
	frags.Add(257)
	return []Submessage{
		&InfoTS{Time: Time{Seconds: 1700000000, Fraction: 0x80000000}},
		&InfoTS{Invalidate: true},
		&InfoDst{Prefix: testPrefix()},
		&InfoSrc{Version: Version(), Vendor: VendorCyclone, Prefix: testPrefix()},
		&Data{ReaderID: EntityIDSPDPReader, WriterID: EntityIDSPDPWriter, WriterSN: 7,
			InlineQoS: ParameterList{{ID: PIDStatusInfo, Value: []byte{0, 0, 0, 3}}},
			Payload:   []byte{0, 3, 0, 0, 1, 0, 0, 0}, Key: true},
		&Data{Endianness: Endianness{BigEndian: true}, WriterID: 0x1103, WriterSN: 1 << 33, Payload: []byte{0, 1, 0, 0, 9, 9, 9, 9}},
		&Data{WriterID: 0x1103, WriterSN: 2},
		&DataFrag{WriterID: 0x1103, WriterSN: 9, FragmentStart: 2, Fragments: 1, FragmentSize: 8, SampleSize: 20, Payload: []byte("fragment")},
		&Heartbeat{ReaderID: EntityIDSEDPPublicationsReader, WriterID: EntityIDSEDPPublicationsWriter, First: 1, Last: 5, Count: 3, Final: true},
		&HeartbeatFrag{WriterID: 0x1103, WriterSN: 9, LastFragment: 3, Count: 1},
		&AckNack{ReaderID: EntityIDSEDPPublicationsReader, WriterID: EntityIDSEDPPublicationsWriter, State: acks, Count: 4},
		&NackFrag{WriterID: 0x1103, WriterSN: 9, State: frags, Count: 2},
		&Gap{WriterID: 0x1103, Start: 4, List: NewSequenceNumberSet(6)},
		&Pad{Size: 8},
		&Unknown{ID: 0x80, Flags: 0x02, Body: []byte{1, 2, 3, 4}},
	}
}

func TestEverySubmessageRoundTrips(t *testing.T) {
	for _, s := range sampleSubmessages() {
		m := Message{Header: Header{Version: Version(), Vendor: VendorCyclone, Prefix: testPrefix()}, Submessages: []Submessage{s}}
		b, err := m.Marshal()
		if err != nil {
			t.Fatalf("%T: %v", s, err)
		}
		var got Message
		if err := got.Unmarshal(b); err != nil {
			t.Fatalf("%T: %v", s, err)
		}
		if !reflect.DeepEqual(got.Submessages[0], s) {
			t.Errorf("%T: got %+v, want %+v", s, got.Submessages[0], s)
		}
		if got.Header != m.Header {
			t.Errorf("header: got %+v", got.Header)
		}
	}
}

func TestEndiannessIsPerSubmessage(t *testing.T) {
	hb := func(big bool) *Heartbeat {
		return &Heartbeat{Endianness: Endianness{BigEndian: big}, WriterID: 0x1103, First: 1, Last: 0x0102030405, Count: 7}
	}
	m := Message{Submessages: []Submessage{hb(true), hb(false)}}
	m.Header.Version = Version()
	b, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	// First submessage: E clear, count 7 big endian at its end.
	if b[HeaderSize+1]&flagE != 0 || binary.BigEndian.Uint32(b[HeaderSize+4+24:]) != 7 {
		t.Fatalf("first heartbeat not big endian: % x", b[HeaderSize:HeaderSize+32])
	}
	second := HeaderSize + 32
	if b[second+1]&flagE == 0 || binary.LittleEndian.Uint32(b[second+4+24:]) != 7 {
		t.Fatalf("second heartbeat not little endian: % x", b[second:])
	}
	var got Message
	if err := got.Unmarshal(b); err != nil {
		t.Fatal(err)
	}
	for i, s := range got.Submessages {
		if h := s.(*Heartbeat); h.Last != 0x0102030405 || h.Count != 7 {
			t.Errorf("submessage %d read wrong: %+v", i, h)
		}
	}
}

func TestUnknownSubmessageIsSkippedByItsLength(t *testing.T) {
	b := Header{Version: Version()}.AppendTo(nil)
	b = append(b, 0x77, flagE, 8, 0, 0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4) // unknown kind, 8 octets
	b, _ = AppendSubmessage(b, &InfoDst{Prefix: testPrefix()})
	var m Message
	if err := m.Unmarshal(b); err != nil {
		t.Fatal(err)
	}
	if len(m.Submessages) != 2 || m.Submessages[1].(*InfoDst).Prefix != testPrefix() {
		t.Fatalf("got %+v", m.Submessages)
	}
}

func TestZeroLengthMeansToTheEndExceptPadAndInfoTS(t *testing.T) {
	b := Header{Version: Version()}.AppendTo(nil)
	b = append(b, byte(KindPad), flagE, 0, 0)         // empty PAD
	b = append(b, byte(KindInfoTS), flagE|0x02, 0, 0) // invalidating INFO_TS
	b = append(b, byte(KindInfoDst), flagE, 0, 0)     // length 0: to the end
	b = append(b, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12)
	var m Message
	if err := m.Unmarshal(b); err != nil {
		t.Fatal(err)
	}
	if len(m.Submessages) != 3 || m.Submessages[2].(*InfoDst).Prefix != testPrefix() {
		t.Fatalf("got %+v", m.Submessages)
	}
}

func TestMalformedInputIsRefused(t *testing.T) {
	good, _ := (&Message{Header: Header{Version: Version()}, Submessages: []Submessage{
		&AckNack{State: NewSequenceNumberSet(1)}}}).Marshal()
	tooManyBits := bytes.Clone(good)
	binary.LittleEndian.PutUint32(tooManyBits[HeaderSize+4+16:], 257)
	longSub := bytes.Clone(good)
	binary.LittleEndian.PutUint16(longSub[HeaderSize+2:], 200)
	badQoS, _ := (&Message{Header: Header{Version: Version()}, Submessages: []Submessage{&Data{WriterSN: 1}}}).Marshal()
	binary.LittleEndian.PutUint16(badQoS[HeaderSize+6:], 8)
	for _, c := range []struct {
		name string
		b    []byte
		want error
	}{
		{"empty", nil, ErrShort},
		{"not rtps", append([]byte("RTPX"), good[4:]...), ErrNotRTPS},
		{"version 3", append([]byte("RTPS\x03\x00"), good[6:]...), ErrProtocolVersion},
		{"set of 257 bits", tooManyBits, ErrSetTooLarge},
		{"submessage past the end", longSub, ErrSubmessageLength},
		{"inline qos offset before fixed fields", badQoS, ErrInlineQoSOffset},
		{"truncated submessage header", append(bytes.Clone(good[:HeaderSize]), 0x15, 1), ErrShort},
		{"truncated acknack", good[:len(good)-4], ErrSubmessageLength},
	} {
		var m Message
		if err := m.Unmarshal(c.b); !errors.Is(err, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, err, c.want)
		}
	}
}

func TestSequenceNumberSetMembership(t *testing.T) {
	s := NewSequenceNumberSet(100)
	for _, sn := range []SequenceNumber{100, 131, 132, 355} {
		if !s.Add(sn) {
			t.Fatalf("add %d refused", sn)
		}
	}
	if s.Add(356) || s.Add(99) {
		t.Fatal("add outside the 256-bit window accepted")
	}
	if got := s.Members(); !reflect.DeepEqual(got, []SequenceNumber{100, 131, 132, 355}) {
		t.Fatalf("members %v", got)
	}
	if s.Contains(101) || !s.Contains(131) || s.NumBits != 256 {
		t.Fatalf("contains/numbits wrong: %+v", s)
	}
}
