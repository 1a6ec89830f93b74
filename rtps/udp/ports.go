package udp

import (
	"errors"
	"fmt"
	"net/netip"
)

// ErrPort means a domain id or participant index gives a port outside
// 1..65535.
var ErrPort = errors.New("udp: port out of range")

// SPDPGroup returns the spec's default multicast group for SPDP, 239.255.0.1.
func SPDPGroup() netip.Addr { return netip.AddrFrom4([4]byte{239, 255, 0, 1}) }

// Ports holds the spec's port parameters (9.6.1.1); DefaultPorts gives the
// values every DDS uses unless configured otherwise.
type Ports struct {
	PB, DG, PG     int // port base, domain gain, participant gain
	D0, D1, D2, D3 int // offsets: SPDP multicast, metatraffic unicast, user multicast, user unicast
}

// DefaultPorts returns PB 7400, DG 250, PG 2, d0 0, d1 10, d2 1, d3 11.
func DefaultPorts() Ports {
	return Ports{PB: 7400, DG: 250, PG: 2, D0: 0, D1: 10, D2: 1, D3: 11}
}

func (p Ports) port(domain, index, offset, gain int) (uint16, error) {
	if domain < 0 || index < 0 {
		return 0, fmt.Errorf("%w: domain %d index %d", ErrPort, domain, index)
	}
	v := p.PB + p.DG*domain + offset + gain*index
	if v <= 0 || v > 0xffff {
		return 0, fmt.Errorf("%w: domain %d index %d gives %d", ErrPort, domain, index, v)
	}
	return uint16(v), nil
}

// MetatrafficMulticast is the SPDP (discovery) multicast port of a domain.
func (p Ports) MetatrafficMulticast(domain int) (uint16, error) {
	return p.port(domain, 0, p.D0, 0)
}

// MetatrafficUnicast is the discovery unicast port of participant index
// in a domain.
func (p Ports) MetatrafficUnicast(domain, index int) (uint16, error) {
	return p.port(domain, index, p.D1, p.PG)
}

// UserMulticast is the user-traffic multicast port of a domain.
func (p Ports) UserMulticast(domain int) (uint16, error) { return p.port(domain, 0, p.D2, 0) }

// UserUnicast is the user-traffic unicast port of participant index in a
// domain.
func (p Ports) UserUnicast(domain, index int) (uint16, error) {
	return p.port(domain, index, p.D3, p.PG)
}
