package config

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/actbridge/actbridge/safety"
)

// ErrLimits: the URDF or the limits file could not be read or parsed, or
// lacks a configured joint.
var ErrLimits = errors.New("robot limits")

// LoadLimits merges a URDF with the config's limits_file
// (safety.LoadLimits) and checks that every configured joint is a movable
// joint of the result. Ignored lists limits_file values that would loosen
// a URDF limit and were not applied.
func (c *Config) LoadLimits(urdf []byte) (*safety.Limits, []safety.Ignored, error) {
	var yml []byte
	if c.LimitsFile != "" {
		b, err := os.ReadFile(c.LimitsFile)
		if err != nil {
			return nil, nil, fmt.Errorf("%w: limits_file: %v", ErrLimits, err)
		}
		yml = b
	}
	lim, ignored, err := safety.LoadLimits(urdf, yml)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %s + %s: %w", ErrLimits, c.DescriptionParam, c.LimitsFile, err)
	}
	var missing []string
	for _, a := range c.Actuators {
		for _, j := range a.Joints {
			if _, ok := lim.Joint(j); !ok {
				missing = append(missing, fmt.Sprintf("%s.%s", a.Name, j))
			}
		}
	}
	if len(missing) > 0 {
		return nil, nil, fmt.Errorf("%w: configured joints not movable in %s: %s (known: %s)", ErrLimits,
			c.DescriptionParam, strings.Join(missing, ", "), strings.Join(lim.Names(), ", "))
	}
	return lim, ignored, nil
}
