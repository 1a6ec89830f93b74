package tf

import (
	"errors"
	"fmt"
)

// Refusals of a lookup or an update; compare with errors.Is. Every error
// returned is a *Error naming the frame and what was found.
var (
	// ErrUnknownFrame: no transform names the frame, as child or parent.
	ErrUnknownFrame = errors.New("tf: unknown frame")
	// ErrNotConnected: both frames are known but lie in different trees.
	ErrNotConnected = errors.New("tf: frames not connected")
	// ErrNoData: no sample covers the requested time (tf2 never
	// extrapolates, and neither does this buffer).
	ErrNoData = errors.New("tf: no transform at that time")
	// ErrStale: the newest transform is older than the caller accepts.
	ErrStale = errors.New("tf: transform too old")
	// ErrAmbiguous: two publishers claim the frame; nothing through it is
	// believed until one stops or the configuration pins one.
	ErrAmbiguous = errors.New("tf: frame published by more than one source")
	// ErrInvalid: an update is malformed (empty or over-long name, a
	// frame its own parent, a loop, a number that is not finite, a
	// quaternion far from unit length).
	ErrInvalid = errors.New("tf: invalid transform")
	// ErrFull: the buffer holds its maximum number of frames.
	ErrFull = errors.New("tf: too many frames")
)

// Error is a refusal with the frame it concerns and what was found there.
type Error struct {
	Err    error  // one of the Err values above
	Frame  string // the frame the refusal is about
	Detail string // what was found: ages, stamps, sources
}

func (e *Error) Error() string {
	if e.Detail == "" {
		return fmt.Sprintf("%v: %q", e.Err, e.Frame)
	}
	return fmt.Sprintf("%v: %q: %s", e.Err, e.Frame, e.Detail)
}

func (e *Error) Unwrap() error { return e.Err }

func refuse(err error, frame, format string, args ...any) *Error {
	return &Error{Err: err, Frame: frame, Detail: fmt.Sprintf(format, args...)}
}
