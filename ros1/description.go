package ros1

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/actbridge/actbridge/ros1/roslink"
	"github.com/actbridge/actbridge/safety"

	"github.com/actbridge/actbridge/actuators"
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

// Limits reads the URDF from the master and the configured limits_file,
// merges them with safety.LoadLimits, and checks that every configured arm
// and gripper joint is a movable joint of the robot. Ignored lists config
// values that would loosen a URDF limit and were not applied.
func (r *Robot) Limits(ctx context.Context) (*safety.Limits, []safety.Ignored, error) {
	urdf, err := r.RobotDescription(ctx)
	if err != nil {
		return nil, nil, err
	}
	return LoadLimits(&r.cfg, []byte(urdf))
}

// LoadLimits merges a URDF with cfg's limits_file and checks cfg's joints
// against the result; Robot.Limits is this with the URDF from the master.
func LoadLimits(cfg *Config, urdf []byte) (*safety.Limits, []safety.Ignored, error) {
	var yaml []byte
	if cfg.LimitsFile != "" {
		b, err := os.ReadFile(cfg.LimitsFile)
		if err != nil {
			return nil, nil, fmt.Errorf("%w: limits_file: %v", ErrDescription, err)
		}
		yaml = b
	}
	lim, ignored, err := safety.LoadLimits(urdf, yaml)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %s + %s: %w", ErrDescription, cfg.DescriptionParam, cfg.LimitsFile, err)
	}
	var missing []string
	for _, a := range cfg.Actuators {
		for _, j := range a.Joints {
			if _, ok := lim.Joint(j); !ok {
				missing = append(missing, fmt.Sprintf("%s.%s", a.Name, j))
			}
		}
	}
	if len(missing) > 0 {
		return nil, nil, fmt.Errorf("%w: configured joints not movable in %s: %s (known: %s)", ErrDescription,
			cfg.DescriptionParam, strings.Join(missing, ", "), strings.Join(lim.Names(), ", "))
	}
	return lim, ignored, nil
}
