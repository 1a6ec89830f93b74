package wire

import "errors"

// Errors returned by the parsers; compare with errors.Is.
var (
	// ErrShort means the input ends before the structure it should hold.
	ErrShort = errors.New("rtps: input too short")
	// ErrNotRTPS means the message does not start with the "RTPS" magic.
	ErrNotRTPS = errors.New("rtps: not an RTPS message")
	// ErrProtocolVersion means the header names a major version other than 2.
	ErrProtocolVersion = errors.New("rtps: unsupported protocol version")
	// ErrSubmessageLength means a submessage length runs past the message
	// or is too small for the submessage's fixed part.
	ErrSubmessageLength = errors.New("rtps: bad submessage length")
	// ErrSetTooLarge means a SequenceNumberSet or FragmentNumberSet claims
	// more than 256 bits, the spec's bound.
	ErrSetTooLarge = errors.New("rtps: number set larger than 256 bits")
	// ErrNoSentinel means a parameter list ends without PID_SENTINEL.
	ErrNoSentinel = errors.New("rtps: parameter list without sentinel")
	// ErrParameterLength means a parameter length is not a multiple of 4 or
	// runs past the list.
	ErrParameterLength = errors.New("rtps: bad parameter length")
	// ErrInlineQoSOffset means a DATA/DATA_FRAG octetsToInlineQos points
	// before the end of the fixed fields or past the submessage.
	ErrInlineQoSOffset = errors.New("rtps: bad octetsToInlineQos")
	// ErrValue means a parameter value or field has an invalid size or value.
	ErrValue = errors.New("rtps: bad value")
)
