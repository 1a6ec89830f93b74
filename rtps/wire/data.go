package wire

import (
	"fmt"
)

// DATA flags (spec 9.4.5.3.1) and DATA_FRAG flags (9.4.5.4.1).
const (
	dataFlagQ     = 0x02
	dataFlagD     = 0x04
	dataFlagK     = 0x08
	dataFlagN     = 0x10
	dataFragFlagK = 0x04
	dataFragFlagN = 0x08
)

// dataFixed and dataFragFixed are the octets after octetsToInlineQos up to
// the inline QoS: what octetsToInlineQos normally holds.
const (
	dataFixed     = 16
	dataFragFixed = 28
)

// Data carries one change of a writer: a serialized sample, a serialized
// key (Key), or only inline QoS (a dispose by key hash, say).
type Data struct {
	Endianness
	ExtraFlags uint16
	ReaderID   EntityID
	WriterID   EntityID
	WriterSN   SequenceNumber
	// InlineQoS is nil when the Q flag is clear.
	InlineQoS ParameterList
	// Payload is the SerializedPayload including its 4-octet encapsulation
	// header; nil when the change carries neither data nor key.
	Payload []byte
	// Key marks Payload as a serialized key (K flag) instead of data (D).
	Key bool
	// NonStandard is the N flag: the payload is not in a standard form.
	NonStandard bool
}

func (*Data) Kind() SubmessageKind { return KindData }

func (m *Data) body(b []byte, o ByteOrder) ([]byte, uint8, error) {
	b = appendDataStart(b, o, m.ExtraFlags, dataFixed, m.ReaderID, m.WriterID, m.WriterSN)
	b, flags, err := appendInlineQoS(b, o, m.InlineQoS)
	if err != nil {
		return b, 0, err
	}
	if m.Payload != nil {
		if m.Key {
			flags |= dataFlagK
		} else {
			flags |= dataFlagD
		}
		b = append(b, m.Payload...)
	}
	if m.NonStandard {
		flags |= dataFlagN
	}
	return b, flags, nil
}

func (m *Data) parse(d *decoder, flags uint8) error {
	m.ExtraFlags = d.u16()
	toQoS := int(d.u16())
	m.ReaderID = d.entityID()
	m.WriterID = d.entityID()
	m.WriterSN = d.sn()
	if d.err != nil {
		return d.err
	}
	var err error
	if m.InlineQoS, err = parseInlineQoS(d, flags, toQoS, dataFixed); err != nil {
		return err
	}
	m.Key = flags&dataFlagK != 0
	m.NonStandard = flags&dataFlagN != 0
	if flags&(dataFlagD|dataFlagK) != 0 {
		m.Payload = d.rest()
		if m.Payload == nil {
			m.Payload = []byte{}
		}
	}
	return nil
}

func appendDataStart(b []byte, o ByteOrder, extra uint16, toQoS uint16, r, w EntityID, sn SequenceNumber) []byte {
	b = o.AppendUint16(b, extra)
	b = o.AppendUint16(b, toQoS)
	b = appendEntityID(b, r)
	b = appendEntityID(b, w)
	return appendSN(b, o, sn)
}

// appendInlineQoS appends pl if it is not nil and returns the Q flag.
func appendInlineQoS(b []byte, o ByteOrder, pl ParameterList) ([]byte, uint8, error) {
	if pl == nil {
		return b, 0, nil
	}
	b, err := pl.AppendTo(b, o)
	return b, dataFlagQ, err
}

// parseInlineQoS skips any octets octetsToInlineQos (toQoS) adds after
// the fixed fields (extensions of later protocol versions), then reads
// the inline QoS if the Q flag is set.
func parseInlineQoS(d *decoder, flags uint8, toQoS, fixed int) (ParameterList, error) {
	if toQoS < fixed {
		return nil, fmt.Errorf("%w: %d", ErrInlineQoSOffset, toQoS)
	}
	if d.take(toQoS - fixed); d.err != nil {
		return nil, fmt.Errorf("%w: %d", ErrInlineQoSOffset, toQoS)
	}
	if flags&dataFlagQ == 0 {
		return nil, nil
	}
	pl, n, err := UnmarshalParameterList(d.b[d.off:], d.o)
	if err != nil {
		return nil, fmt.Errorf("inline qos: %w", err)
	}
	d.take(n)
	return pl, nil
}

// DataFrag carries fragments of one change too large for one message.
// Fragment numbers start at 1; sample octets of fragment f start at
// (f-1)*FragmentSize.
type DataFrag struct {
	Endianness
	ExtraFlags    uint16
	ReaderID      EntityID
	WriterID      EntityID
	WriterSN      SequenceNumber
	FragmentStart uint32 // fragmentStartingNum
	Fragments     uint16 // fragmentsInSubmessage
	FragmentSize  uint16
	SampleSize    uint32
	InlineQoS     ParameterList // nil when the Q flag is clear
	// Payload is the fragments' octets (the first fragment's start with the
	// encapsulation header).
	Payload     []byte
	Key         bool
	NonStandard bool
}

func (*DataFrag) Kind() SubmessageKind { return KindDataFrag }

func (m *DataFrag) body(b []byte, o ByteOrder) ([]byte, uint8, error) {
	b = appendDataStart(b, o, m.ExtraFlags, dataFragFixed, m.ReaderID, m.WriterID, m.WriterSN)
	b = o.AppendUint32(b, m.FragmentStart)
	b = o.AppendUint16(b, m.Fragments)
	b = o.AppendUint16(b, m.FragmentSize)
	b = o.AppendUint32(b, m.SampleSize)
	b, flags, err := appendInlineQoS(b, o, m.InlineQoS)
	if err != nil {
		return b, 0, err
	}
	if m.Key {
		flags |= dataFragFlagK
	}
	if m.NonStandard {
		flags |= dataFragFlagN
	}
	return append(b, m.Payload...), flags, nil
}

func (m *DataFrag) parse(d *decoder, flags uint8) error {
	m.ExtraFlags = d.u16()
	toQoS := int(d.u16())
	m.ReaderID = d.entityID()
	m.WriterID = d.entityID()
	m.WriterSN = d.sn()
	m.FragmentStart = d.u32()
	m.Fragments = d.u16()
	m.FragmentSize = d.u16()
	m.SampleSize = d.u32()
	if d.err != nil {
		return d.err
	}
	var err error
	if m.InlineQoS, err = parseInlineQoS(d, flags, toQoS, dataFragFixed); err != nil {
		return err
	}
	m.Key = flags&dataFragFlagK != 0
	m.NonStandard = flags&dataFragFlagN != 0
	m.Payload = d.rest()
	return nil
}
