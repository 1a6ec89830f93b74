package wire

import (
	"fmt"
	"net/netip"
)

// Locator kinds (spec 9.3.2).
const (
	LocatorKindInvalid = -1
	LocatorKindUDPv4   = 1
	LocatorKindUDPv6   = 2
)

// LocatorSize is the wire size of a Locator.
const LocatorSize = 24

// Locator is where an entity listens: kind, port and a 16-octet address
// (an IPv4 address sits in the last 4 octets).
type Locator struct {
	Kind    int32
	Port    uint32
	Address [16]byte
}

// UDPv4Locator returns the locator of an IPv4 address and port.
func UDPv4Locator(addr netip.Addr, port uint16) Locator {
	l := Locator{Kind: LocatorKindUDPv4, Port: uint32(port)}
	a := addr.Unmap().As4()
	copy(l.Address[12:], a[:])
	return l
}

// AddrPort returns the UDP address of a UDPv4 or UDPv6 locator; ok is
// false for other kinds and ports that do not fit 16 bits.
func (l Locator) AddrPort() (ap netip.AddrPort, ok bool) {
	if l.Port == 0 || l.Port > 0xffff {
		return ap, false
	}
	switch l.Kind {
	case LocatorKindUDPv4:
		return netip.AddrPortFrom(netip.AddrFrom4([4]byte(l.Address[12:])), uint16(l.Port)), true
	case LocatorKindUDPv6:
		return netip.AddrPortFrom(netip.AddrFrom16(l.Address), uint16(l.Port)), true
	}
	return ap, false
}

func (l Locator) String() string {
	if ap, ok := l.AddrPort(); ok {
		return fmt.Sprintf("udp/%s", ap)
	}
	return fmt.Sprintf("locator(kind %d, port %d, %x)", l.Kind, l.Port, l.Address)
}

// Marshal appends l in byte order o.
func (l Locator) appendTo(b []byte, o ByteOrder) []byte {
	b = o.AppendUint32(b, uint32(l.Kind))
	b = o.AppendUint32(b, l.Port)
	return append(b, l.Address[:]...)
}

// UnmarshalLocator reads a locator in byte order o.
func UnmarshalLocator(b []byte, o ByteOrder) (Locator, error) {
	var l Locator
	if len(b) < LocatorSize {
		return l, ErrShort
	}
	l.Kind = int32(o.Uint32(b))
	l.Port = o.Uint32(b[4:])
	copy(l.Address[:], b[8:24])
	return l, nil
}
