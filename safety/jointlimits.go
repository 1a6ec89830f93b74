package safety

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"

	"gopkg.in/yaml.v3"
)

// MaxJointLimitsBytes bounds a joint_limits.yaml; real ones are a few KB.
const MaxJointLimitsBytes = 1 << 20

// JointLimitsEntry is one joint's block under joint_limits:, with the keys
// ros_control's getJointLimits and getSoftJointLimits read; nil = absent.
type JointLimitsEntry struct {
	HasPositionLimits     *bool    `yaml:"has_position_limits"`
	MinPosition           *float64 `yaml:"min_position"`
	MaxPosition           *float64 `yaml:"max_position"`
	HasVelocityLimits     *bool    `yaml:"has_velocity_limits"`
	MaxVelocity           *float64 `yaml:"max_velocity"`
	HasAccelerationLimits *bool    `yaml:"has_acceleration_limits"`
	MaxAcceleration       *float64 `yaml:"max_acceleration"`
	HasJerkLimits         *bool    `yaml:"has_jerk_limits"`
	MaxJerk               *float64 `yaml:"max_jerk"`
	HasEffortLimits       *bool    `yaml:"has_effort_limits"`
	MaxEffort             *float64 `yaml:"max_effort"`
	AngleWraparound       *bool    `yaml:"angle_wraparound"`
	HasSoftLimits         *bool    `yaml:"has_soft_limits"`
	KPosition             *float64 `yaml:"k_position"`
	KVelocity             *float64 `yaml:"k_velocity"`
	SoftLowerLimit        *float64 `yaml:"soft_lower_limit"`
	SoftUpperLimit        *float64 `yaml:"soft_upper_limit"`
}

// JointLimitsConfig is a parsed joint_limits.yaml.
type JointLimitsConfig struct {
	Joints map[string]JointLimitsEntry
	// OtherKeys are top-level keys besides joint_limits (MoveIt puts
	// default_velocity_scaling_factor there); they are not used.
	OtherKeys []string
}

// Names returns the configured joint names, sorted.
func (c *JointLimitsConfig) Names() []string {
	if c == nil {
		return nil
	}
	names := make([]string, 0, len(c.Joints))
	for n := range c.Joints {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// ParseJointLimits reads a ros_control joint_limits.yaml. Unknown per-joint
// keys are errors (a typo such as max_velocty would silently drop a limit);
// a has_*_limits: true without its value is an error too.
func ParseJointLimits(data []byte) (cfg *JointLimitsConfig, err error) {
	if len(data) > MaxJointLimitsBytes {
		return nil, fmt.Errorf("joint_limits: %d bytes exceeds %d: %w", len(data), MaxJointLimitsBytes, ErrTooLarge)
	}
	var doc struct {
		JointLimits map[string]*JointLimitsEntry `yaml:"joint_limits"`
		Other       map[string]yaml.Node         `yaml:",inline"`
	}
	if err := decodeYAML(data, &doc); err != nil {
		return nil, fmt.Errorf("joint_limits: %v: %w", err, ErrInvalidJointLimits)
	}
	if doc.JointLimits == nil {
		return nil, fmt.Errorf("joint_limits: no joint_limits: map: %w", ErrInvalidJointLimits)
	}
	cfg = &JointLimitsConfig{Joints: make(map[string]JointLimitsEntry, len(doc.JointLimits))}
	for name := range doc.Other {
		cfg.OtherKeys = append(cfg.OtherKeys, name)
	}
	slices.Sort(cfg.OtherKeys)
	for name, e := range doc.JointLimits {
		if name == "" {
			return nil, fmt.Errorf("joint_limits: empty joint name: %w", ErrInvalidJointLimits)
		}
		if e == nil {
			e = &JointLimitsEntry{}
		}
		if err := e.validate(); err != nil {
			return nil, fmt.Errorf("joint_limits: %s: %v: %w", quoteName(name), err, ErrInvalidJointLimits)
		}
		cfg.Joints[name] = *e
	}
	return cfg, nil
}

// decodeYAML decodes exactly one document, strictly. yaml.v3 has panicked on
// hostile input in the past, so a panic becomes an error here.
func decodeYAML(data []byte, v any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("yaml decoder failed: %v", r)
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil {
		if errors.Is(err, io.EOF) {
			return errors.New("empty document")
		}
		return err
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return errors.New("more than one YAML document")
	}
	return nil
}

func (e *JointLimitsEntry) validate() error {
	for _, f := range []struct {
		key      string
		v        *float64
		nonNeg   bool
		flag     *bool
		flagName string
	}{
		{"min_position", e.MinPosition, false, e.HasPositionLimits, "has_position_limits"},
		{"max_position", e.MaxPosition, false, e.HasPositionLimits, "has_position_limits"},
		{"max_velocity", e.MaxVelocity, true, e.HasVelocityLimits, "has_velocity_limits"},
		{"max_acceleration", e.MaxAcceleration, true, e.HasAccelerationLimits, "has_acceleration_limits"},
		{"max_jerk", e.MaxJerk, true, e.HasJerkLimits, "has_jerk_limits"},
		{"max_effort", e.MaxEffort, true, e.HasEffortLimits, "has_effort_limits"},
		{"soft_lower_limit", e.SoftLowerLimit, false, e.HasSoftLimits, "has_soft_limits"},
		{"soft_upper_limit", e.SoftUpperLimit, false, e.HasSoftLimits, "has_soft_limits"},
		{"k_position", e.KPosition, true, nil, ""},
		{"k_velocity", e.KVelocity, true, nil, ""},
	} {
		if f.v == nil {
			if f.flag != nil && *f.flag {
				return fmt.Errorf("%s: true without %s", f.flagName, f.key)
			}
			continue
		}
		if math.IsNaN(*f.v) || math.IsInf(*f.v, 0) {
			return fmt.Errorf("%s: %v is not a finite number", f.key, *f.v)
		}
		if f.nonNeg && *f.v < 0 {
			return fmt.Errorf("%s: %g must be ≥ 0", f.key, *f.v)
		}
	}
	if e.MinPosition != nil && e.MaxPosition != nil && *e.MinPosition > *e.MaxPosition {
		return fmt.Errorf("min_position %g > max_position %g", *e.MinPosition, *e.MaxPosition)
	}
	if e.SoftLowerLimit != nil && e.SoftUpperLimit != nil && *e.SoftLowerLimit > *e.SoftUpperLimit {
		return fmt.Errorf("soft_lower_limit %g > soft_upper_limit %g", *e.SoftLowerLimit, *e.SoftUpperLimit)
	}
	return nil
}
