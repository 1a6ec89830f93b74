package wire

import (
	"encoding/binary"
	"fmt"
)

// HeaderSize is the size of the RTPS message header.
const HeaderSize = 20

// Header starts every RTPS message.
type Header struct {
	Version ProtocolVersion
	Vendor  VendorID
	Prefix  GUIDPrefix
}

// AppendTo appends the 20 header octets.
func (h Header) AppendTo(b []byte) []byte {
	b = append(b, 'R', 'T', 'P', 'S', h.Version.Major, h.Version.Minor)
	b = binary.BigEndian.AppendUint16(b, uint16(h.Vendor))
	return append(b, h.Prefix[:]...)
}

// Unmarshal reads a header; any 2.x version is accepted.
func (h *Header) Unmarshal(b []byte) error {
	if len(b) < HeaderSize {
		return ErrShort
	}
	if string(b[:4]) != "RTPS" {
		return ErrNotRTPS
	}
	h.Version = ProtocolVersion{b[4], b[5]}
	if h.Version.Major != 2 {
		return fmt.Errorf("%w: %v", ErrProtocolVersion, h.Version)
	}
	h.Vendor = VendorID(binary.BigEndian.Uint16(b[6:]))
	copy(h.Prefix[:], b[8:20])
	return nil
}

// Message is one RTPS message: a header and its submessages, in order.
type Message struct {
	Header      Header
	Submessages []Submessage
}

// Marshal returns the wire form of m.
func (m *Message) Marshal() ([]byte, error) { return m.AppendTo(nil) }

// AppendTo appends the wire form of m to b.
func (m *Message) AppendTo(b []byte) ([]byte, error) {
	b = m.Header.AppendTo(b)
	for _, s := range m.Submessages {
		var err error
		if b, err = AppendSubmessage(b, s); err != nil {
			return b, err
		}
	}
	return b, nil
}

// Unmarshal parses b into m. Submessages of kinds this package does not
// know are kept as Unknown; a submessage that fails to parse ends the
// message with an error, as the spec asks (9.4.5.1.1 leaves the rest
// invalid). The parsed message aliases b.
func (m *Message) Unmarshal(b []byte) error {
	if err := m.Header.Unmarshal(b); err != nil {
		return err
	}
	m.Submessages = m.Submessages[:0]
	rest := b[HeaderSize:]
	for len(rest) > 0 {
		s, n, err := UnmarshalSubmessage(rest)
		if err != nil {
			return err
		}
		m.Submessages = append(m.Submessages, s)
		rest = rest[n:]
	}
	return nil
}
