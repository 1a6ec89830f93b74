package ros1

import (
	"context"
	"errors"
	"fmt"
	"time"

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

// descriptionPoll is how often WatchRobotDescription reads the parameter:
// the parameter server has no change notification goroslib exposes.
const descriptionPoll = 2 * time.Second

// WatchRobotDescription hands each the description parameter every
// descriptionPoll while ctx lasts (read failures are skipped: the master
// link reports its own health). The parameter server is one source:
// ambiguous is never called.
func (r *Robot) WatchRobotDescription(ctx context.Context, each func(urdf, source string), _ func(why string)) error {
	t := time.NewTicker(descriptionPoll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		rctx, cancel := context.WithTimeout(ctx, descriptionPoll)
		s, err := r.RobotDescription(rctx)
		cancel()
		if err == nil {
			each(s, "parameter "+r.cfg.DescriptionParam)
		}
	}
}
