package ros1

import (
	"context"
	"errors"
	"fmt"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/ros1/roslink"
)

// ErrDescription: the robot description or limits file could not be read,
// parsed, or does not have the configured joints.
var ErrDescription = errors.New("robot description")

// RobotDescription reads the URDF from the description parameter.
func (r *Robot) RobotDescription(ctx context.Context) (string, error) {
	n := r.link.Node()
	if n == nil {
		return "", fmt.Errorf("%w: no ROS node", actuators.ErrNotConnected)
	}
	type answer struct {
		s   string
		err error
	}
	ch := make(chan answer, 1) // the call ends on its own (HTTP timeout) if ctx ends first
	go func() {
		s, err := roslink.GetParamString(n, r.cfg.DescriptionParam)
		ch <- answer{s, err}
	}()
	select {
	case a := <-ch:
		if a.err != nil {
			return "", fmt.Errorf("%w: %v", ErrDescription, a.err)
		}
		return a.s, nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}
