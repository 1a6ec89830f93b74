package service

import (
	"errors"
	"fmt"
	"strings"

	"github.com/actbridge/actbridge/rtps/wire"
)

// Errors of this package; compare with errors.Is.
var (
	// ErrNoServer means no server was matched and acknowledged in time:
	// nothing was sent.
	ErrNoServer = errors.New("service: no server ready")
	// ErrUndelivered means the request was sent once but the server's
	// reader never acknowledged it: the server most likely never saw it.
	ErrUndelivered = errors.New("service: request sent, not delivered")
	// ErrNoReply means the server's reader acknowledged the request but
	// no reply came in time: the server may have acted on it.
	ErrNoReply = errors.New("service: request delivered, no reply")
	// ErrServerLost means the participants of every server the request
	// went to left (goodbye or lease end) before replying.
	ErrServerLost = errors.New("service: server lost")
	// ErrFrame means a request or reply is not framed as its dialect says.
	ErrFrame = errors.New("service: malformed frame")
	// ErrMixedDialects means servers of both dialects serve the service:
	// a request would reach both, framed wrongly for one, so none is sent.
	ErrMixedDialects = errors.New("service: servers of both dialects matched")
	// ErrAmbiguousServer means more than one participant serves the
	// service and the call named none: nothing is sent (AmbiguousError
	// names them).
	ErrAmbiguousServer = errors.New("service: more than one server")
	// ErrClosed means the client or server was closed.
	ErrClosed = errors.New("service: closed")
)

// AmbiguousError is ErrAmbiguousServer naming the participants serving
// the service (and ErrMixedDialects when their dialects differ).
type AmbiguousError struct {
	Servers []wire.GUIDPrefix
	mixed   bool
}

func (e *AmbiguousError) Error() string {
	ps := make([]string, len(e.Servers))
	for i, p := range e.Servers {
		ps[i] = fmt.Sprintf("%x", p[:])
	}
	s := fmt.Sprintf("%v: participants %s", ErrAmbiguousServer, strings.Join(ps, ", "))
	if e.mixed {
		s += " (" + ErrMixedDialects.Error() + ")"
	}
	return s
}

func (e *AmbiguousError) Unwrap() []error {
	if e.mixed {
		return []error{ErrAmbiguousServer, ErrMixedDialects}
	}
	return []error{ErrAmbiguousServer}
}
