package service

import (
	"fmt"

	"github.com/actbridge/actbridge/rtps/wire"
)

// Dialect is how requests and replies are paired on the wire.
type Dialect int

// The dialects; Auto picks one per remote participant by its vendor.
const (
	Auto Dialect = iota
	// Cyclone is rmw_cyclonedds's: a RequestHeader in front of the
	// message in every request and reply payload.
	Cyclone
	// FastDDS is rmw_fastrtps's (and DDS-RPC's): a plain payload, replies
	// carrying the request's SampleIdentity in their inline QoS.
	FastDDS
)

func (d Dialect) String() string {
	switch d {
	case Auto:
		return "auto"
	case Cyclone:
		return "cyclone"
	case FastDDS:
		return "fastdds"
	}
	return fmt.Sprintf("Dialect(%d)", int(d))
}

// DialectOf is the dialect spoken with a participant of vendor v:
// Cyclone for CycloneDDS, FastDDS for everyone else (our own 01.ab too).
func DialectOf(v wire.VendorID) Dialect {
	if v == wire.VendorCyclone {
		return Cyclone
	}
	return FastDDS
}

// resolve is d, or the dialect of vendor v when d is Auto.
func (d Dialect) resolve(v wire.VendorID) Dialect {
	if d == Auto {
		return DialectOf(v)
	}
	return d
}
