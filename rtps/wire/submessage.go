package wire

import (
	"encoding/binary"
	"fmt"
)

// SubmessageKind is a submessage id (spec 9.4.5.1.1).
type SubmessageKind uint8

// Submessage kinds.
const (
	KindPad           SubmessageKind = 0x01
	KindAckNack       SubmessageKind = 0x06
	KindHeartbeat     SubmessageKind = 0x07
	KindGap           SubmessageKind = 0x08
	KindInfoTS        SubmessageKind = 0x09
	KindInfoSrc       SubmessageKind = 0x0c
	KindInfoReplyIP4  SubmessageKind = 0x0d
	KindInfoDst       SubmessageKind = 0x0e
	KindInfoReply     SubmessageKind = 0x0f
	KindNackFrag      SubmessageKind = 0x12
	KindHeartbeatFrag SubmessageKind = 0x13
	KindData          SubmessageKind = 0x15
	KindDataFrag      SubmessageKind = 0x16
)

const flagE = 0x01 // endianness: little endian when set

// Submessage is one of the submessage types of this package: *Data,
// *DataFrag, *Heartbeat, *HeartbeatFrag, *AckNack, *NackFrag, *Gap,
// *InfoTS, *InfoDst, *InfoSrc, *Pad or *Unknown.
type Submessage interface {
	Kind() SubmessageKind
	// body appends the submessage body in byte order o and returns the
	// flags other than E.
	body(b []byte, o ByteOrder) ([]byte, uint8, error)
	// parse reads the body; d is bounded to the submessage.
	parse(d *decoder, flags uint8) error
	bigEndian() bool
	setBigEndian(bool)
}

// Endianness records the byte order of a submessage. The zero value is
// little endian, what this package writes unless told otherwise.
type Endianness struct{ BigEndian bool }

func (e *Endianness) bigEndian() bool     { return e.BigEndian }
func (e *Endianness) setBigEndian(v bool) { e.BigEndian = v }

// AppendSubmessage appends s with its 4-octet header. The body length must
// fit 16 bits.
func AppendSubmessage(b []byte, s Submessage) ([]byte, error) {
	start := len(b)
	b = append(b, byte(s.Kind()), 0, 0, 0)
	le := !s.bigEndian()
	o := order(le)
	b, flags, err := s.body(b, o)
	if err != nil {
		return b[:start], err
	}
	n := len(b) - start - 4
	if n > 0xffff {
		return b[:start], fmt.Errorf("%w: %d octets", ErrSubmessageLength, n)
	}
	if le {
		flags |= flagE
	}
	b[start+1] = flags
	o.PutUint16(b[start+2:], uint16(n))
	return b, nil
}

// UnmarshalSubmessage parses the submessage at the start of b and returns
// it with the octets it took (header included). octetsToNextHeader 0 means
// "to the end of the message" except for PAD and INFO_TS.
func UnmarshalSubmessage(b []byte) (Submessage, int, error) {
	if len(b) < 4 {
		return nil, 0, ErrShort
	}
	kind, flags := SubmessageKind(b[0]), b[1]
	o := order(flags&flagE != 0)
	n := int(o.Uint16(b[2:]))
	if n == 0 && kind != KindPad && kind != KindInfoTS {
		n = len(b) - 4
	}
	if n > len(b)-4 {
		return nil, 0, fmt.Errorf("%w: kind 0x%02x length %d, %d left", ErrSubmessageLength, kind, n, len(b)-4)
	}
	var s Submessage
	switch kind {
	case KindPad:
		s = &Pad{}
	case KindAckNack:
		s = &AckNack{}
	case KindHeartbeat:
		s = &Heartbeat{}
	case KindGap:
		s = &Gap{}
	case KindInfoTS:
		s = &InfoTS{}
	case KindInfoSrc:
		s = &InfoSrc{}
	case KindInfoDst:
		s = &InfoDst{}
	case KindNackFrag:
		s = &NackFrag{}
	case KindHeartbeatFrag:
		s = &HeartbeatFrag{}
	case KindData:
		s = &Data{}
	case KindDataFrag:
		s = &DataFrag{}
	default:
		s = &Unknown{ID: kind}
	}
	s.setBigEndian(flags&flagE == 0)
	d := &decoder{b: b[4 : 4+n : 4+n], o: o}
	if err := s.parse(d, flags); err != nil {
		return nil, 0, fmt.Errorf("submessage 0x%02x: %w", kind, err)
	}
	if d.err != nil {
		return nil, 0, fmt.Errorf("submessage 0x%02x: %w", kind, d.err)
	}
	return s, 4 + n, nil
}

// Unknown is a submessage of a kind this package does not interpret,
// kept so a message round-trips.
type Unknown struct {
	Endianness
	ID    SubmessageKind
	Flags uint8 // without E
	Body  []byte
}

func (u *Unknown) Kind() SubmessageKind { return u.ID }
func (u *Unknown) body(b []byte, _ ByteOrder) ([]byte, uint8, error) {
	return append(b, u.Body...), u.Flags &^ flagE, nil
}
func (u *Unknown) parse(d *decoder, flags uint8) error {
	u.Flags, u.Body = flags&^flagE, d.rest()
	return nil
}

// Pad fills space; its body is ignored.
type Pad struct {
	Endianness
	Size int // octets of body
}

func (*Pad) Kind() SubmessageKind { return KindPad }
func (p *Pad) body(b []byte, _ ByteOrder) ([]byte, uint8, error) {
	return append(b, make([]byte, p.Size&^3)...), 0, nil
}
func (p *Pad) parse(d *decoder, _ uint8) error { p.Size = len(d.rest()); return nil }

// InfoTS sets the source timestamp of the submessages after it; Invalidate
// clears it (I flag, no time on the wire).
type InfoTS struct {
	Endianness
	Invalidate bool
	Time       Time
}

func (*InfoTS) Kind() SubmessageKind { return KindInfoTS }
func (t *InfoTS) body(b []byte, o ByteOrder) ([]byte, uint8, error) {
	if t.Invalidate {
		return b, 0x02, nil
	}
	return o.AppendUint32(o.AppendUint32(b, uint32(t.Time.Seconds)), t.Time.Fraction), 0, nil
}
func (t *InfoTS) parse(d *decoder, flags uint8) error {
	t.Invalidate = flags&0x02 != 0
	if !t.Invalidate {
		t.Time = Time{Seconds: int32(d.u32()), Fraction: d.u32()}
	}
	return nil
}

// InfoDst names the participant the following submessages are for; a
// zero prefix means everyone.
type InfoDst struct {
	Endianness
	Prefix GUIDPrefix
}

func (*InfoDst) Kind() SubmessageKind { return KindInfoDst }
func (i *InfoDst) body(b []byte, _ ByteOrder) ([]byte, uint8, error) {
	return append(b, i.Prefix[:]...), 0, nil
}
func (i *InfoDst) parse(d *decoder, _ uint8) error {
	copy(i.Prefix[:], d.take(12))
	return nil
}

// InfoSrc names the participant the following submessages come from.
type InfoSrc struct {
	Endianness
	Version ProtocolVersion
	Vendor  VendorID
	Prefix  GUIDPrefix
}

func (*InfoSrc) Kind() SubmessageKind { return KindInfoSrc }
func (i *InfoSrc) body(b []byte, o ByteOrder) ([]byte, uint8, error) {
	b = o.AppendUint32(b, 0)
	b = append(b, i.Version.Major, i.Version.Minor)
	b = binary.BigEndian.AppendUint16(b, uint16(i.Vendor))
	return append(b, i.Prefix[:]...), 0, nil
}
func (i *InfoSrc) parse(d *decoder, _ uint8) error {
	d.u32()
	i.Version = ProtocolVersion{d.u8(), d.u8()}
	if v := d.take(2); v != nil {
		i.Vendor = VendorID(binary.BigEndian.Uint16(v))
	}
	copy(i.Prefix[:], d.take(12))
	return nil
}
