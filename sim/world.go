package sim

import (
	"encoding/xml"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Box is an axis-aligned box in the world (MapFrame, which is the odom
// frame while odometry does not drift), metres.
type Box struct {
	Min [3]float64 `json:"min"`
	Max [3]float64 `json:"max"`
}

func (b Box) valid() bool {
	for i := range 3 {
		if !finite(b.Min[i]) || !finite(b.Max[i]) || b.Min[i] > b.Max[i] {
			return false
		}
	}
	return true
}

// TableObject is the table's name in the collision log.
const TableObject = "table"

// Collision is one contact of a link with an object of the world: from
// when its collision shapes first touched the object to when they last
// did (End is nil while they still touch).
type Collision struct {
	Link   string     `json:"link"`
	Object string     `json:"object"`
	Start  time.Time  `json:"start"` // simulated time
	End    *time.Time `json:"end,omitempty"`
}

// CollisionLog is every contact of the robot's links with its world.
type CollisionLog struct {
	Table *Box `json:"table"` // nil: an empty world, nothing to collide with
	// Contacts counts every contact, beyond the bounded log too.
	Contacts   int         `json:"contacts"`
	Touching   []string    `json:"touching"` // links touching now
	Collisions []Collision `json:"collisions"`
}

// Links lists the links that touched object, each once, in log order.
func (l CollisionLog) Links(object string) []string {
	var out []string
	seen := map[string]bool{}
	for _, c := range l.Collisions {
		if c.Object == object && !seen[c.Link] {
			seen[c.Link] = true
			out = append(out, c.Link)
		}
	}
	return out
}

// worldModel is the robot's kinematic tree and collision shapes from its
// URDF, built once; linkPoses computes where every link is.
type worldModel struct {
	root   string
	joints []treeJoint // parents before children
	shapes []linkShape
}

type treeJoint struct {
	name, typ     string
	parent, child string
	origin        transform
	axis          vec3 // unit
}

// linkShape is one collision shape of a link, in the link's frame.
type linkShape struct {
	link   string
	origin transform
	kind   string  // "box", "cylinder", "sphere"
	size   vec3    // box: full extents
	radius float64 // cylinder, sphere
	length float64 // cylinder
}

type urdfOrigin struct {
	XYZ string `xml:"xyz,attr"`
	RPY string `xml:"rpy,attr"`
}

type urdfTree struct {
	Links []struct {
		Name       string `xml:"name,attr"`
		Collisions []struct {
			Origin   *urdfOrigin `xml:"origin"`
			Geometry struct {
				Box *struct {
					Size string `xml:"size,attr"`
				} `xml:"box"`
				Cylinder *struct {
					Radius float64 `xml:"radius,attr"`
					Length float64 `xml:"length,attr"`
				} `xml:"cylinder"`
				Sphere *struct {
					Radius float64 `xml:"radius,attr"`
				} `xml:"sphere"`
			} `xml:"geometry"`
		} `xml:"collision"`
	} `xml:"link"`
	Joints []struct {
		Name   string      `xml:"name,attr"`
		Type   string      `xml:"type,attr"`
		Origin *urdfOrigin `xml:"origin"`
		Parent struct {
			Link string `xml:"link,attr"`
		} `xml:"parent"`
		Child struct {
			Link string `xml:"link,attr"`
		} `xml:"child"`
		Axis *struct {
			XYZ string `xml:"xyz,attr"`
		} `xml:"axis"`
	} `xml:"joint"`
}

// newWorldModel reads the tree and the box, cylinder and sphere collision
// shapes of a URDF (meshes are not modelled).
func newWorldModel(urdf string) (*worldModel, error) {
	var u urdfTree
	if err := xml.Unmarshal([]byte(urdf), &u); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrURDF, err)
	}
	children := map[string][]int{}
	isChild := map[string]bool{}
	var joints []treeJoint
	for _, j := range u.Joints {
		o, err := originOf(j.Origin)
		if err != nil {
			return nil, fmt.Errorf("%w: joint %q: %v", ErrURDF, j.Name, err)
		}
		axis := vec3{1, 0, 0}
		if j.Axis != nil {
			if axis, err = triple(j.Axis.XYZ, axis); err != nil {
				return nil, fmt.Errorf("%w: joint %q axis: %v", ErrURDF, j.Name, err)
			}
		}
		n := axis.norm()
		if (j.Type == "revolute" || j.Type == "continuous" || j.Type == "prismatic") && !(n > 0) {
			return nil, fmt.Errorf("%w: joint %q has a zero axis", ErrURDF, j.Name)
		}
		if n > 0 {
			axis = axis.scale(1 / n)
		}
		if isChild[j.Child.Link] {
			return nil, fmt.Errorf("%w: link %q has two parents", ErrURDF, j.Child.Link)
		}
		isChild[j.Child.Link] = true
		children[j.Parent.Link] = append(children[j.Parent.Link], len(joints))
		joints = append(joints, treeJoint{name: j.Name, typ: j.Type, parent: j.Parent.Link, child: j.Child.Link, origin: o, axis: axis})
	}
	m := &worldModel{}
	for _, l := range u.Links {
		if !isChild[l.Name] {
			if m.root != "" {
				return nil, fmt.Errorf("%w: two root links, %q and %q", ErrURDF, m.root, l.Name)
			}
			m.root = l.Name
		}
		for _, c := range l.Collisions {
			o, err := originOf(c.Origin)
			if err != nil {
				return nil, fmt.Errorf("%w: link %q collision: %v", ErrURDF, l.Name, err)
			}
			s := linkShape{link: l.Name, origin: o}
			g := c.Geometry
			switch {
			case g.Box != nil:
				s.kind = "box"
				if s.size, err = triple(g.Box.Size, vec3{}); err != nil {
					return nil, fmt.Errorf("%w: link %q box: %v", ErrURDF, l.Name, err)
				}
			case g.Cylinder != nil:
				s.kind, s.radius, s.length = "cylinder", g.Cylinder.Radius, g.Cylinder.Length
			case g.Sphere != nil:
				s.kind, s.radius = "sphere", g.Sphere.Radius
			default:
				continue
			}
			m.shapes = append(m.shapes, s)
		}
	}
	if m.root == "" {
		return nil, fmt.Errorf("%w: no root link", ErrURDF)
	}
	// Order the joints from the root down, so a parent's pose is known first.
	queue := []string{m.root}
	for len(queue) > 0 {
		link := queue[0]
		queue = queue[1:]
		for _, k := range children[link] {
			m.joints = append(m.joints, joints[k])
			queue = append(queue, joints[k].child)
		}
	}
	if len(m.joints) != len(joints) {
		return nil, fmt.Errorf("%w: %d joints not connected to the root %q", ErrURDF, len(joints)-len(m.joints), m.root)
	}
	return m, nil
}

func originOf(o *urdfOrigin) (transform, error) {
	if o == nil {
		return identityTransform(), nil
	}
	p, err := triple(o.XYZ, vec3{})
	if err != nil {
		return transform{}, err
	}
	r, err := triple(o.RPY, vec3{})
	if err != nil {
		return transform{}, err
	}
	return transform{r: rpy(r[0], r[1], r[2]), p: p}, nil
}

// triple parses "x y z"; def when empty.
func triple(s string, def vec3) (vec3, error) {
	f := strings.Fields(s)
	if len(f) == 0 {
		return def, nil
	}
	if len(f) != 3 {
		return vec3{}, fmt.Errorf("%q: want three numbers", s)
	}
	var v vec3
	for i, x := range f {
		n, err := strconv.ParseFloat(x, 64)
		if err != nil || !finite(n) {
			return vec3{}, fmt.Errorf("%q: %q is not a finite number", s, x)
		}
		v[i] = n
	}
	return v, nil
}

// linkPoses is every link's pose in the world, the root at base (the
// base's pose in the odom frame), each joint at its position in q
// (zero when q lacks it).
func (m *worldModel) linkPoses(base Pose2D, q map[string]float64) map[string]transform {
	root := transform{r: axisAngle(vec3{0, 0, 1}, base.Yaw), p: vec3{base.X, base.Y, 0}}
	poses := map[string]transform{m.root: root}
	for _, j := range m.joints {
		poses[j.child] = poses[j.parent].then(j.motion(q[j.name]))
	}
	return poses
}

// motion is the child link's pose in the parent link's frame with the
// joint at position q.
func (j treeJoint) motion(q float64) transform {
	switch j.typ {
	case "revolute", "continuous":
		return j.origin.then(transform{r: axisAngle(j.axis, q)})
	case "prismatic":
		return j.origin.then(transform{r: identity(), p: j.axis.scale(q)})
	}
	return j.origin
}

// worldShape places a link's collision shape at the link's pose.
func (s linkShape) worldShape(link transform) convex {
	t := link.then(s.origin)
	switch s.kind {
	case "box":
		return box{c: t.p, r: t.r, half: s.size.scale(0.5)}
	case "cylinder":
		return cylinder{c: t.p, axis: t.r.col(2), radius: s.radius, half: s.length / 2}
	}
	return sphere{c: t.p, radius: s.radius}
}

// reach bounds how far the shape extends from its origin.
func (s linkShape) reach() float64 {
	switch s.kind {
	case "box":
		return s.size.norm() / 2
	case "cylinder":
		return math.Hypot(s.radius, s.length/2)
	}
	return s.radius
}

// touching lists the links whose collision shapes touch the box, in
// shape order.
func (m *worldModel) touching(b Box, base Pose2D, q map[string]float64) []string {
	poses := m.linkPoses(base, q)
	table := aabb{min: b.Min, max: b.Max}
	var out []string
	for _, s := range m.shapes {
		if len(out) > 0 && out[len(out)-1] == s.link {
			continue
		}
		if distToBox(poses[s.link].then(s.origin).p, b) > s.reach() {
			continue // too far for the exact test
		}
		if intersects(s.worldShape(poses[s.link]), table) {
			out = append(out, s.link)
		}
	}
	return out
}

// distToBox is the distance from p to the box (0 inside).
func distToBox(p vec3, b Box) float64 {
	var d vec3
	for i := range 3 {
		d[i] = math.Max(0, math.Max(b.Min[i]-p[i], p[i]-b.Max[i]))
	}
	return d.norm()
}

// collisionTracker keeps the collision log: it opens an entry when a link
// starts touching and closes it when the link leaves.
type collisionTracker struct {
	model *worldModel
	table Box
	log   CollisionLog
	open  map[string]int // link → index of its open entry
}

func newCollisionTracker(m *worldModel, table Box) *collisionTracker {
	t := table
	return &collisionTracker{model: m, table: table, open: map[string]int{},
		log: CollisionLog{Table: &t, Touching: []string{}, Collisions: []Collision{}}}
}

func (c *collisionTracker) step(now time.Time, base Pose2D, q map[string]float64) {
	touching := c.model.touching(c.table, base, q)
	still := map[string]bool{}
	for _, l := range touching {
		still[l] = true
		if _, ok := c.open[l]; ok {
			continue
		}
		if len(c.log.Collisions) >= maxRecords {
			c.dropOldest()
		}
		c.open[l] = len(c.log.Collisions)
		c.log.Collisions = append(c.log.Collisions, Collision{Link: l, Object: TableObject, Start: now})
		c.log.Contacts++
	}
	for l, i := range c.open {
		if !still[l] {
			end := now
			c.log.Collisions[i].End = &end
			delete(c.open, l)
		}
	}
	c.log.Touching = touching
}

// dropOldest forgets the oldest entry, keeping the open ones' indices.
func (c *collisionTracker) dropOldest() {
	c.log.Collisions = append(c.log.Collisions[:0], c.log.Collisions[1:]...)
	for l, i := range c.open {
		if i == 0 {
			delete(c.open, l)
			continue
		}
		c.open[l] = i - 1
	}
}

func (c *collisionTracker) snapshot() CollisionLog {
	out, table := c.log, c.table
	out.Table = &table
	out.Touching = append([]string{}, c.log.Touching...)
	out.Collisions = make([]Collision, len(c.log.Collisions))
	for i, e := range c.log.Collisions {
		if e.End != nil {
			end := *e.End
			e.End = &end
		}
		out.Collisions[i] = e
	}
	return out
}
