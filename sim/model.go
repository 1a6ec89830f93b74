package sim

import (
	_ "embed"
	"encoding/xml"
	"errors"
	"fmt"
	"math"
	"sort"

	"gopkg.in/yaml.v3"
)

// DefaultURDF is the sim's robot description; launch/simrobot.urdf is a copy.
//
//go:embed assets/simrobot.urdf
var DefaultURDF string

// DefaultJointLimits is the sim's joint_limits.yaml; launch/joint_limits.yaml
// is a copy.
//
//go:embed assets/joint_limits.yaml
var DefaultJointLimits string

// DualArmURDF is the dual-arm cell (Config.SecondArm): DefaultURDF with a
// second arm of Arm2JointPrefix joints; launch/simrobot-dual-arm.urdf is a copy.
//
//go:embed assets/simrobot-dual-arm.urdf
var DualArmURDF string

// DualArmJointLimits is DefaultJointLimits with the second arm's joints;
// launch/joint_limits-dual-arm.yaml is a copy.
//
//go:embed assets/joint_limits-dual-arm.yaml
var DualArmJointLimits string

// Joint is one movable URDF joint.
type Joint struct {
	Name string
	Type string // "revolute", "continuous" or "prismatic"
	// Lower and Upper bound the position; both are zero for continuous joints.
	Lower, Upper float64
	Velocity     float64 // |velocity| limit
	Effort       float64 // |effort| limit
}

// Continuous reports whether the joint has no position limits.
func (j Joint) Continuous() bool { return j.Type == "continuous" }

// clampPos keeps a position within the joint's limits, as Gazebo's joint
// stops do.
func (j Joint) clampPos(p float64) float64 {
	if j.Continuous() {
		return p
	}
	return math.Max(j.Lower, math.Min(j.Upper, p))
}

// ErrURDF is returned for a robot description simrobot cannot use.
var ErrURDF = errors.New("sim: bad URDF")

type urdfRobot struct {
	Joints []struct {
		Name  string `xml:"name,attr"`
		Type  string `xml:"type,attr"`
		Limit *struct {
			Lower    float64 `xml:"lower,attr"`
			Upper    float64 `xml:"upper,attr"`
			Velocity float64 `xml:"velocity,attr"`
			Effort   float64 `xml:"effort,attr"`
		} `xml:"limit"`
	} `xml:"joint"`
}

// ParseJoints returns the movable joints of a URDF in document order.
func ParseJoints(urdf string) ([]Joint, error) {
	var r urdfRobot
	if err := xml.Unmarshal([]byte(urdf), &r); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrURDF, err)
	}
	var out []Joint
	for _, j := range r.Joints {
		switch j.Type {
		case "fixed", "floating", "planar":
			continue
		case "revolute", "continuous", "prismatic":
		default:
			return nil, fmt.Errorf("%w: joint %q has unknown type %q", ErrURDF, j.Name, j.Type)
		}
		if j.Limit == nil && j.Type != "continuous" {
			return nil, fmt.Errorf("%w: %s joint %q has no <limit>", ErrURDF, j.Type, j.Name)
		}
		jt := Joint{Name: j.Name, Type: j.Type}
		if j.Limit != nil {
			jt.Velocity, jt.Effort = j.Limit.Velocity, j.Limit.Effort
			if j.Type != "continuous" {
				jt.Lower, jt.Upper = j.Limit.Lower, j.Limit.Upper
				if jt.Lower > jt.Upper {
					return nil, fmt.Errorf("%w: joint %q lower %g > upper %g", ErrURDF, j.Name, jt.Lower, jt.Upper)
				}
			}
		}
		out = append(out, jt)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: no movable joints", ErrURDF)
	}
	return out, nil
}

// JointLimit is one value of a joint_limits.yaml: max_velocity of a joint.
type JointLimit struct {
	Joint, Key string
	Value      any // bool, int or float64
}

// ParseJointLimits reads a joint_limits.yaml, sorted by joint, then key.
func ParseJointLimits(doc string) ([]JointLimit, error) {
	var y struct {
		JointLimits map[string]map[string]any `yaml:"joint_limits"`
	}
	if err := yaml.Unmarshal([]byte(doc), &y); err != nil {
		return nil, fmt.Errorf("sim: joint limits: %w", err)
	}
	if len(y.JointLimits) == 0 {
		return nil, errors.New("sim: joint limits: no joint_limits: map")
	}
	var out []JointLimit
	for joint, kv := range y.JointLimits {
		for k, v := range kv {
			switch v.(type) {
			case bool, int, float64:
			default:
				return nil, fmt.Errorf("sim: joint limits: %s/%s: unsupported value %v", joint, k, v)
			}
			out = append(out, JointLimit{joint, k, v})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Joint+"/"+out[i].Key < out[j].Joint+"/"+out[j].Key })
	return out, nil
}
