package safety

import (
	"errors"
	"fmt"

	"github.com/actbridge/actbridge/spline"
	"github.com/actbridge/actbridge/urdf"
)

// Sentinel errors. Callers compare with errors.Is; an *InputError or a
// wrapped configuration error carries the context.
var (
	ErrUnknownJoint   = errors.New("unknown joint")
	ErrDuplicateJoint = errors.New("duplicate joint")
	ErrMimicJoint     = errors.New("mimic joint follows another joint and cannot be commanded")
	ErrEmpty          = spline.ErrEmpty
	ErrLength         = spline.ErrLength
	ErrNotFinite      = spline.ErrNotFinite
	ErrTimeOrder      = spline.ErrTimeOrder
	ErrOutOfRange     = errors.New("value out of range")
	ErrTooLarge       = urdf.ErrTooLarge
	ErrUnknownFrame   = errors.New("frame is not the geofence frame")

	ErrInvalidURDF        = urdf.ErrInvalid
	ErrXacro              = urdf.ErrXacro
	ErrInvalidJointLimits = errors.New("invalid joint_limits.yaml")
	ErrInvalidConfig      = errors.New("invalid safety configuration")

	ErrEStopNewerEvent   = errors.New("a newer e-stop event is latched")
	ErrEStopUnknownEvent = errors.New("no such e-stop event")
)

// InputError is a rejected request value (not a limit violation): it names
// the field, the joint if any, and what was expected, so the bridge can
// answer with {code, field, expected, actual}.
type InputError struct {
	Field    string // e.g. "points[3].positions[1]", "joints[2]"
	Joint    string // joint name when the field belongs to one
	Expected string
	Actual   string
	Err      error // one of the sentinel errors
}

func (e *InputError) Error() string {
	s := e.Field
	if e.Joint != "" {
		s += fmt.Sprintf(" (joint %q)", e.Joint)
	}
	s += ": " + e.Err.Error()
	if e.Expected != "" {
		s += "; expected " + e.Expected
	}
	if e.Actual != "" {
		s += ", got " + e.Actual
	}
	return s
}

func (e *InputError) Unwrap() error { return e.Err }
