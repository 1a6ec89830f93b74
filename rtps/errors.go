package rtps

import "errors"

// Errors of the participant; compare with errors.Is.
var (
	// ErrClosed means the participant was closed.
	ErrClosed = errors.New("rtps: participant closed")
	// ErrConfig means the Config is invalid.
	ErrConfig = errors.New("rtps: invalid config")
	// ErrNoPort means no participant index had a free port.
	ErrNoPort = errors.New("rtps: no free participant index")
	// ErrParticipantData means an SPDP sample lacks what every participant
	// announces (GUID, protocol version) or holds invalid values.
	ErrParticipantData = errors.New("rtps: bad participant data")
)

// ErrEndpointData means an SEDP sample lacks what every endpoint
// announces (GUID, topic, type) or holds invalid values.
var ErrEndpointData = errors.New("rtps: bad endpoint data")

// ErrUnknownEndpoint means no local endpoint has that GUID.
var ErrUnknownEndpoint = errors.New("rtps: unknown local endpoint")
