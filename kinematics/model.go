package kinematics

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/actbridge/actbridge/urdf"
)

// Sentinel errors; compare with errors.Is.
var (
	ErrUnknownLink      = errors.New("unknown link")
	ErrUnknownJoint     = errors.New("unknown joint")
	ErrNoChain          = errors.New("no chain between the links")
	ErrUnsupportedJoint = errors.New("joint type not supported in a kinematic chain")
	ErrBadInput         = errors.New("invalid kinematics input")
	ErrUnreachable      = errors.New("pose not reachable within joint limits")
)

// Model is a robot's kinematic tree from its URDF. It is immutable: build
// it once and share it.
type Model struct {
	name     string
	links    map[string]bool
	order    []string         // link names in document order
	parent   map[string][]int // child link → indices of the joints naming it as child
	children map[string][]int // parent link → indices of the joints naming it as parent
	joints   []urdf.Joint
}

// Parse builds a Model from a URDF document.
func Parse(data []byte) (*Model, error) {
	r, err := urdf.Parse(data)
	if err != nil {
		return nil, err
	}
	return NewModel(r)
}

// NewModel builds a Model from a parsed URDF. Problems in a part of the tree
// are reported by Chain when a chain goes through it, so an arm is usable
// even if some unrelated joint is not.
func NewModel(r *urdf.Robot) (*Model, error) {
	if r == nil {
		return nil, fmt.Errorf("kinematics: no robot description: %w", ErrBadInput)
	}
	m := &Model{name: r.Name, links: make(map[string]bool, len(r.Links)), parent: make(map[string][]int, len(r.Joints)),
		children: make(map[string][]int, len(r.Joints)), joints: r.Joints}
	for _, l := range r.Links {
		if !m.links[l] {
			m.order = append(m.order, l)
		}
		m.links[l] = true
	}
	for i, j := range r.Joints {
		m.parent[j.Child] = append(m.parent[j.Child], i)
		m.children[j.Parent] = append(m.children[j.Parent], i)
	}
	return m, nil
}

// Links lists the URDF's links in document order.
func (m *Model) Links() []string { return append([]string(nil), m.order...) }

// DefaultChain names the chain an arm's joints make when the config names
// no base and tool link: base is the parent link of the top-most of them;
// tool is the child link of the lowest, followed down fixed joints
// while a link has exactly one child joint and it is fixed (a flange, a
// tool0, a gripper's base; not the gripper's fingers). The joints may be
// listed in any order but must all lie on that chain, and every movable
// joint of the chain must be listed.
func (m *Model) DefaultChain(joints []string) (base, tool string, err error) {
	if len(joints) == 0 {
		return "", "", fmt.Errorf("kinematics: no joints to find a chain for: %w", ErrBadInput)
	}
	listed := make(map[string]bool, len(joints))
	deepest, depth := -1, -1
	for _, name := range joints {
		i := m.jointIndex(name)
		if i < 0 {
			return "", "", fmt.Errorf("kinematics: joint %s is not in URDF %s: %w", quote(name), quote(m.name), ErrUnknownJoint)
		}
		listed[name] = true
		if n := m.depth(m.joints[i].Child); n > depth {
			deepest, depth = i, n
		}
	}
	// Up from the deepest joint, meeting every listed joint and no other
	// movable one before the last.
	l, left := m.joints[deepest].Child, len(listed)
	for steps := 0; left > 0; steps++ {
		ps := m.parent[l]
		if len(ps) != 1 || steps > len(m.joints) {
			return "", "", fmt.Errorf("kinematics: joints %s are not on one chain: %w", names(joints, ", "), ErrNoChain)
		}
		j := m.joints[ps[0]]
		if listed[j.Name] {
			left--
		} else if j.Type.Movable() {
			return "", "", fmt.Errorf("kinematics: movable joint %s lies between the joints %s but is not one of them: %w", quote(j.Name), names(joints, ", "), ErrNoChain)
		}
		l = j.Parent
	}
	tool = m.joints[deepest].Child
	for steps := 0; steps < len(m.joints); steps++ {
		cs := m.children[tool]
		if len(cs) != 1 || m.joints[cs[0]].Type != urdf.Fixed {
			break
		}
		tool = m.joints[cs[0]].Child
	}
	return l, tool, nil
}

// depth counts the joints above a link, up to the root or to a link with
// more than one parent.
func (m *Model) depth(l string) int {
	n := 0
	for ; n <= len(m.joints); n++ {
		ps := m.parent[l]
		if len(ps) != 1 {
			break
		}
		l = m.joints[ps[0]].Parent
	}
	return n
}

func (m *Model) jointIndex(name string) int {
	for i, j := range m.joints {
		if j.Name == name {
			return i
		}
	}
	return -1
}

// Chain is the serial chain from a base link to a tool link, named by its
// end links as in KDL. It is immutable and safe for concurrent use; each
// computation brings its own *Data.
type Chain struct {
	base, tool string
	links      []string // base first, tool last
	linkIndex  map[string]int
	segs       []segment // segs[k] moves links[k+1] relative to links[k]
	joints     []string  // movable joints, base to tool: the order of joint vectors
	lower      []float64 // per movable joint; -Inf for continuous
	upper      []float64
	// reach[k][s]: a bound on the distance from segment s's joint axis to
	// link k's origin (k > s), whatever the joint positions.
	reach [][]float64
}

type segment struct {
	origin frame
	axis   Vec3 // unit, in the joint frame
	kind   urdf.JointType
	q      int // index in the joint vector; -1 for fixed joints
}

// Chain returns the chain from base to tool: every joint on the way must be
// fixed, revolute, continuous or prismatic, and not a mimic joint. Joint
// bounds come from <limit>, tightened by <safety_controller> soft limits.
func (m *Model) Chain(base, tool string) (*Chain, error) {
	for _, l := range []string{base, tool} {
		if !m.links[l] {
			return nil, fmt.Errorf("kinematics: link %s is not in URDF %s: %w", quote(l), quote(m.name), ErrUnknownLink)
		}
	}
	path, err := m.up(tool, base)
	if err != nil {
		if _, down := m.up(base, tool); down == nil {
			return nil, fmt.Errorf("kinematics: link %s is below %s, not above it; swap base and tool: %w", quote(base), quote(tool), ErrNoChain)
		}
		return nil, err
	}
	c := &Chain{base: base, tool: tool, links: []string{base}, linkIndex: map[string]int{base: 0}}
	for k := len(path) - 1; k >= 0; k-- {
		j := m.joints[path[k]]
		s, err := newSegment(j)
		if err != nil {
			return nil, err
		}
		if s.kind != urdf.Fixed {
			s.q = len(c.joints)
			c.joints = append(c.joints, j.Name)
			lo, hi := bounds(j)
			c.lower = append(c.lower, lo)
			c.upper = append(c.upper, hi)
		}
		c.segs = append(c.segs, s)
		c.linkIndex[j.Child] = len(c.links)
		c.links = append(c.links, j.Child)
	}
	c.reach = make([][]float64, len(c.links))
	for k := range c.links {
		c.reach[k] = make([]float64, k)
		r := 0.0 // from the origin of link s+1 (on segment s's axis) to link k's origin
		for s := k - 1; s >= 0; s-- {
			c.reach[k][s] = r
			g := &c.segs[s]
			r += norm(g.origin.p)
			if g.kind == urdf.Prismatic {
				r += math.Max(math.Abs(c.lower[g.q]), math.Abs(c.upper[g.q]))
			}
		}
	}
	return c, nil
}

// SpeedBounds writes into out (one per link, Links order) a bound on the
// speed of each link's origin, in m/s, when every movable joint i moves at
// most absVel[i] (Joints order), whatever the joint positions: a revolute
// joint moves a point at most |q̇|·r, r bounded by the summed origin offsets
// (and prismatic travel) between them; a prismatic joint moves it at |q̇|.
// The workspace check sizes its sampling step with it.
func (c *Chain) SpeedBounds(absVel, out []float64) error {
	if len(absVel) != len(c.joints) || len(out) != len(c.links) {
		return fmt.Errorf("kinematics: %d speeds for %d joints, %d bounds for %d links: %w", len(absVel), len(c.joints), len(out), len(c.links), ErrBadInput)
	}
	for k := range c.links {
		b := 0.0
		for s := 0; s < k; s++ {
			g := &c.segs[s]
			if g.q < 0 {
				continue
			}
			v := math.Abs(absVel[g.q])
			if g.kind == urdf.Prismatic {
				b += v
			} else {
				b += v * c.reach[k][s]
			}
		}
		out[k] = b
	}
	return nil
}

// up walks from link towards the root until it meets top and returns the
// joints on the way, link's parent joint first.
func (m *Model) up(link, top string) ([]int, error) {
	var path []int
	seen := []string{link}
	for l := link; l != top; {
		ps := m.parent[l]
		switch {
		case len(ps) == 0:
			return nil, fmt.Errorf("kinematics: link %s is not above %s (its ancestors: %s): %w", quote(top), quote(link), names(seen, " ← "), ErrNoChain)
		case len(ps) > 1:
			return nil, fmt.Errorf("kinematics: link %s is the child of %d joints: %w", quote(l), len(ps), ErrNoChain)
		case len(path) > len(m.joints):
			return nil, fmt.Errorf("kinematics: the joints above %s form a loop: %w", quote(link), ErrNoChain)
		}
		j := m.joints[ps[0]]
		if !m.links[j.Parent] {
			return nil, fmt.Errorf("kinematics: joint %s names parent link %s, which is not a <link>: %w", quote(j.Name), quote(j.Parent), ErrUnknownLink)
		}
		path = append(path, ps[0])
		l = j.Parent
		seen = append(seen, l)
	}
	return path, nil
}

func newSegment(j urdf.Joint) (segment, error) {
	if j.GeometryErr != nil {
		return segment{}, j.GeometryErr
	}
	s := segment{origin: rpyFrame(j.Origin.XYZ, j.Origin.RPY), kind: j.Type, q: -1}
	switch j.Type {
	case urdf.Fixed:
		return s, nil
	case urdf.Revolute, urdf.Continuous, urdf.Prismatic:
	default:
		return segment{}, fmt.Errorf("kinematics: joint %s is %s: %w", quote(j.Name), j.Type, ErrUnsupportedJoint)
	}
	if j.Mimic != nil {
		return segment{}, fmt.Errorf("kinematics: joint %s mimics %s: %w", quote(j.Name), quote(j.Mimic.Joint), ErrUnsupportedJoint)
	}
	n := norm(j.Axis)
	if !(n > 1e-9) {
		return segment{}, fmt.Errorf("kinematics: joint %s has a zero <axis>: %w", quote(j.Name), urdf.ErrInvalid)
	}
	s.axis = Vec3{j.Axis[0] / n, j.Axis[1] / n, j.Axis[2] / n}
	return s, nil
}

// bounds is the joint's position range for IK: <limit>, tightened by the
// soft limits of <safety_controller>; continuous joints are unbounded.
func bounds(j urdf.Joint) (float64, float64) {
	if j.Type == urdf.Continuous || j.Limit == nil {
		return math.Inf(-1), math.Inf(1)
	}
	lo, hi := j.Limit.Lower, j.Limit.Upper
	if s := j.Safety; s != nil {
		if s.HasSoftLower && s.SoftLower > lo && s.SoftLower <= hi {
			lo = s.SoftLower
		}
		if s.HasSoftUpper && s.SoftUpper < hi && s.SoftUpper >= lo {
			hi = s.SoftUpper
		}
	}
	return lo, hi
}

// WithBounds returns a copy of the chain whose joint ranges are narrowed to
// the given ones (for example safety's effective limits, which
// joint_limits.yaml may tighten). Ranges can only narrow; an unknown joint
// or an empty intersection is an error.
func (c *Chain) WithBounds(ranges map[string][2]float64) (*Chain, error) {
	n := *c
	n.lower = append([]float64(nil), c.lower...)
	n.upper = append([]float64(nil), c.upper...)
	for name, r := range ranges {
		i := c.JointIndex(name)
		if i < 0 {
			return nil, fmt.Errorf("kinematics: joint %s is not a movable joint of chain %s → %s: %w", quote(name), quote(c.base), quote(c.tool), ErrBadInput)
		}
		if math.IsNaN(r[0]) || math.IsNaN(r[1]) {
			return nil, fmt.Errorf("kinematics: joint %s: range [%g, %g] is not numbers: %w", quote(name), r[0], r[1], ErrBadInput)
		}
		lo, hi := math.Max(n.lower[i], r[0]), math.Min(n.upper[i], r[1])
		if lo > hi {
			return nil, fmt.Errorf("kinematics: joint %s: range [%g, %g] does not meet [%g, %g]: %w", quote(name), r[0], r[1], n.lower[i], n.upper[i], ErrBadInput)
		}
		n.lower[i], n.upper[i] = lo, hi
	}
	return &n, nil
}

// Base and Tool name the chain's end links.
func (c *Chain) Base() string { return c.base }

// Tool is the chain's last link, whose pose IK solves for.
func (c *Chain) Tool() string { return c.tool }

// Links lists the chain's links, base first and tool last: Data.Pose's
// indices.
func (c *Chain) Links() []string { return append([]string(nil), c.links...) }

// LinkIndex is the index of a link in Links, or -1.
func (c *Chain) LinkIndex(link string) int {
	if i, ok := c.linkIndex[link]; ok {
		return i
	}
	return -1
}

// ToolSpeedBound is the tool's entry of SpeedBounds, and the largest: every
// link's reach from a joint is at most the tool's. It does not allocate.
func (c *Chain) ToolSpeedBound(absVel []float64) float64 {
	k, b := len(c.links)-1, 0.0
	for s := 0; s < k && len(absVel) == len(c.joints); s++ {
		g := &c.segs[s]
		if g.q < 0 {
			continue
		}
		if v := math.Abs(absVel[g.q]); g.kind == urdf.Prismatic {
			b += v
		} else {
			b += v * c.reach[k][s]
		}
	}
	return b
}

// MovingLinks lists the links the chain's joints move: every link after
// the first movable joint, tool last.
func (c *Chain) MovingLinks() []string {
	for k := range c.segs {
		if c.segs[k].q >= 0 {
			return append([]string(nil), c.links[k+1:]...)
		}
	}
	return nil
}

// Joints lists the chain's movable joints, base to tool: the order of every
// joint vector the chain takes or returns.
func (c *Chain) Joints() []string { return append([]string(nil), c.joints...) }

// JointIndex is the index of a movable joint in Joints, or -1.
func (c *Chain) JointIndex(name string) int {
	for i, j := range c.joints {
		if j == name {
			return i
		}
	}
	return -1
}

// Bounds returns joint i's position range (±Inf for continuous joints).
func (c *Chain) Bounds(i int) (lower, upper float64) { return c.lower[i], c.upper[i] }

// Data is the scratch space of one computation on a chain: link frames,
// the Jacobian and the solver's buffers. Reuse it to avoid allocation; one
// Data serves one goroutine at a time.
type Data struct {
	chain  *Chain
	frames []frame      // per link, in the base frame
	jac    [][6]float64 // per movable joint: linear then angular velocity of the tool
	ik     ikScratch
}

// NewData allocates the scratch space for computations on c.
func (c *Chain) NewData() *Data {
	n := len(c.joints)
	d := &Data{chain: c, frames: make([]frame, len(c.links)), jac: make([][6]float64, n)}
	for i := range d.frames {
		d.frames[i] = identityFrame
	}
	d.ik = newIKScratch(n)
	return d
}

// FK computes the pose of every link of the chain at joint positions qs
// (radians, metres for prismatic joints; in Joints order) into d. It does
// not allocate.
func (c *Chain) FK(d *Data, qs []float64) error {
	if err := c.check(d, qs, "joint positions"); err != nil {
		return err
	}
	c.fk(d, qs)
	return nil
}

func (c *Chain) fk(d *Data, qs []float64) {
	for k := range c.segs {
		s := &c.segs[k]
		f := mul(&d.frames[k], &s.origin)
		switch s.kind {
		case urdf.Revolute, urdf.Continuous:
			if s.axis == (Vec3{0, 0, 1}) {
				f.rotateZ(qs[s.q]) // the common case, as mul would compute it
				break
			}
			m := frame{r: axisAngle(s.axis, qs[s.q])}
			f = mul(&f, &m)
		case urdf.Prismatic:
			v := f.rotate(s.axis)
			x := qs[s.q]
			f.p = Vec3{f.p[0] + x*v[0], f.p[1] + x*v[1], f.p[2] + x*v[2]}
		}
		d.frames[k+1] = f
	}
}

func (c *Chain) check(d *Data, qs []float64, what string) error {
	if d == nil || d.chain == nil || len(d.frames) != len(c.links) || len(d.jac) != len(c.joints) {
		return fmt.Errorf("kinematics: Data not made by this chain's NewData: %w", ErrBadInput)
	}
	if len(qs) != len(c.joints) {
		return fmt.Errorf("kinematics: %d %s for the %d movable joints of %s → %s: %w", len(qs), what, len(c.joints), quote(c.base), quote(c.tool), ErrBadInput)
	}
	for i, v := range qs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("kinematics: %s[%d] (joint %s) is %g: %w", what, i, quote(c.joints[i]), v, ErrBadInput)
		}
	}
	return nil
}

// Pose returns link i's pose (Links order) from the last FK, Jacobian or IK
// on d.
func (d *Data) Pose(i int) Pose { return d.frames[i].pose() }

// Position returns link i's position (Links order) from the last FK,
// Jacobian or IK on d: Pose without the quaternion, for hot loops.
func (d *Data) Position(i int) Vec3 { return d.frames[i].p }

// Frame returns the pose of a frame fixed to link i (Links order) at URDF
// origin xyz, rpy, from the last FK, Jacobian or IK on d: its position and
// its rotation, row-major, whose columns are the frame's axes in the base
// frame. The workspace check places collision shapes with it.
func (d *Data) Frame(i int, xyz, rpy [3]float64) (Vec3, [9]float64) {
	o := rpyFrame(xyz, rpy)
	f := mul(&d.frames[i], &o)
	return f.p, f.r
}

// ToolPose returns the tool link's pose from the last FK, Jacobian or IK
// on d.
func (d *Data) ToolPose() Pose { return d.frames[len(d.frames)-1].pose() }

// Jacobian computes FK and the tool's geometric Jacobian at qs into d:
// column i is the tool's linear and angular velocity (base frame) per unit
// velocity of joint i.
func (c *Chain) Jacobian(d *Data, qs []float64) error {
	if err := c.FK(d, qs); err != nil {
		return err
	}
	c.jacobian(d)
	return nil
}

func (c *Chain) jacobian(d *Data) {
	tip := d.frames[len(d.frames)-1].p
	for k := range c.segs {
		s := &c.segs[k]
		if s.q < 0 {
			continue
		}
		// The joint frame is the child link's frame: its origin is on the
		// axis and the motion does not move the axis.
		f := &d.frames[k+1]
		a := f.rotate(s.axis)
		if s.kind == urdf.Prismatic {
			d.jac[s.q] = [6]float64{a[0], a[1], a[2], 0, 0, 0}
			continue
		}
		v := cross(a, Vec3{tip[0] - f.p[0], tip[1] - f.p[1], tip[2] - f.p[2]})
		d.jac[s.q] = [6]float64{v[0], v[1], v[2], a[0], a[1], a[2]}
	}
}

// JacobianColumn returns column i of the Jacobian from the last Jacobian
// or IK on d: linear (x, y, z) then angular (x, y, z) velocity.
func (d *Data) JacobianColumn(i int) [6]float64 { return d.jac[i] }

func quote(s string) string {
	if len(s) > 100 {
		s = s[:100] + "…"
	}
	return strconv.Quote(s)
}

// names lists names for an error message, eight at most.
func names(ls []string, sep string) string {
	var b strings.Builder
	for i, l := range ls {
		switch {
		case len(ls) > 8 && i == 4:
			b.WriteString(sep + "…")
		case len(ls) > 8 && i > 4 && i < len(ls)-3:
		default:
			if i > 0 {
				b.WriteString(sep)
			}
			b.WriteString(quote(l))
		}
	}
	return b.String()
}
