package rtps

import (
	"encoding/binary"
	"fmt"

	"github.com/actbridge/actbridge/rtps/wire"
)

// EndpointData is a writer or a reader as SEDP tells of it.
type EndpointData struct {
	GUID   wire.GUID
	Writer bool // a writer (publication) or a reader (subscription)
	// Keyed says the topic's type has a key; it sets the entity kind, and
	// implementations (CycloneDDS) match only endpoints that agree on it.
	Keyed bool
	Topic string
	Type  string
	QoS   QoS
	// UserData is the endpoint's USER_DATA QoS.
	UserData []byte
	// Locators where the endpoint listens; empty means the participant's
	// default locators.
	Unicast, Multicast []wire.Locator
	// Vendor is the vendor of the participant that announced it.
	Vendor wire.VendorID
	// Extra holds parameters this package does not interpret: sent as
	// given, received with values copied (vendor-specific ones included;
	// read them with ParameterList.GetVendor and Vendor).
	Extra wire.ParameterList
}

// isKnownEndpointPID reports whether EndpointData interprets id.
func isKnownEndpointPID(id wire.ParameterID) bool {
	switch id {
	case wire.PIDEndpointGUID, wire.PIDParticipantGUID, wire.PIDTopicName, wire.PIDTypeName,
		wire.PIDReliability, wire.PIDDurability, wire.PIDHistory, wire.PIDUserData,
		wire.PIDUnicastLocator, wire.PIDMulticastLocator, wire.PIDProtocolVersion, wire.PIDVendorID,
		wire.PIDKeyHash:
		return true
	}
	return false
}

// ParameterList encodes e as SEDP sends it.
func (e *EndpointData) ParameterList(o wire.ByteOrder) wire.ParameterList {
	g := e.GUID.Bytes()
	pg := wire.GUID{Prefix: e.GUID.Prefix, Entity: wire.EntityIDParticipant}.Bytes()
	vendor := binary.BigEndian.AppendUint16(nil, uint16(e.Vendor))
	v := wire.Version()
	pl := wire.ParameterList{
		{ID: wire.PIDEndpointGUID, Value: g[:]},
		{ID: wire.PIDParticipantGUID, Value: pg[:]},
		{ID: wire.PIDTopicName, Value: wire.AppendString(nil, o, e.Topic)},
		{ID: wire.PIDTypeName, Value: wire.AppendString(nil, o, e.Type)},
		{ID: wire.PIDProtocolVersion, Value: []byte{v.Major, v.Minor, 0, 0}},
		{ID: wire.PIDVendorID, Value: append(vendor, 0, 0)},
	}
	pl = append(pl, e.QoS.parameters(o)...)
	if e.UserData != nil {
		pl = append(pl, wire.Parameter{ID: wire.PIDUserData, Value: wire.AppendOctets(nil, o, e.UserData)})
	}
	for _, l := range e.Unicast {
		pl = append(pl, wire.Parameter{ID: wire.PIDUnicastLocator, Value: wire.LocatorValue(l, o)})
	}
	for _, l := range e.Multicast {
		pl = append(pl, wire.Parameter{ID: wire.PIDMulticastLocator, Value: wire.LocatorValue(l, o)})
	}
	return append(pl, e.Extra...)
}

// ParseEndpointData reads an SEDP parameter list from a participant of
// vendor; writer says whether it came from the publications writer.
// Values are copied.
func ParseEndpointData(pl wire.ParameterList, o wire.ByteOrder, writer bool, vendor wire.VendorID) (EndpointData, error) {
	e := EndpointData{Writer: writer, Vendor: vendor, QoS: defaultQoS(writer)}
	v, ok := pl.Get(wire.PIDEndpointGUID)
	if !ok {
		return e, fmt.Errorf("%w: no endpoint guid", ErrEndpointData)
	}
	var err error
	if e.GUID, err = wire.GUIDFromBytes(v); err != nil {
		return e, fmt.Errorf("%w: guid: %v", ErrEndpointData, err)
	}
	if e.GUID.Entity.IsWriter() != writer || e.GUID.Entity.IsReader() == writer {
		return e, fmt.Errorf("%w: entity %v announced as writer=%v", ErrEndpointData, e.GUID.Entity, writer)
	}
	k := e.GUID.Entity.Kind() & 0x3f
	e.Keyed = k == wire.KindUserWriterWithKey || k == wire.KindUserReaderWithKey
	for _, f := range []struct {
		id  wire.ParameterID
		dst *string
	}{{wire.PIDTopicName, &e.Topic}, {wire.PIDTypeName, &e.Type}} {
		v, ok := pl.Get(f.id)
		if !ok {
			return e, fmt.Errorf("%w: no %v", ErrEndpointData, f.id)
		}
		if *f.dst, err = wire.ParseString(v, o); err != nil {
			return e, fmt.Errorf("%w: %v: %v", ErrEndpointData, f.id, err)
		}
	}
	if e.QoS, err = parseQoS(e.QoS, pl, o); err != nil {
		return e, err
	}
	if v, ok := pl.Get(wire.PIDVendorID); ok && len(v) >= 2 && binary.BigEndian.Uint16(v) != uint16(wire.VendorUnknown) {
		e.Vendor = wire.VendorID(binary.BigEndian.Uint16(v))
	}
	if v, ok := pl.Get(wire.PIDUserData); ok {
		ud, err := wire.ParseOctets(v, o)
		if err != nil {
			return e, fmt.Errorf("%w: user data: %v", ErrEndpointData, err)
		}
		e.UserData = append([]byte{}, ud...)
	}
	e.Unicast = locators(pl, wire.PIDUnicastLocator, o)
	e.Multicast = locators(pl, wire.PIDMulticastLocator, o)
	for _, p := range pl {
		if !isKnownEndpointPID(p.ID) {
			e.Extra = append(e.Extra, wire.Parameter{ID: p.ID, Value: append([]byte{}, p.Value...)})
		}
	}
	return e, nil
}

// Match reports whether writer w and reader r match: same topic, type
// and keyedness, and compatible QoS.
func Match(w, r EndpointData) bool {
	return w.Writer && !r.Writer && w.Topic == r.Topic && w.Type == r.Type && w.Keyed == r.Keyed && Compatible(w.QoS, r.QoS)
}
