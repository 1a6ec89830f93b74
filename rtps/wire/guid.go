package wire

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
)

// ProtocolVersion is the RTPS protocol version of a message or participant.
type ProtocolVersion struct{ Major, Minor uint8 }

// The protocol version this package writes: RTPS 2.4, what CycloneDDS 0.10
// and Fast DDS 2.x announce as well.
const (
	ProtocolMajor = 2
	ProtocolMinor = 4
)

// Version is the ProtocolVersion this package writes.
func Version() ProtocolVersion { return ProtocolVersion{ProtocolMajor, ProtocolMinor} }

func (v ProtocolVersion) String() string { return fmt.Sprintf("%d.%d", v.Major, v.Minor) }

// VendorID names the DDS implementation that sent a message, as the OMG
// assigns them; written as two octets, e.g. 0x0110 is "01.10".
type VendorID uint16

// Vendor ids of the implementations this package is tested against.
const (
	VendorUnknown  VendorID = 0x0000
	VendorRTI      VendorID = 0x0101
	VendorOpenDDS  VendorID = 0x0103
	VendorEProsima VendorID = 0x010f // Fast DDS
	VendorCyclone  VendorID = 0x0110 // Eclipse Cyclone DDS
)

func (v VendorID) String() string { return fmt.Sprintf("%02x.%02x", uint8(v>>8), uint8(v)) }

// GUIDPrefix identifies a participant; its endpoints share it.
type GUIDPrefix [12]byte

func (p GUIDPrefix) String() string { return hex.EncodeToString(p[:]) }

// EntityID identifies an entity within a participant. The last octet is
// the kind; the value is the 4 octets read big endian, as they appear on
// the wire in any byte order.
type EntityID uint32

// Builtin entity ids (spec 9.3.1.3, table 9.2).
const (
	EntityIDUnknown                  EntityID = 0x00000000
	EntityIDParticipant              EntityID = 0x000001c1
	EntityIDSEDPTopicWriter          EntityID = 0x000002c2
	EntityIDSEDPTopicReader          EntityID = 0x000002c7
	EntityIDSEDPPublicationsWriter   EntityID = 0x000003c2
	EntityIDSEDPPublicationsReader   EntityID = 0x000003c7
	EntityIDSEDPSubscriptionsWriter  EntityID = 0x000004c2
	EntityIDSEDPSubscriptionsReader  EntityID = 0x000004c7
	EntityIDSPDPWriter               EntityID = 0x000100c2
	EntityIDSPDPReader               EntityID = 0x000100c7
	EntityIDParticipantMessageWriter EntityID = 0x000200c2
	EntityIDParticipantMessageReader EntityID = 0x000200c7
)

// Entity kinds, the last octet of an EntityID (spec table 9.1).
const (
	KindUserWriterWithKey    = 0x02
	KindUserWriterNoKey      = 0x03
	KindUserReaderNoKey      = 0x04
	KindUserReaderWithKey    = 0x07
	KindBuiltinParticipant   = 0xc1
	KindBuiltinWriterWithKey = 0xc2
	KindBuiltinWriterNoKey   = 0xc3
	KindBuiltinReaderNoKey   = 0xc4
	KindBuiltinReaderWithKey = 0xc7
)

// Kind returns the entity kind octet.
func (e EntityID) Kind() uint8 { return uint8(e) }

// IsWriter reports whether the entity kind is a writer.
func (e EntityID) IsWriter() bool { k := e.Kind() & 0x3f; return k == 0x02 || k == 0x03 }

// IsReader reports whether the entity kind is a reader.
func (e EntityID) IsReader() bool { k := e.Kind() & 0x3f; return k == 0x04 || k == 0x07 }

// IsBuiltin reports whether the entity is one of the protocol's own.
func (e EntityID) IsBuiltin() bool { return e.Kind()&0xc0 == 0xc0 }

func (e EntityID) String() string { return fmt.Sprintf("%08x", uint32(e)) }

// GUID is a globally unique entity id: participant prefix plus entity.
type GUID struct {
	Prefix GUIDPrefix
	Entity EntityID
}

func (g GUID) String() string { return g.Prefix.String() + "." + g.Entity.String() }

// Bytes returns the 16 wire octets of g (also its key hash).
func (g GUID) Bytes() [16]byte {
	var b [16]byte
	copy(b[:], g.Prefix[:])
	binary.BigEndian.PutUint32(b[12:], uint32(g.Entity))
	return b
}

// GUIDFromBytes reads 16 wire octets.
func GUIDFromBytes(b []byte) (GUID, error) {
	var g GUID
	if len(b) < 16 {
		return g, ErrShort
	}
	copy(g.Prefix[:], b)
	g.Entity = EntityID(binary.BigEndian.Uint32(b[12:]))
	return g, nil
}
