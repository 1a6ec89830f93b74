package safety

import (
	"fmt"
	"math"
	"slices"
	"strconv"
)

// Source says where a limit value came from.
type Source string

// Limit sources.
const (
	SourceURDF             Source = "urdf"
	SourceSafetyController Source = "urdf_safety_controller"
	SourceYAML             Source = "joint_limits.yaml"
	SourceYAMLSoft         Source = "joint_limits.yaml_soft_limits"
)

// Limit is one bound and where it came from; the zero value means unlimited.
type Limit struct {
	Value  float64 `json:"value"`
	Source Source  `json:"source,omitempty"`
}

// Set reports whether the bound applies.
func (l Limit) Set() bool { return l.Source != "" }

// JointLimits are the limits in force for one movable joint. Position
// bounds are both set or both unset (continuous joints).
type JointLimits struct {
	Name            string    `json:"name"`
	Type            JointType `json:"type"`
	MinPosition     Limit     `json:"min_position"`
	MaxPosition     Limit     `json:"max_position"`
	MaxVelocity     Limit     `json:"max_velocity"`
	MaxAcceleration Limit     `json:"max_acceleration"`
	MaxJerk         Limit     `json:"max_jerk"`
	MaxEffort       Limit     `json:"max_effort"` // reported, not checked: there is no dynamics model
	Mimic           string    `json:"mimic,omitempty"`
}

// HasPosition reports whether the joint has a position range.
func (j *JointLimits) HasPosition() bool { return j.MinPosition.Set() && j.MaxPosition.Set() }

// Wraps reports whether the controller takes continuous joints the shortest
// way round (ros_control does for URDF continuous joints).
func (j *JointLimits) Wraps() bool { return j.Type == Continuous }

// Limits is the merged, immutable limit set of a robot.
type Limits struct {
	joints []JointLimits
	index  map[string]int
	notes  []string
}

// Ignored is a configuration value the merge did not apply, so the bridge
// can log it and show it to the operator.
type Ignored struct {
	Joint  string `json:"joint"`
	Key    string `json:"key"`   // yaml key or URDF attribute
	Value  string `json:"value"` // as configured
	Kept   string `json:"kept"`  // what is in force instead
	Reason string `json:"reason"`
}

// NewLimits validates hand-made limits (tests, robots without a URDF).
func NewLimits(joints []JointLimits) (*Limits, error) {
	l := &Limits{joints: make([]JointLimits, len(joints)), index: make(map[string]int, len(joints))}
	copy(l.joints, joints)
	for i := range l.joints {
		j := &l.joints[i]
		if err := j.validate(); err != nil {
			return nil, fmt.Errorf("limits: joint %s: %v: %w", quoteName(j.Name), err, ErrInvalidConfig)
		}
		if _, dup := l.index[j.Name]; dup {
			return nil, fmt.Errorf("limits: joint %s: %w", quoteName(j.Name), ErrDuplicateJoint)
		}
		l.index[j.Name] = i
	}
	return l, nil
}

func (j *JointLimits) validate() error {
	switch {
	case j.Name == "":
		return fmt.Errorf("no name")
	case !j.Type.Movable():
		return fmt.Errorf("type %q is not movable", j.Type)
	case j.MinPosition.Set() != j.MaxPosition.Set():
		return fmt.Errorf("position range needs both bounds")
	case j.HasPosition() && !(j.MinPosition.Value <= j.MaxPosition.Value):
		return fmt.Errorf("empty position range [%g, %g]", j.MinPosition.Value, j.MaxPosition.Value)
	}
	for _, b := range []struct {
		name   string
		l      Limit
		nonNeg bool
	}{
		{"min_position", j.MinPosition, false}, {"max_position", j.MaxPosition, false},
		{"max_velocity", j.MaxVelocity, true}, {"max_acceleration", j.MaxAcceleration, true},
		{"max_jerk", j.MaxJerk, true}, {"max_effort", j.MaxEffort, true},
	} {
		if !b.l.Set() {
			continue
		}
		if math.IsNaN(b.l.Value) || math.IsInf(b.l.Value, 0) {
			return fmt.Errorf("%s is not finite", b.name)
		}
		if b.nonNeg && b.l.Value < 0 {
			return fmt.Errorf("%s %g < 0", b.name, b.l.Value)
		}
	}
	return nil
}

// Joint returns the limits of a movable joint.
func (l *Limits) Joint(name string) (JointLimits, bool) {
	if l == nil {
		return JointLimits{}, false
	}
	i, ok := l.index[name]
	if !ok {
		return JointLimits{}, false
	}
	return l.joints[i], true
}

// Names lists the movable joints in URDF order.
func (l *Limits) Names() []string {
	if l == nil {
		return nil
	}
	names := make([]string, len(l.joints))
	for i := range l.joints {
		names[i] = l.joints[i].Name
	}
	return names
}

// Diff names, sorted, every joint whose limits differ between l and o,
// including joints only one of them has. Nil means the two are the same.
func (l *Limits) Diff(o *Limits) []string {
	var out []string
	for _, n := range l.Names() {
		if a, b := l.joints[l.index[n]], o.jointOrZero(n); a != b {
			out = append(out, n)
		}
	}
	for _, n := range o.Names() {
		if _, ok := l.Joint(n); !ok {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

func (l *Limits) jointOrZero(name string) JointLimits {
	j, _ := l.Joint(name)
	return j
}

// Notes are facts about the merge worth logging (mimic joints, limits of
// zero, values applied without their has_*_limits flag).
func (l *Limits) Notes() []string {
	if l == nil {
		return nil
	}
	return append([]string(nil), l.notes...)
}

// LoadLimits parses a URDF and an optional joint_limits.yaml (nil or empty)
// and merges them; see MergeLimits.
func LoadLimits(urdfXML, jointLimitsYAML []byte) (*Limits, []Ignored, error) {
	u, err := ParseURDF(urdfXML)
	if err != nil {
		return nil, nil, err
	}
	var cfg *JointLimitsConfig
	if len(jointLimitsYAML) != 0 {
		if cfg, err = ParseJointLimits(jointLimitsYAML); err != nil {
			return nil, nil, err
		}
	}
	return MergeLimits(u, cfg)
}

// MergeLimits starts from the URDF's <limit>, tightens the position range by
// <safety_controller> soft limits, then applies joint_limits.yaml. Config may
// tighten, never loosen: a looser value (or has_*_limits: false over a URDF
// limit) is not applied and is returned in the Ignored list. A yaml joint
// that is not in the URDF is an error. cfg may be nil.
func MergeLimits(u *URDF, cfg *JointLimitsConfig) (*Limits, []Ignored, error) {
	if u == nil {
		return nil, nil, fmt.Errorf("limits: no URDF: %w", ErrInvalidConfig)
	}
	m := merger{l: &Limits{index: map[string]int{}}}
	for _, uj := range u.Joints {
		if !uj.Type.Movable() {
			if uj.Type != Fixed {
				m.note("joint %s: %s joints are not commanded; ignored", quoteName(uj.Name), uj.Type)
			}
			continue
		}
		j := m.fromURDF(uj)
		if cfg != nil {
			if e, ok := cfg.Joints[uj.Name]; ok {
				m.fromYAML(&j, e)
			}
		}
		if j.HasPosition() && j.MinPosition.Value > j.MaxPosition.Value {
			return nil, nil, fmt.Errorf("limits: joint %s: position range [%g, %g] is empty after merging: %w",
				quoteName(j.Name), j.MinPosition.Value, j.MaxPosition.Value, ErrInvalidConfig)
		}
		if j.MaxVelocity.Set() && j.MaxVelocity.Value == 0 {
			m.note("joint %s: velocity limit 0 (from %s): any motion of it is a violation", quoteName(j.Name), j.MaxVelocity.Source)
		}
		m.l.index[j.Name] = len(m.l.joints)
		m.l.joints = append(m.l.joints, j)
	}
	if cfg != nil {
		for _, name := range cfg.Names() {
			uj, ok := u.Joint(name)
			switch {
			case !ok:
				return nil, nil, fmt.Errorf("limits: joint_limits.yaml names joint %s, which is not in the URDF: %w", quoteName(name), ErrUnknownJoint)
			case !uj.Type.Movable():
				m.ignore(name, "joint", string(uj.Type), "not commanded", "not a movable joint")
			}
		}
		for _, k := range cfg.OtherKeys {
			m.note("joint_limits.yaml: top-level key %s is not used", quoteName(k))
		}
	}
	return m.l, m.ignored, nil
}

type merger struct {
	l       *Limits
	ignored []Ignored
}

func (m *merger) note(format string, a ...any) {
	m.l.notes = append(m.l.notes, fmt.Sprintf(format, a...))
}

func (m *merger) ignore(joint, key, value, kept, reason string) {
	m.ignored = append(m.ignored, Ignored{Joint: joint, Key: key, Value: value, Kept: kept, Reason: reason})
}

func (m *merger) fromURDF(uj URDFJoint) JointLimits {
	j := JointLimits{Name: uj.Name, Type: uj.Type}
	if uj.Limit != nil {
		if uj.Type != Continuous {
			j.MinPosition = Limit{uj.Limit.Lower, SourceURDF}
			j.MaxPosition = Limit{uj.Limit.Upper, SourceURDF}
		}
		j.MaxVelocity = Limit{uj.Limit.Velocity, SourceURDF}
		j.MaxEffort = Limit{uj.Limit.Effort, SourceURDF}
	}
	if uj.Mimic != nil {
		j.Mimic = uj.Mimic.Joint
		m.note("joint %s mimics %s: it follows that joint and cannot be commanded", quoteName(uj.Name), quoteName(uj.Mimic.Joint))
	}
	if s := uj.Safety; s != nil {
		var lo, hi *float64
		if s.HasSoftLower {
			lo = &s.SoftLower
		}
		if s.HasSoftUpper {
			hi = &s.SoftUpper
		}
		m.position(&j, "soft_lower_limit", "soft_upper_limit", lo, hi, SourceSafetyController)
	}
	return j
}

func (m *merger) fromYAML(j *JointLimits, e JointLimitsEntry) {
	if e.HasPositionLimits != nil && !*e.HasPositionLimits && j.HasPosition() {
		m.ignore(j.Name, "has_position_limits", "false", positionRange(j), "would remove the "+string(j.MinPosition.Source)+" position limit")
	}
	if e.MinPosition != nil || e.MaxPosition != nil {
		m.unflagged(j.Name, e.HasPositionLimits, "has_position_limits", "min_position/max_position")
		m.position(j, "min_position", "max_position", e.MinPosition, e.MaxPosition, SourceYAML)
	}
	if e.HasSoftLimits != nil && !*e.HasSoftLimits && (j.MinPosition.Source == SourceSafetyController || j.MaxPosition.Source == SourceSafetyController) {
		m.ignore(j.Name, "has_soft_limits", "false", positionRange(j), "would remove the URDF <safety_controller> soft limits")
	}
	if e.SoftLowerLimit != nil || e.SoftUpperLimit != nil {
		m.unflagged(j.Name, e.HasSoftLimits, "has_soft_limits", "soft_lower_limit/soft_upper_limit")
		m.position(j, "soft_lower_limit", "soft_upper_limit", e.SoftLowerLimit, e.SoftUpperLimit, SourceYAMLSoft)
	}
	for _, b := range []struct {
		cur          *Limit
		flag         *bool
		flagKey, key string
		value        *float64
	}{
		{&j.MaxVelocity, e.HasVelocityLimits, "has_velocity_limits", "max_velocity", e.MaxVelocity},
		{&j.MaxAcceleration, e.HasAccelerationLimits, "has_acceleration_limits", "max_acceleration", e.MaxAcceleration},
		{&j.MaxJerk, e.HasJerkLimits, "has_jerk_limits", "max_jerk", e.MaxJerk},
		{&j.MaxEffort, e.HasEffortLimits, "has_effort_limits", "max_effort", e.MaxEffort},
	} {
		if b.flag != nil && !*b.flag && b.cur.Set() {
			m.ignore(j.Name, b.flagKey, "false", fmtFloat(b.cur.Value), "would remove the "+string(b.cur.Source)+" limit")
		}
		if b.value == nil {
			continue
		}
		m.unflagged(j.Name, b.flag, b.flagKey, b.key)
		m.upper(j, b.cur, b.key, *b.value, SourceYAML)
	}
	if e.AngleWraparound != nil {
		m.note("joint %s: angle_wraparound ignored: wraparound follows the URDF joint type (%s)", quoteName(j.Name), j.Type)
	}
}

// position tightens the position range by lo/hi (either may be nil). A joint
// without a range (continuous) gets one only when both bounds are given:
// tighter than none, so safe, although ros_control would not enforce it.
func (m *merger) position(j *JointLimits, loKey, hiKey string, lo, hi *float64, src Source) {
	if lo == nil && hi == nil {
		return
	}
	if !j.HasPosition() {
		if lo == nil || hi == nil {
			m.ignore(j.Name, loKey+"/"+hiKey, "one bound", "none", "a joint without a position range needs both bounds")
			return
		}
		j.MinPosition, j.MaxPosition = Limit{*lo, src}, Limit{*hi, src}
		m.note("joint %s: %s joint gets the position range [%g, %g] from %s", quoteName(j.Name), j.Type, *lo, *hi, src)
		return
	}
	if lo != nil {
		m.lower(j, &j.MinPosition, loKey, *lo, src)
	}
	if hi != nil {
		m.upper(j, &j.MaxPosition, hiKey, *hi, src)
	}
}

func (m *merger) unflagged(joint string, flag *bool, flagKey, key string) {
	if flag == nil || !*flag {
		m.note("joint %s: %s used although %s is not true (ros_control would ignore it)", quoteName(joint), key, flagKey)
	}
}

// upper applies v as an upper bound if it is tighter than cur.
func (m *merger) upper(j *JointLimits, cur *Limit, key string, v float64, src Source) {
	switch {
	case !cur.Set() || v < cur.Value:
		*cur = Limit{v, src}
	case v > cur.Value:
		m.ignore(j.Name, key, fmtFloat(v), fmtFloat(cur.Value), "looser than the "+string(cur.Source)+" limit")
	}
}

// lower applies v as a lower bound if it is tighter than cur.
func (m *merger) lower(j *JointLimits, cur *Limit, key string, v float64, src Source) {
	switch {
	case !cur.Set() || v > cur.Value:
		*cur = Limit{v, src}
	case v < cur.Value:
		m.ignore(j.Name, key, fmtFloat(v), fmtFloat(cur.Value), "looser than the "+string(cur.Source)+" limit")
	}
}

func positionRange(j *JointLimits) string {
	return "[" + fmtFloat(j.MinPosition.Value) + ", " + fmtFloat(j.MaxPosition.Value) + "]"
}

func fmtFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
