package urdf

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
	MaxBytes  = 10 << 20
	maxDepth  = 64
	maxJoints = 10000
)

// Sentinel errors; callers compare with errors.Is. safety re-exports them
// (ErrInvalid, ErrXacro, ErrTooLarge) unchanged.
var (
	ErrInvalid  = errors.New("invalid URDF")
	ErrXacro    = errors.New("URDF still contains xacro; expand it first")
	ErrTooLarge = errors.New("input too large")
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

// Robot is what safety and kinematics need from a robot description: its
// links, joints and the links' simple collision shapes. Visuals, meshes,
// inertias, transmissions and gazebo tags are skipped.
type Robot struct {
	Name   string
	Links  []string // names of the <link>s directly under <robot>, in document order
	Joints []Joint  // in document order
	// Collisions are the links' <collision> elements whose <geometry> is
	// a box, a cylinder or a sphere, in document order (meshes are not read).
	Collisions []Collision
}

// Shape is a collision geometry's kind.
type Shape string

// The collision shapes read.
const (
	Box      Shape = "box"
	Cylinder Shape = "cylinder"
	Sphere   Shape = "sphere"
)

// Collision is one <collision> of a link: its shape in the link's frame.
// Size is the box's x, y, z; the cylinder's radius and length (about its
// z axis); the sphere's radius. Err says why the element could not be
// read (then Shape may be empty); only its users refuse it.
type Collision struct {
	Link   string
	Origin Origin
	Shape  Shape
	Size   [3]float64
	Err    error
}

// Joint is one <joint> directly under <robot>.
type Joint struct {
	Name          string
	Type          JointType
	Parent, Child string
	Limit         *Limit            // nil without <limit>
	Safety        *SafetyController // nil without <safety_controller>
	Mimic         *Mimic            // nil without <mimic>

	// Origin is <origin>: the child link's frame in the parent link's at
	// position 0; zero without one.
	Origin Origin
	// Axis is <axis xyz>, in the joint frame, as written (not normalised);
	// (1, 0, 0) without one, as in urdfdom.
	Axis [3]float64
	// GeometryErr says why <origin> or <axis> could not be read (nil when
	// both could). Only kinematics needs them, so only kinematics refuses a
	// chain through such a joint; the limits do not depend on them.
	GeometryErr error
}

// Origin is a joint's <origin>: xyz in metres, rpy in radians (roll about
// the fixed X axis, then pitch about fixed Y, then yaw about fixed Z).
type Origin struct {
	XYZ, RPY [3]float64
}

// Limit is <limit>; Lower/Upper default to 0 as in urdfdom and mean
// nothing for continuous joints.
type Limit struct {
	Lower, Upper, Velocity, Effort float64
}

// SafetyController is <safety_controller>. Soft limits are used only when the
// attribute is present: urdfdom's default of 0 would pin the joint.
type SafetyController struct {
	SoftLower, SoftUpper       float64
	HasSoftLower, HasSoftUpper bool
	KPosition, KVelocity       float64
}

// Mimic is <mimic>: the joint follows Joint·Multiplier + Offset.
type Mimic struct {
	Joint              string
	Multiplier, Offset float64
}

// Joint returns the named joint.
func (u *Robot) Joint(name string) (Joint, bool) {
	for _, j := range u.Joints {
		if j.Name == name {
			return j, true
		}
	}
	return Joint{}, false
}

// Parse reads links, joints, their limits, safety controllers, mimic tags,
// origins and axes from a URDF document. Joints inside <transmission> or
// <gazebo> are not joints and are skipped; unexpanded xacro is refused.
func Parse(data []byte) (*Robot, error) {
	if len(data) > MaxBytes {
		return nil, fmt.Errorf("urdf: %d bytes exceeds %d: %w", len(data), MaxBytes, ErrTooLarge)
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
	urdf  Robot
	seen  map[string]bool
	depth int
	roots int
	joint *Joint // the <joint> being read, nil outside one
	link  string // the <link> being read, "" outside one
	coll  *Collision
}

func (p *urdfParser) run() error {
	for {
		tok, err := p.dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("urdf: %v: %w", err, ErrInvalid)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			p.depth++
			if p.depth > maxDepth {
				return fmt.Errorf("urdf: elements nested deeper than %d: %w", maxDepth, ErrTooLarge)
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
			if p.depth == 3 && p.coll != nil {
				if p.coll.Shape != "" || p.coll.Err != nil {
					if len(p.urdf.Collisions) >= maxJoints {
						return fmt.Errorf("urdf: more than %d collisions: %w", maxJoints, ErrTooLarge)
					}
					p.urdf.Collisions = append(p.urdf.Collisions, *p.coll)
				}
				p.coll = nil
			}
			if p.depth == 2 {
				p.link = ""
			}
			p.depth--
		}
	}
	if p.roots == 0 {
		return fmt.Errorf("urdf: no <robot> element: %w", ErrInvalid)
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
			return fmt.Errorf("urdf: root element <%s>, want a single <robot>: %w", clip(t.Name.Local, 40), ErrInvalid)
		}
		p.urdf.Name = attr(t, "name")
	case p.depth == 2 && t.Name.Local == "joint":
		if len(p.urdf.Joints) >= maxJoints {
			return fmt.Errorf("urdf: more than %d joints: %w", maxJoints, ErrTooLarge)
		}
		name := attr(t, "name")
		if strings.Contains(name, "${") || strings.Contains(attr(t, "type"), "${") {
			return fmt.Errorf("urdf: joint %s: %w", quoteName(name), ErrXacro)
		}
		p.joint = &Joint{Name: name, Type: JointType(attr(t, "type")), Axis: [3]float64{1, 0, 0}}
	case p.depth == 2 && t.Name.Local == "link":
		p.urdf.Links = append(p.urdf.Links, attr(t, "name"))
		p.link = attr(t, "name")
	case p.depth == 3 && p.link != "" && t.Name.Local == "collision":
		p.coll = &Collision{Link: p.link}
	case p.depth == 4 && p.coll != nil && t.Name.Local == "origin" && p.coll.Err == nil:
		if err := vecAttr(t, "xyz", &p.coll.Origin.XYZ); err != nil {
			p.coll.Err = fmt.Errorf("urdf: link %s: <collision>: %v: %w", quoteName(p.coll.Link), err, ErrInvalid)
		} else if err := vecAttr(t, "rpy", &p.coll.Origin.RPY); err != nil {
			p.coll.Err = fmt.Errorf("urdf: link %s: <collision>: %v: %w", quoteName(p.coll.Link), err, ErrInvalid)
		}
	case p.depth == 5 && p.coll != nil && p.coll.Err == nil:
		p.collisionShape(t)
	case p.depth == 3 && p.joint != nil:
		return p.jointChild(t)
	}
	return nil
}

func (p *urdfParser) jointChild(t xml.StartElement) error {
	j := p.joint
	dup := func() error {
		return fmt.Errorf("urdf: joint %s: more than one <%s>: %w", quoteName(j.Name), t.Name.Local, ErrInvalid)
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
		l := Limit{}
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
		s := SafetyController{}
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
		m := Mimic{Joint: attr(t, "joint")}
		if m.Joint == "" {
			err = errors.New("<mimic> without joint")
		} else if m.Multiplier, _, err = floatAttr(t, "multiplier", 1, false); err == nil {
			m.Offset, _, err = floatAttr(t, "offset", 0, false)
		}
		j.Mimic = &m
	case "origin", "axis":
		if j.GeometryErr != nil {
			break
		}
		var gerr error
		if t.Name.Local == "axis" {
			gerr = vecAttr(t, "xyz", &j.Axis)
		} else if gerr = vecAttr(t, "xyz", &j.Origin.XYZ); gerr == nil {
			gerr = vecAttr(t, "rpy", &j.Origin.RPY)
		}
		if gerr != nil {
			j.GeometryErr = fmt.Errorf("urdf: joint %s: %v: %w", quoteName(j.Name), gerr, ErrInvalid)
		}
	}
	if err != nil {
		return fmt.Errorf("urdf: joint %s: %v: %w", quoteName(j.Name), err, ErrInvalid)
	}
	return nil
}

// collisionShape reads a <geometry>'s box, cylinder or sphere into p.coll;
// a second shape, or a non-positive or unreadable size, is an error on it.
func (p *urdfParser) collisionShape(t xml.StartElement) {
	c := p.coll
	bad := func(format string, a ...any) {
		c.Err = fmt.Errorf("urdf: link %s: <collision>: %s: %w", quoteName(c.Link), fmt.Sprintf(format, a...), ErrInvalid)
	}
	shape := Shape(t.Name.Local)
	switch shape {
	case Box, Cylinder, Sphere:
	default:
		return // a mesh, or something else: not read
	}
	if c.Shape != "" {
		bad("more than one shape")
		return
	}
	c.Shape = shape
	var err error
	switch shape {
	case Box:
		c.Size = [3]float64{-1, -1, -1}
		err = vecAttr(t, "size", &c.Size)
	case Cylinder:
		if c.Size[0], _, err = floatAttr(t, "radius", 0, true); err == nil {
			c.Size[1], _, err = floatAttr(t, "length", 0, true)
		}
	case Sphere:
		c.Size[0], _, err = floatAttr(t, "radius", 0, true)
	}
	if err != nil {
		bad("%v", err)
		return
	}
	n := map[Shape]int{Box: 3, Cylinder: 2, Sphere: 1}[shape]
	for _, v := range c.Size[:n] {
		if !(v > 0) || v > 1000 {
			bad("<%s> size %v: want positive metres (at most 1000)", shape, c.Size[:n])
			return
		}
	}
}

// finishJoint applies urdfdom's rules once the whole <joint> is read.
func (p *urdfParser) finishJoint() error {
	j := *p.joint
	p.joint = nil
	bad := func(format string, a ...any) error {
		return fmt.Errorf("urdf: joint %s: %s: %w", quoteName(j.Name), fmt.Sprintf(format, a...), ErrInvalid)
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

// vecAttr parses a "x y z" attribute of three finite numbers into v; an
// absent attribute leaves v alone.
func vecAttr(t xml.StartElement, name string, v *[3]float64) error {
	for _, a := range t.Attr {
		if a.Name.Space != "" || a.Name.Local != name {
			continue
		}
		f := strings.Fields(a.Value)
		var out [3]float64
		var err error
		for i := 0; err == nil && i < len(f) && i < 3; i++ {
			out[i], err = strconv.ParseFloat(f[i], 64)
			if err == nil && (math.IsNaN(out[i]) || math.IsInf(out[i], 0)) {
				err = errors.New("not finite")
			}
		}
		if err != nil || len(f) != 3 {
			return fmt.Errorf("<%s %s=%q>: want three finite numbers", t.Name.Local, name, clip(a.Value, 40))
		}
		*v = out
		return nil
	}
	return nil
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
