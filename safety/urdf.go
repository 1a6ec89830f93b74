package safety

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Bounds on URDF input; real robot descriptions are well below them
// (a PR2 URDF is about 0.5 MB), hostile ones are not.
const (
	MaxURDFBytes  = 10 << 20
	maxURDFDepth  = 64
	maxURDFJoints = 10000
)

// JointType is a URDF joint type.
type JointType string

// URDF joint types.
const (
	Revolute   JointType = "revolute"
	Continuous JointType = "continuous"
	Prismatic  JointType = "prismatic"
	Fixed      JointType = "fixed"
	Floating   JointType = "floating"
	Planar     JointType = "planar"
)

// Movable reports whether a joint trajectory controller can command the
// joint; fixed, floating and planar joints are ignored for motion.
func (t JointType) Movable() bool {
	return t == Revolute || t == Continuous || t == Prismatic
}

// URDF is what the safety layer needs from a robot description: its joints.
type URDF struct {
	Name   string
	Joints []URDFJoint // in document order
}

// URDFJoint is one <joint> directly under <robot>.
type URDFJoint struct {
	Name          string
	Type          JointType
	Parent, Child string
	Limit         *URDFLimit  // nil without <limit>
	Safety        *URDFSafety // nil without <safety_controller>
	Mimic         *URDFMimic  // nil without <mimic>
}

// URDFLimit is <limit>; Lower/Upper default to 0 as in urdfdom and mean
// nothing for continuous joints.
type URDFLimit struct {
	Lower, Upper, Velocity, Effort float64
}

// URDFSafety is <safety_controller>. Soft limits are used only when the
// attribute is present: urdfdom's default of 0 would pin the joint.
type URDFSafety struct {
	SoftLower, SoftUpper       float64
	HasSoftLower, HasSoftUpper bool
	KPosition, KVelocity       float64
}

// URDFMimic is <mimic>: the joint follows Joint·Multiplier + Offset.
type URDFMimic struct {
	Joint              string
	Multiplier, Offset float64
}

// Joint returns the named joint.
func (u *URDF) Joint(name string) (URDFJoint, bool) {
	for _, j := range u.Joints {
		if j.Name == name {
			return j, true
		}
	}
	return URDFJoint{}, false
}

// ParseURDF reads joints, limits, safety controllers and mimic tags from a
// URDF document. Joints inside <transmission> or <gazebo> are not joints and
// are skipped; unexpanded xacro is refused.
func ParseURDF(data []byte) (*URDF, error) {
	if len(data) > MaxURDFBytes {
		return nil, fmt.Errorf("urdf: %d bytes exceeds %d: %w", len(data), MaxURDFBytes, ErrTooLarge)
	}
	p := urdfParser{dec: xml.NewDecoder(bytes.NewReader(data)), seen: map[string]bool{}}
	p.dec.Strict = true
	if err := p.run(); err != nil {
		return nil, err
	}
	return &p.urdf, nil
}

type urdfParser struct {
	dec   *xml.Decoder
	urdf  URDF
	seen  map[string]bool
	depth int
	roots int
	joint *URDFJoint // the <joint> being read, nil outside one
}

func (p *urdfParser) run() error {
	for {
		tok, err := p.dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("urdf: %v: %w", err, ErrInvalidURDF)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			p.depth++
			if p.depth > maxURDFDepth {
				return fmt.Errorf("urdf: elements nested deeper than %d: %w", maxURDFDepth, ErrTooLarge)
			}
			if err := p.start(t); err != nil {
				return err
			}
		case xml.EndElement:
			if p.depth == 2 && p.joint != nil {
				if err := p.finishJoint(); err != nil {
					return err
				}
			}
			p.depth--
		}
	}
	if p.roots == 0 {
		return fmt.Errorf("urdf: no <robot> element: %w", ErrInvalidURDF)
	}
	return nil
}

func (p *urdfParser) start(t xml.StartElement) error {
	if strings.Contains(strings.ToLower(t.Name.Space), "xacro") {
		return fmt.Errorf("urdf: <%s>: %w", clip(t.Name.Local, 40), ErrXacro)
	}
	switch {
	case p.depth == 1:
		p.roots++
		if t.Name.Local != "robot" || p.roots > 1 {
			return fmt.Errorf("urdf: root element <%s>, want a single <robot>: %w", clip(t.Name.Local, 40), ErrInvalidURDF)
		}
		p.urdf.Name = attr(t, "name")
	case p.depth == 2 && t.Name.Local == "joint":
		if len(p.urdf.Joints) >= maxURDFJoints {
			return fmt.Errorf("urdf: more than %d joints: %w", maxURDFJoints, ErrTooLarge)
		}
		name := attr(t, "name")
		if strings.Contains(name, "${") || strings.Contains(attr(t, "type"), "${") {
			return fmt.Errorf("urdf: joint %s: %w", quoteName(name), ErrXacro)
		}
		p.joint = &URDFJoint{Name: name, Type: JointType(attr(t, "type"))}
	case p.depth == 3 && p.joint != nil:
		return p.jointChild(t)
	}
	return nil
}

func (p *urdfParser) jointChild(t xml.StartElement) error {
	j := p.joint
	dup := func() error {
		return fmt.Errorf("urdf: joint %s: more than one <%s>: %w", quoteName(j.Name), t.Name.Local, ErrInvalidURDF)
	}
	var err error
	switch t.Name.Local {
	case "parent":
		j.Parent = attr(t, "link")
	case "child":
		j.Child = attr(t, "link")
	case "limit":
		if j.Limit != nil {
			return dup()
		}
		l := URDFLimit{}
		if l.Lower, _, err = floatAttr(t, "lower", 0, false); err == nil {
			if l.Upper, _, err = floatAttr(t, "upper", 0, false); err == nil {
				if l.Velocity, _, err = floatAttr(t, "velocity", 0, true); err == nil {
					l.Effort, _, err = floatAttr(t, "effort", 0, true)
				}
			}
		}
		j.Limit = &l
	case "safety_controller":
		if j.Safety != nil {
			return dup()
		}
		s := URDFSafety{}
		if s.SoftLower, s.HasSoftLower, err = floatAttr(t, "soft_lower_limit", 0, false); err == nil {
			if s.SoftUpper, s.HasSoftUpper, err = floatAttr(t, "soft_upper_limit", 0, false); err == nil {
				if s.KPosition, _, err = floatAttr(t, "k_position", 0, false); err == nil {
					s.KVelocity, _, err = floatAttr(t, "k_velocity", 0, true)
				}
			}
		}
		j.Safety = &s
	case "mimic":
		if j.Mimic != nil {
			return dup()
		}
		m := URDFMimic{Joint: attr(t, "joint")}
		if m.Joint == "" {
			err = errors.New("<mimic> without joint")
		} else if m.Multiplier, _, err = floatAttr(t, "multiplier", 1, false); err == nil {
			m.Offset, _, err = floatAttr(t, "offset", 0, false)
		}
		j.Mimic = &m
	}
	if err != nil {
		return fmt.Errorf("urdf: joint %s: %v: %w", quoteName(j.Name), err, ErrInvalidURDF)
	}
	return nil
}

// finishJoint applies urdfdom's rules once the whole <joint> is read.
func (p *urdfParser) finishJoint() error {
	j := *p.joint
	p.joint = nil
	bad := func(format string, a ...any) error {
		return fmt.Errorf("urdf: joint %s: %s: %w", quoteName(j.Name), fmt.Sprintf(format, a...), ErrInvalidURDF)
	}
	switch {
	case j.Name == "":
		return bad("no name")
	case p.seen[j.Name]:
		return bad("defined twice")
	}
	switch j.Type {
	case Revolute, Prismatic:
		if j.Limit == nil {
			return bad("%s joint without <limit>", j.Type)
		}
		if j.Limit.Lower > j.Limit.Upper {
			return bad("<limit> lower %g > upper %g", j.Limit.Lower, j.Limit.Upper)
		}
	case Continuous, Fixed, Floating, Planar:
	default:
		return bad("unknown type %s", quoteName(string(j.Type)))
	}
	if l := j.Limit; l != nil && (l.Velocity < 0 || l.Effort < 0) {
		return bad("<limit> velocity %g and effort %g must be ≥ 0", l.Velocity, l.Effort)
	}
	if s := j.Safety; s != nil && s.HasSoftLower && s.HasSoftUpper && s.SoftLower > s.SoftUpper {
		return bad("<safety_controller> soft_lower_limit %g > soft_upper_limit %g", s.SoftLower, s.SoftUpper)
	}
	p.seen[j.Name] = true
	p.urdf.Joints = append(p.urdf.Joints, j)
	return nil
}

func attr(t xml.StartElement, name string) string {
	for _, a := range t.Attr {
		if a.Name.Space == "" && a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

// floatAttr parses a finite number attribute; absent gives def (or an error
// when required).
func floatAttr(t xml.StartElement, name string, def float64, required bool) (float64, bool, error) {
	for _, a := range t.Attr {
		if a.Name.Space != "" || a.Name.Local != name {
			continue
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(a.Value), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, false, fmt.Errorf("<%s %s=%q>: want a finite number", t.Name.Local, name, clip(a.Value, 40))
		}
		return v, true, nil
	}
	if required {
		return 0, false, fmt.Errorf("<%s> without %s", t.Name.Local, name)
	}
	return def, false, nil
}

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
