package wire

import (
	"bytes"
	"fmt"
)

// ParameterID names a parameter of a ParameterList (spec 9.6.2.2.2, table
// 9.12 and 9.14). Bit 0x8000 marks a vendor-specific id, whose meaning
// depends on the sender's vendor; bit 0x4000 marks "must understand".
type ParameterID uint16

// Standard parameter ids used by discovery and inline QoS.
const (
	PIDPad                         ParameterID = 0x0000
	PIDSentinel                    ParameterID = 0x0001
	PIDParticipantLeaseDuration    ParameterID = 0x0002
	PIDTimeBasedFilter             ParameterID = 0x0004
	PIDTopicName                   ParameterID = 0x0005
	PIDOwnershipStrength           ParameterID = 0x0006
	PIDTypeName                    ParameterID = 0x0007
	PIDDomainID                    ParameterID = 0x000f
	PIDProtocolVersion             ParameterID = 0x0015
	PIDVendorID                    ParameterID = 0x0016
	PIDReliability                 ParameterID = 0x001a
	PIDLiveliness                  ParameterID = 0x001b
	PIDDurability                  ParameterID = 0x001d
	PIDDurabilityService           ParameterID = 0x001e
	PIDOwnership                   ParameterID = 0x001f
	PIDPresentation                ParameterID = 0x0021
	PIDDeadline                    ParameterID = 0x0023
	PIDDestinationOrder            ParameterID = 0x0025
	PIDLatencyBudget               ParameterID = 0x0027
	PIDPartition                   ParameterID = 0x0029
	PIDLifespan                    ParameterID = 0x002b
	PIDUserData                    ParameterID = 0x002c
	PIDGroupData                   ParameterID = 0x002d
	PIDTopicData                   ParameterID = 0x002e
	PIDUnicastLocator              ParameterID = 0x002f
	PIDMulticastLocator            ParameterID = 0x0030
	PIDDefaultUnicastLocator       ParameterID = 0x0031
	PIDMetatrafficUnicastLocator   ParameterID = 0x0032
	PIDMetatrafficMulticastLocator ParameterID = 0x0033
	PIDParticipantManualLiveliness ParameterID = 0x0034
	PIDHistory                     ParameterID = 0x0040
	PIDResourceLimits              ParameterID = 0x0041
	PIDExpectsInlineQoS            ParameterID = 0x0043
	PIDDefaultMulticastLocator     ParameterID = 0x0048
	PIDTransportPriority           ParameterID = 0x0049
	PIDParticipantGUID             ParameterID = 0x0050
	PIDGroupGUID                   ParameterID = 0x0052
	PIDBuiltinEndpointSet          ParameterID = 0x0058
	PIDPropertyList                ParameterID = 0x0059
	PIDEndpointGUID                ParameterID = 0x005a
	PIDTypeMaxSizeSerialized       ParameterID = 0x0060
	PIDEntityName                  ParameterID = 0x0062
	PIDKeyHash                     ParameterID = 0x0070
	PIDStatusInfo                  ParameterID = 0x0071
	PIDDataRepresentation          ParameterID = 0x0073
	PIDTypeConsistency             ParameterID = 0x0074
	PIDBuiltinEndpointQoS          ParameterID = 0x0077
	PIDRelatedSampleIdentity       ParameterID = 0x0083
	PIDDomainTag                   ParameterID = 0x4014
	PIDVendorMask                  ParameterID = 0x8000
	PIDMustUnderstandMask          ParameterID = 0x4000
)

// Status info flags carried by PIDStatusInfo (spec 9.6.3.9).
const (
	StatusDisposed     = 0x1
	StatusUnregistered = 0x2
	StatusFiltered     = 0x4
)

// VendorSpecific reports whether id is in the vendor-specific range: its
// meaning depends on the vendor that sent it.
func (id ParameterID) VendorSpecific() bool { return id&PIDVendorMask != 0 }

// MustUnderstand reports whether a receiver that does not know id must
// drop the whole list.
func (id ParameterID) MustUnderstand() bool { return id&PIDMustUnderstandMask != 0 }

func (id ParameterID) String() string { return fmt.Sprintf("pid(0x%04x)", uint16(id)) }

// Parameter is one element of a ParameterList; Value excludes the id and
// length, and when parsed includes the padding to 4 octets.
type Parameter struct {
	ID    ParameterID
	Value []byte
}

// ParameterList is a PL: parameters in order, unknown ids kept as they
// came. PID_PAD entries are dropped on parsing; PID_SENTINEL is implied.
type ParameterList []Parameter

// Clone copies the list and its values (a parsed list aliases the
// datagram it came in); nil stays nil.
func (pl ParameterList) Clone() ParameterList {
	if pl == nil {
		return nil
	}
	out := make(ParameterList, len(pl))
	for i, p := range pl {
		out[i] = Parameter{ID: p.ID, Value: bytes.Clone(p.Value)}
	}
	return out
}

// Get returns the value of the first parameter with a standard id.
// Vendor-specific ids are not found here, see GetVendor.
func (pl ParameterList) Get(id ParameterID) ([]byte, bool) {
	if id.VendorSpecific() {
		return nil, false
	}
	return pl.get(id)
}

// GetVendor returns the value of vendor-specific parameter id, defined by
// definer, only when sender (the vendor id of whoever sent the list) is
// that vendor: the same id means other things to other vendors.
func (pl ParameterList) GetVendor(id ParameterID, definer, sender VendorID) ([]byte, bool) {
	if !id.VendorSpecific() || definer != sender {
		return nil, false
	}
	return pl.get(id)
}

func (pl ParameterList) get(id ParameterID) ([]byte, bool) {
	for _, p := range pl {
		if p.ID == id {
			return p.Value, true
		}
	}
	return nil, false
}

// All returns the values of every standard parameter with id, in order
// (locators repeat).
func (pl ParameterList) All(id ParameterID) [][]byte {
	var out [][]byte
	for _, p := range pl {
		if p.ID == id && !id.VendorSpecific() {
			out = append(out, p.Value)
		}
	}
	return out
}

// AppendTo appends the list and a PID_SENTINEL in byte order o, padding
// every value to a multiple of 4 octets. A value longer than 65532 octets
// is an error.
func (pl ParameterList) AppendTo(b []byte, o ByteOrder) ([]byte, error) {
	for _, p := range pl {
		n := (len(p.Value) + 3) &^ 3
		if n > 0xfffc {
			return b, fmt.Errorf("%w: %v value of %d octets", ErrValue, p.ID, len(p.Value))
		}
		b = o.AppendUint16(b, uint16(p.ID))
		b = o.AppendUint16(b, uint16(n))
		b = append(b, p.Value...)
		for range n - len(p.Value) {
			b = append(b, 0)
		}
	}
	b = o.AppendUint16(b, uint16(PIDSentinel))
	return o.AppendUint16(b, 0), nil
}

// UnmarshalParameterList reads a list up to and including its sentinel
// and returns it with the number of octets read.
func UnmarshalParameterList(b []byte, o ByteOrder) (ParameterList, int, error) {
	var pl ParameterList
	off := 0
	for {
		if len(b)-off < 4 {
			return nil, 0, ErrNoSentinel
		}
		id := ParameterID(o.Uint16(b[off:]))
		n := int(o.Uint16(b[off+2:]))
		off += 4
		if id == PIDSentinel {
			if pl == nil {
				pl = ParameterList{}
			}
			return pl, off, nil
		}
		if n%4 != 0 || n > len(b)-off {
			return nil, 0, fmt.Errorf("%w: %v length %d", ErrParameterLength, id, n)
		}
		if id != PIDPad {
			pl = append(pl, Parameter{ID: id, Value: b[off : off+n : off+n]})
		}
		off += n
	}
}

// Small value codecs for the parameter types discovery uses.

// AppendString appends a CDR string (length with the NUL, bytes, NUL).
func AppendString(b []byte, o ByteOrder, s string) []byte {
	b = o.AppendUint32(b, uint32(len(s)+1))
	b = append(b, s...)
	return append(b, 0)
}

// ParseString reads a CDR string value; the NUL is required and removed.
func ParseString(v []byte, o ByteOrder) (string, error) {
	if len(v) < 4 {
		return "", ErrShort
	}
	n := o.Uint32(v)
	if n == 0 || uint64(n) > uint64(len(v)-4) || v[4+n-1] != 0 {
		return "", fmt.Errorf("%w: string of length %d", ErrValue, n)
	}
	return string(v[4 : 4+n-1]), nil
}

// AppendOctets appends a CDR sequence<octet> (length, bytes).
func AppendOctets(b []byte, o ByteOrder, s []byte) []byte {
	return append(o.AppendUint32(b, uint32(len(s))), s...)
}

// ParseOctets reads a CDR sequence<octet> value; the result aliases v.
func ParseOctets(v []byte, o ByteOrder) ([]byte, error) {
	if len(v) < 4 {
		return nil, ErrShort
	}
	n := o.Uint32(v)
	if uint64(n) > uint64(len(v)-4) {
		return nil, fmt.Errorf("%w: octet sequence of length %d", ErrValue, n)
	}
	return v[4 : 4+n : 4+n], nil
}

// LocatorValue returns the value of a locator parameter.
func LocatorValue(l Locator, o ByteOrder) []byte { return l.appendTo(nil, o) }

// DurationValue returns the value of a duration parameter.
func DurationValue(d Duration, o ByteOrder) []byte { return d.appendTo(nil, o) }

// Uint32Value returns a 4-octet value.
func Uint32Value(v uint32, o ByteOrder) []byte { return o.AppendUint32(nil, v) }

// ParseUint32 reads a 4-octet value.
func ParseUint32(v []byte, o ByteOrder) (uint32, error) {
	if len(v) < 4 {
		return 0, ErrShort
	}
	return o.Uint32(v), nil
}
