package safety

import (
	"strconv"

	"github.com/actbridge/actbridge/urdf"
)

// The URDF reader lives in package urdf, which kinematics shares; these
// names keep safety's API as it was.
type (
	URDF       = urdf.Robot
	URDFJoint  = urdf.Joint
	URDFLimit  = urdf.Limit
	URDFSafety = urdf.SafetyController
	URDFMimic  = urdf.Mimic
	JointType  = urdf.JointType
)

// URDF joint types.
const (
	Revolute   = urdf.Revolute
	Continuous = urdf.Continuous
	Prismatic  = urdf.Prismatic
	Fixed      = urdf.Fixed
	Floating   = urdf.Floating
	Planar     = urdf.Planar
)

// MaxURDFBytes bounds a URDF document.
const MaxURDFBytes = urdf.MaxBytes

// ParseURDF reads joints, limits, safety controllers and mimic tags from a
// URDF document (urdf.Parse).
func ParseURDF(data []byte) (*URDF, error) { return urdf.Parse(data) }

// clip shortens s to n runes for error messages that echo input.
func clip(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i] + "…"
		}
		n--
	}
	return s
}

// quoteName quotes a name from the input for an error message, clipped so a
// hostile name cannot flood logs.
func quoteName(s string) string { return strconv.Quote(clip(s, 100)) }
