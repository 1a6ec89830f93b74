package service

import (
	"encoding/binary"
	"fmt"

	"github.com/actbridge/actbridge/rtps"
	"github.com/actbridge/actbridge/rtps/wire"
)

// encapsulationSize is the CDR encapsulation header in front of a payload.
const encapsulationSize = 4

// RequestHeader is rmw_cyclonedds's in-band header, {uint64 guid; int64
// seq} in the payload's byte order between the encapsulation header and
// the message: the client's id and its request counter, copied by the
// server into the reply.
type RequestHeader struct {
	GUID uint64
	Seq  int64
}

// headerSize is a RequestHeader's size on the wire.
const headerSize = 16

// payloadOrder returns the byte order a CDR encapsulation header names.
func payloadOrder(payload []byte) (binary.ByteOrder, error) {
	if len(payload) < encapsulationSize {
		return nil, fmt.Errorf("%w: %d octets, no encapsulation header", ErrFrame, len(payload))
	}
	switch {
	case payload[0] == 0 && payload[1] == 0:
		return binary.BigEndian, nil
	case payload[0] == 0 && payload[1] == 1:
		return binary.LittleEndian, nil
	}
	return nil, fmt.Errorf("%w: encapsulation %#02x%02x is not classic CDR", ErrFrame, payload[0], payload[1])
}

// AppendCycloneFrame appends body (an encoded message, encapsulation
// header first) with h inserted after its encapsulation header, in the
// byte order that header names.
func AppendCycloneFrame(dst []byte, h RequestHeader, body []byte) ([]byte, error) {
	o, err := payloadOrder(body)
	if err != nil {
		return dst, err
	}
	dst = append(dst, body[:encapsulationSize]...)
	dst = o.(binary.AppendByteOrder).AppendUint64(dst, h.GUID)
	dst = o.(binary.AppendByteOrder).AppendUint64(dst, uint64(h.Seq))
	return append(dst, body[encapsulationSize:]...), nil
}

// ParseCycloneFrame splits a Cyclone-dialect payload into its header and
// the message as an encoded payload of its own (a new slice). The
// message's alignment is unchanged: the header is 16 octets.
func ParseCycloneFrame(payload []byte) (RequestHeader, []byte, error) {
	o, err := payloadOrder(payload)
	if err != nil {
		return RequestHeader{}, nil, err
	}
	if len(payload) < encapsulationSize+headerSize {
		return RequestHeader{}, nil, fmt.Errorf("%w: %d octets, no room for the 16-octet request header", ErrFrame, len(payload))
	}
	h := RequestHeader{GUID: o.Uint64(payload[4:]), Seq: int64(o.Uint64(payload[12:]))}
	body := make([]byte, 0, len(payload)-headerSize)
	body = append(body, payload[:encapsulationSize]...)
	return h, append(body, payload[encapsulationSize+headerSize:]...), nil
}

// SampleIdentity names a sample: its writer and sequence number. A Fast
// DDS client sends, as the request's related identity, its reply
// reader's GUID (SN unknown); the server answers with {that GUID, the
// request's SN}.
type SampleIdentity struct {
	Writer wire.GUID
	SN     wire.SequenceNumber
}

// PIDRelatedSampleIdentityFastDDS is the vendor-specific id Fast DDS
// before 2.10 (Humble's 2.6, Debian's 2.9) gives the related sample
// identity; later ones send it beside the standard 0x0083.
const PIDRelatedSampleIdentityFastDDS wire.ParameterID = 0x800f

// identitySize is a SampleIdentity's size on the wire.
const identitySize = 24

// InlineQoS is the identity as a related sample identity, under both
// ids, little endian (the order of our submessages).
func (id SampleIdentity) InlineQoS() wire.ParameterList {
	v := id.append(nil, binary.LittleEndian)
	return wire.ParameterList{{ID: wire.PIDRelatedSampleIdentity, Value: v}, {ID: PIDRelatedSampleIdentityFastDDS, Value: v}}
}

func (id SampleIdentity) append(b []byte, o binary.AppendByteOrder) []byte {
	g := id.Writer.Bytes()
	b = append(b, g[:]...)
	b = o.AppendUint32(b, uint32(int64(id.SN)>>32))
	return o.AppendUint32(b, uint32(id.SN))
}

// ParseSampleIdentity reads the related sample identity from a sample's
// inline QoS: the standard id, else Fast DDS's 0x800f when sender (the
// writer's vendor) is eProsima or this library, the two that use it so.
// ok is false when there is none.
func ParseSampleIdentity(s rtps.Sample, sender wire.VendorID) (id SampleIdentity, ok bool, err error) {
	v, found := s.InlineQoS.Get(wire.PIDRelatedSampleIdentity)
	if !found {
		for _, definer := range []wire.VendorID{wire.VendorEProsima, rtps.VendorID} {
			if v, found = s.InlineQoS.GetVendor(PIDRelatedSampleIdentityFastDDS, definer, sender); found {
				break
			}
		}
	}
	if !found {
		return SampleIdentity{}, false, nil
	}
	if len(v) < identitySize {
		return SampleIdentity{}, false, fmt.Errorf("%w: related sample identity of %d octets", ErrFrame, len(v))
	}
	var o binary.ByteOrder = binary.LittleEndian
	if s.BigEndian {
		o = binary.BigEndian
	}
	if id.Writer, err = wire.GUIDFromBytes(v[:16]); err != nil {
		return SampleIdentity{}, false, fmt.Errorf("%w: %v", ErrFrame, err)
	}
	id.SN = wire.SequenceNumber(int64(int32(o.Uint32(v[16:])))<<32 | int64(o.Uint32(v[20:])))
	return id, true, nil
}
