package spline

import (
	"errors"
	"fmt"
)

// Sentinel errors; an *Error wraps exactly one of them, so callers test with
// errors.Is and read the position from the *Error.
var (
	ErrEmpty     = errors.New("empty trajectory")
	ErrLength    = errors.New("length mismatch")
	ErrNotFinite = errors.New("not a finite number")
	ErrTimeOrder = errors.New("time_from_start must be > 0 and strictly increasing")
	ErrTimeRange = errors.New("segment duration too short or too long to interpolate")
)

// Error says which input value was rejected and why.
type Error struct {
	Point int    // index into points, -1 for the start state or the whole input
	Joint int    // joint index, -1 when not joint specific
	Field string // "start", "positions", "velocities", "accelerations", "time", "wraparound", "coefficients"
	Err   error  // one of the sentinel errors above
}

func (e *Error) Error() string {
	where := e.Field
	if e.Point >= 0 {
		where = fmt.Sprintf("points[%d].%s", e.Point, e.Field)
	}
	if e.Joint >= 0 {
		where = fmt.Sprintf("%s[%d]", where, e.Joint)
	}
	return "spline: " + where + ": " + e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }
