package rtps

import (
	"encoding/binary"
	"fmt"
	"time"

	"github.com/actbridge/actbridge/rtps/wire"
)

// Builtin endpoint set bits (spec 8.5.3.2, table 9.4 BuiltinEndpointSet_t).
const (
	BuiltinParticipantAnnouncer     = 1 << 0
	BuiltinParticipantDetector      = 1 << 1
	BuiltinPublicationsAnnouncer    = 1 << 2
	BuiltinPublicationsDetector     = 1 << 3
	BuiltinSubscriptionsAnnouncer   = 1 << 4
	BuiltinSubscriptionsDetector    = 1 << 5
	BuiltinParticipantMessageWriter = 1 << 10
	BuiltinParticipantMessageReader = 1 << 11
)

// maxLocators bounds the locators kept per kind from one announcement.
const maxLocators = 16

// defaultLease is the spec's lease when a participant announces none.
const defaultLease = 100 * time.Second

// Encapsulation identifiers of parameter-list payloads.
const (
	encapsulationPLBE = 0x0002
	encapsulationPLLE = 0x0003
)

// ParticipantData is what SPDP tells of a participant.
type ParticipantData struct {
	Prefix  wire.GUIDPrefix
	Version wire.ProtocolVersion
	// Vendor is the implementation that announced it (01.10 Cyclone,
	// 01.0f Fast DDS, …); layers above choose dialects by it.
	Vendor           wire.VendorID
	Domain           uint32
	HasDomain        bool
	BuiltinEndpoints uint32
	// Locators: where its discovery (metatraffic) and user traffic go.
	MetatrafficUnicast, MetatrafficMulticast []wire.Locator
	DefaultUnicast, DefaultMulticast         []wire.Locator
	LeaseDuration                            time.Duration
	UserData                                 []byte
	// Properties are the PID_PROPERTY_LIST's name/value pairs (Fast DDS's
	// Discovery Server says a participant's role in them); at most
	// maxProperties are read.
	Properties []Property
}

// Property is one name/value pair of a participant's property list.
type Property struct{ Name, Value string }

// maxProperties bounds the properties kept from one announcement.
const maxProperties = 32

// Property returns the value of the property named name.
func (d *ParticipantData) Property(name string) (string, bool) {
	for _, p := range d.Properties {
		if p.Name == name {
			return p.Value, true
		}
	}
	return "", false
}

// GUID is the participant's GUID.
func (d *ParticipantData) GUID() wire.GUID {
	return wire.GUID{Prefix: d.Prefix, Entity: wire.EntityIDParticipant}
}

// ParameterList encodes d as SPDP sends it.
func (d *ParticipantData) ParameterList(o wire.ByteOrder) wire.ParameterList {
	g := d.GUID().Bytes()
	vendor := binary.BigEndian.AppendUint16(nil, uint16(d.Vendor))
	pl := wire.ParameterList{
		{ID: wire.PIDProtocolVersion, Value: []byte{d.Version.Major, d.Version.Minor, 0, 0}},
		{ID: wire.PIDVendorID, Value: append(vendor, 0, 0)},
		{ID: wire.PIDParticipantGUID, Value: g[:]},
		{ID: wire.PIDBuiltinEndpointSet, Value: wire.Uint32Value(d.BuiltinEndpoints, o)},
	}
	if d.HasDomain {
		pl = append(pl, wire.Parameter{ID: wire.PIDDomainID, Value: wire.Uint32Value(d.Domain, o)})
	}
	for _, ls := range []struct {
		id  wire.ParameterID
		set []wire.Locator
	}{
		{wire.PIDMetatrafficUnicastLocator, d.MetatrafficUnicast},
		{wire.PIDMetatrafficMulticastLocator, d.MetatrafficMulticast},
		{wire.PIDDefaultUnicastLocator, d.DefaultUnicast},
		{wire.PIDDefaultMulticastLocator, d.DefaultMulticast},
	} {
		for _, l := range ls.set {
			pl = append(pl, wire.Parameter{ID: ls.id, Value: wire.LocatorValue(l, o)})
		}
	}
	pl = append(pl, wire.Parameter{ID: wire.PIDParticipantLeaseDuration, Value: wire.DurationValue(wire.DurationOf(d.LeaseDuration), o)})
	if d.UserData != nil {
		pl = append(pl, wire.Parameter{ID: wire.PIDUserData, Value: wire.AppendOctets(nil, o, d.UserData)})
	}
	if len(d.Properties) > 0 {
		pl = append(pl, wire.Parameter{ID: wire.PIDPropertyList, Value: appendProperties(nil, o, d.Properties)})
	}
	return pl
}

// appendProperties encodes a property list: a CDR sequence of {string
// name; string value}, each string 4-aligned (the value starts aligned).
func appendProperties(b []byte, o wire.ByteOrder, ps []Property) []byte {
	b = o.AppendUint32(b, uint32(len(ps)))
	for _, p := range ps {
		for _, s := range []string{p.Name, p.Value} {
			b = wire.AppendString(b, o, s)
			for len(b)%4 != 0 {
				b = append(b, 0)
			}
		}
	}
	return b
}

// parseProperties reads what appendProperties writes, up to
// maxProperties pairs; a binary property sequence after them is ignored.
// On an error it returns the pairs read before it.
func parseProperties(v []byte, o wire.ByteOrder) ([]Property, error) {
	var out []Property
	if len(v) < 4 {
		return out, wire.ErrShort
	}
	n := o.Uint32(v)
	v = v[4:]
	for i := uint32(0); i < n && len(out) < maxProperties; i++ {
		var pair [2]string
		for j := range pair {
			s, err := wire.ParseString(v, o)
			if err != nil {
				return out, err
			}
			pair[j] = s
			skip := min((4+len(s)+1+3)&^3, len(v))
			v = v[skip:]
		}
		out = append(out, Property{Name: pair[0], Value: pair[1]})
	}
	return out, nil
}

// ParseParticipantData reads an SPDP parameter list sent by vendor
// (the message's vendor, used when the list names none). Values are
// copied, so the result does not alias pl. Vendor-specific parameters
// are not interpreted (none is needed for discovery).
func ParseParticipantData(pl wire.ParameterList, o wire.ByteOrder, vendor wire.VendorID) (ParticipantData, error) {
	d := ParticipantData{Vendor: vendor, LeaseDuration: defaultLease}
	v, ok := pl.Get(wire.PIDParticipantGUID)
	if !ok {
		return d, fmt.Errorf("%w: no participant guid", ErrParticipantData)
	}
	g, err := wire.GUIDFromBytes(v)
	if err != nil {
		return d, fmt.Errorf("%w: guid: %v", ErrParticipantData, err)
	}
	d.Prefix = g.Prefix
	v, ok = pl.Get(wire.PIDProtocolVersion)
	if !ok || len(v) < 2 {
		return d, fmt.Errorf("%w: no protocol version", ErrParticipantData)
	}
	d.Version = wire.ProtocolVersion{Major: v[0], Minor: v[1]}
	if v, ok := pl.Get(wire.PIDVendorID); ok && len(v) >= 2 {
		d.Vendor = wire.VendorID(binary.BigEndian.Uint16(v))
	}
	if v, ok := pl.Get(wire.PIDDomainID); ok {
		if d.Domain, err = wire.ParseUint32(v, o); err != nil {
			return d, fmt.Errorf("%w: domain id: %v", ErrParticipantData, err)
		}
		d.HasDomain = true
	}
	if v, ok := pl.Get(wire.PIDBuiltinEndpointSet); ok {
		if d.BuiltinEndpoints, err = wire.ParseUint32(v, o); err != nil {
			return d, fmt.Errorf("%w: builtin endpoint set: %v", ErrParticipantData, err)
		}
	}
	if v, ok := pl.Get(wire.PIDParticipantLeaseDuration); ok {
		du, err := wire.UnmarshalDuration(v, o)
		if err != nil {
			return d, fmt.Errorf("%w: lease: %v", ErrParticipantData, err)
		}
		d.LeaseDuration = du.Duration()
	}
	if v, ok := pl.Get(wire.PIDUserData); ok {
		ud, err := wire.ParseOctets(v, o)
		if err != nil {
			return d, fmt.Errorf("%w: user data: %v", ErrParticipantData, err)
		}
		d.UserData = append([]byte{}, ud...)
	}
	if v, ok := pl.Get(wire.PIDPropertyList); ok {
		// Informational only: what parsed is kept, a bad rest ignored.
		d.Properties, _ = parseProperties(v, o)
	}
	d.MetatrafficUnicast = locators(pl, wire.PIDMetatrafficUnicastLocator, o)
	d.MetatrafficMulticast = locators(pl, wire.PIDMetatrafficMulticastLocator, o)
	d.DefaultUnicast = locators(pl, wire.PIDDefaultUnicastLocator, o)
	d.DefaultMulticast = locators(pl, wire.PIDDefaultMulticastLocator, o)
	return d, nil
}

// locators returns up to maxLocators valid locators of one kind; bad
// ones are skipped, as a peer may announce kinds we do not speak.
func locators(pl wire.ParameterList, id wire.ParameterID, o wire.ByteOrder) []wire.Locator {
	var out []wire.Locator
	for _, v := range pl.All(id) {
		if l, err := wire.UnmarshalLocator(v, o); err == nil && len(out) < maxLocators {
			out = append(out, l)
		}
	}
	return out
}

// payloadParameterList reads a PL_CDR_LE/BE serialized payload (SPDP and
// SEDP samples and keys).
func payloadParameterList(p []byte) (wire.ParameterList, wire.ByteOrder, error) {
	if len(p) < 4 {
		return nil, nil, wire.ErrShort
	}
	var o wire.ByteOrder
	switch binary.BigEndian.Uint16(p) {
	case encapsulationPLLE:
		o = binary.LittleEndian
	case encapsulationPLBE:
		o = binary.BigEndian
	default:
		return nil, nil, fmt.Errorf("%w: encapsulation 0x%04x", ErrParticipantData, binary.BigEndian.Uint16(p))
	}
	pl, _, err := wire.UnmarshalParameterList(p[4:], o)
	return pl, o, err
}

// plPayload serializes pl as a PL_CDR_LE payload.
func plPayload(pl wire.ParameterList) ([]byte, error) {
	return pl.AppendTo([]byte{0, encapsulationPLLE, 0, 0}, binary.LittleEndian)
}
