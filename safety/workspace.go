package safety

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/actbridge/actbridge/kinematics"
	"github.com/actbridge/actbridge/urdf"
)

// Workspace violation kinds: a link outside the box the tool must stay in,
// a link inside a forbidden box, the tool faster than its cap.
const (
	KindWorkspace Kind = "workspace"
	KindForbidden Kind = "forbidden_zone"
	KindToolSpeed Kind = "tool_speed"
)

// WorkspaceResolution is the workspace check's guarantee: every point of
// the path of every checked link lies within this distance (metres) of a
// sample, so a link that enters a forbidden box deeper than this, or leaves
// the workspace box by more, is always found; shallower ones are found when
// a sample or the chord between two samples catches them. Samples are
// placed so that, by a bound from the joints' peak speeds on each segment
// (kinematics.Chain.ToolSpeedBound), no checked link moves more than twice
// this between two of them.
const WorkspaceResolution = 0.005

// sampleStep is the most a checked link may move between two samples.
const sampleStep = 2 * WorkspaceResolution

// maxWorkspaceSamples bounds the FK evaluations of one check (about a
// third of a second): a motion whose links may travel further than 2 km is
// refused as too long to check.
const maxWorkspaceSamples = 200_000

// maxWorkspaceViolations bounds the workspace violations of one report
// (the first found, per link and limit in time order): a motion that
// breaks a limit this often is refused all the same, and the refusal stays
// small.
const maxWorkspaceViolations = 32

// Box is an axis-aligned box in the arm's base link frame, metres.
type Box struct {
	Min [3]float64 `json:"min"`
	Max [3]float64 `json:"max"`
}

// Zone is a forbidden box (a table, a wall, a fixture) that the origins of
// the named links must not enter.
type Zone struct {
	Name  string   `json:"name"`
	Box   Box      `json:"box"`
	Links []string `json:"links"`
}

// WorkspaceLimits are an arm's Cartesian limits, in its base link frame.
type WorkspaceLimits struct {
	Box          *Box    // the tool link (origin and shapes) stays in it; nil: no box
	Forbidden    []Zone  // no listed link (origin and shapes) enters one
	ToolSpeedMax float64 // m/s of the tool link's origin; 0: no cap
	// Collisions are the URDF's collision shapes; those of the links a box
	// applies to are checked with their origins.
	Collisions []urdf.Collision `json:"-"`
}

// Workspace checks an arm's motions against its WorkspaceLimits with the
// arm's kinematic chain. It is immutable and safe for concurrent use.
type Workspace struct {
	chain      *kinematics.Chain
	limits     WorkspaceLimits
	tool       int     // index of the tool in chain.Links
	linkZones  [][]int // per link, the forbidden zones that apply to it
	check      []bool  // per link: some limit applies to it
	shapes     []shape // collision shapes of checked links
	linkShapes [][]int // per link, its shapes' indices
	shapeReach float64 // the largest shape reach
}

// NewWorkspace binds limits to a chain; every zone's links must be links of
// the chain, every box non-empty.
func NewWorkspace(chain *kinematics.Chain, lim WorkspaceLimits) (*Workspace, error) {
	if chain == nil {
		return nil, fmt.Errorf("workspace: no kinematic chain: %w", ErrInvalidConfig)
	}
	links := chain.Links()
	w := &Workspace{chain: chain, limits: lim, tool: len(links) - 1, check: make([]bool, len(links)), linkZones: make([][]int, len(links))}
	boxOK := func(b Box) bool {
		for a := range 3 {
			if !(b.Min[a] < b.Max[a]) || math.IsInf(b.Min[a], 0) || math.IsInf(b.Max[a], 0) {
				return false
			}
		}
		return true
	}
	if lim.Box != nil {
		if !boxOK(*lim.Box) {
			return nil, fmt.Errorf("workspace: box min %v must be below max %v on every axis: %w", lim.Box.Min, lim.Box.Max, ErrInvalidConfig)
		}
		w.check[w.tool] = true
	}
	if !(lim.ToolSpeedMax >= 0) || math.IsInf(lim.ToolSpeedMax, 0) {
		return nil, fmt.Errorf("workspace: tool_speed_max %v must be a positive number of m/s: %w", lim.ToolSpeedMax, ErrInvalidConfig)
	}
	for zi, z := range lim.Forbidden {
		if !boxOK(z.Box) {
			return nil, fmt.Errorf("workspace: forbidden box %s: min %v must be below max %v on every axis: %w", quoteName(z.Name), z.Box.Min, z.Box.Max, ErrInvalidConfig)
		}
		if len(z.Links) == 0 {
			return nil, fmt.Errorf("workspace: forbidden box %s names no link: %w", quoteName(z.Name), ErrInvalidConfig)
		}
		for _, l := range z.Links {
			k := chain.LinkIndex(l)
			if k < 0 {
				return nil, fmt.Errorf("workspace: forbidden box %s: link %s is not on the chain %s → %s: %w", quoteName(z.Name), quoteName(l), quoteName(chain.Base()), quoteName(chain.Tool()), ErrInvalidConfig)
			}
			if !slices.Contains(w.linkZones[k], zi) {
				w.linkZones[k] = append(w.linkZones[k], zi)
			}
			w.check[k] = true
		}
	}
	shapes, err := newShapes(chain, w.check, lim.Collisions)
	if err != nil {
		return nil, err
	}
	w.shapes, w.linkShapes = shapes, make([][]int, len(links))
	for i, sh := range shapes {
		w.linkShapes[sh.link] = append(w.linkShapes[sh.link], i)
		w.shapeReach = math.Max(w.shapeReach, sh.reach)
	}
	return w, nil
}

// Chain is the kinematic chain the workspace is checked with.
func (w *Workspace) Chain() *kinematics.Chain { return w.chain }

// Limits returns the limits as configured.
func (w *Workspace) Limits() WorkspaceLimits { return w.limits }

// ToolPath is the tool link's path over a motion, for a preview: start and
// end pose, distance travelled (along the samples), lowest and highest
// point (by z) and the peak Cartesian speed of the tool's origin.
type ToolPath struct {
	Link      string          `json:"link"`
	Frame     string          `json:"frame"`
	Start     kinematics.Pose `json:"start"`
	End       kinematics.Pose `json:"end"`
	DistanceM float64         `json:"distance_m"`
	Lowest    PathPoint       `json:"lowest"`
	Highest   PathPoint       `json:"highest"`
	PeakSpeed PathSpeed       `json:"peak_speed"`
	// Samples is how many poses the check computed.
	Samples int `json:"samples"`
}

// Rounded returns the path with lengths and times rounded to 1e-6 and
// orientations to 1e-6, as previews show numbers.
func (p ToolPath) Rounded() ToolPath {
	r := func(f float64) float64 { return math.Round(f*1e6) / 1e6 }
	rv := func(v [3]float64) [3]float64 { return [3]float64{r(v[0]), r(v[1]), r(v[2])} }
	rp := func(q kinematics.Pose) kinematics.Pose {
		return kinematics.Pose{Position: rv(q.Position), Orientation: kinematics.Quat{r(q.Orientation[0]), r(q.Orientation[1]), r(q.Orientation[2]), r(q.Orientation[3])}}
	}
	p.Start, p.End, p.DistanceM = rp(p.Start), rp(p.End), r(p.DistanceM)
	p.Lowest = PathPoint{rv(p.Lowest.Point), r(p.Lowest.Time)}
	p.Highest = PathPoint{rv(p.Highest.Point), r(p.Highest.Time)}
	p.PeakSpeed = PathSpeed{r(p.PeakSpeed.Value), rv(p.PeakSpeed.Point), r(p.PeakSpeed.Time)}
	return p
}

// PathPoint is a point of the tool's path and when it is reached.
type PathPoint struct {
	Point [3]float64 `json:"point"`
	Time  float64    `json:"time_s"`
}

// PathSpeed is the tool's peak speed (m/s), where and when.
type PathSpeed struct {
	Value float64    `json:"m_s"`
	Point [3]float64 `json:"point"`
	Time  float64    `json:"time_s"`
}

// wsTrack merges consecutive violating samples of one link against one
// limit into one violation with its worst sample.
type wsTrack struct {
	v      Violation
	worst  float64
	active bool
}

// workspace samples the checked trajectory (Report.Trajectory) in joint
// order order (the chain's joints as indices into the trajectory's), runs
// FK and the tool Jacobian at every sample, and appends violations and the
// tool path to the report. vmax[i·J+j] is joint j's peak |velocity| on
// segment i, from the exact analysis.
func (c *checker) workspace(w *Workspace, order []int, vmax []float64) error {
	ch := w.chain
	tr := c.tr
	nq := len(order)
	links := ch.Links()
	lim := w.limits
	d := ch.NewData()
	q := make([]float64, nq)
	qd := make([]float64, nq)
	absV := make([]float64, nq)
	prev := make([][3]float64, len(links))
	var lastTool [3]float64
	var pls []placed
	tracks := make([]wsTrack, len(links)*(1+len(lim.Forbidden))+1)
	path := &ToolPath{Link: ch.Tool(), Frame: ch.Base()}
	samples := 0

	kept := 0
	flush := func(t *wsTrack) {
		if t.active {
			if kept < maxWorkspaceViolations {
				c.r.Violations = append(c.r.Violations, t.v)
				kept++
			}
			t.active = false
		}
	}
	hit := func(t *wsTrack, v Violation, depth float64) {
		if !t.active {
			t.active, t.v, t.worst = true, v, depth
			return
		}
		t.v.End = v.End
		if depth > t.worst {
			start := t.v.Start
			t.v, t.worst = v, depth
			t.v.Start = start
		}
	}
	lastT := 0.0
	sample := func(i int, t0, tau float64, first bool) {
		t := t0 + tau
		step := t - lastT
		lastT = t
		for k, j := range order {
			s := tr.Segment(i, j)
			st := s.Eval(tau)
			q[k], qd[k] = st.Pos, st.Vel
		}
		_ = ch.Jacobian(d, q) // q is finite: the trajectory was validated
		samples++
		p := [3]float64(d.Position(w.tool))
		var vel [3]float64
		for k := range qd {
			col := d.JacobianColumn(k)
			vel[0] += col[0] * qd[k]
			vel[1] += col[1] * qd[k]
			vel[2] += col[2] * qd[k]
		}
		speed := math.Sqrt(vel[0]*vel[0] + vel[1]*vel[1] + vel[2]*vel[2])
		if first {
			path.Start, path.Lowest, path.Highest = d.ToolPose(), PathPoint{p, t}, PathPoint{p, t}
		} else {
			path.DistanceM += math.Sqrt(sq(p[0]-lastTool[0]) + sq(p[1]-lastTool[1]) + sq(p[2]-lastTool[2]))
		}
		lastTool = p
		if p[2] < path.Lowest.Point[2] {
			path.Lowest = PathPoint{p, t}
		}
		if p[2] > path.Highest.Point[2] {
			path.Highest = PathPoint{p, t}
		}
		if first || speed > path.PeakSpeed.Value {
			path.PeakSpeed = PathSpeed{speed, p, t}
		}
		if lim.ToolSpeedMax > 0 {
			tk := &tracks[len(tracks)-1]
			if speed > lim.ToolSpeedMax*(1+1e-9) {
				hit(tk, Violation{Link: ch.Tool(), Kind: KindToolSpeed, Time: t, Value: speed, Limit: lim.ToolSpeedMax, Point: p, Start: t, End: t}, speed)
			} else {
				flush(tk)
			}
		}
		for k := range links {
			if !w.check[k] {
				continue
			}
			lp := [3]float64(d.Position(k))
			from := prev[k]
			prev[k] = lp
			base := k * (1 + len(lim.Forbidden))
			pls = pls[:0]
			for _, si := range w.linkShapes[k] {
				pls = append(pls, w.shapes[si].place(d))
			}
			if k == w.tool && lim.Box != nil {
				tk := &tracks[base]
				axis, val, bnd, depth := outsideBox(lim.Box, lp)
				pt := lp
				for n := range pls {
					if a, v, b, dp, p := pls[n].outside(lim.Box); dp > depth {
						axis, val, bnd, depth, pt = a, v, b, dp, p
					}
				}
				if depth > 0 {
					hit(tk, Violation{Link: links[k], Kind: KindWorkspace, Axis: axisName(axis), Time: t, Value: val, Limit: bnd, Point: pt, Start: t, End: t}, depth)
				} else {
					flush(tk)
				}
			}
			for _, z := range w.linkZones[k] {
				tk := &tracks[base+1+z]
				box := &lim.Forbidden[z].Box
				axis, val, bnd, depth := insideBox(box, lp)
				pt := lp
				for n, si := range w.linkShapes[k] {
					if a, v, b, dp, p := pls[n].inside(&w.shapes[si], box); dp > depth {
						axis, val, bnd, depth, pt = a, v, b, dp, p
					}
				}
				if depth > 0 {
					hit(tk, Violation{Link: links[k], Kind: KindForbidden, Zone: lim.Forbidden[z].Name, Axis: axisName(axis), Time: t, Value: val, Limit: bnd, Point: pt, Start: t, End: t}, depth)
				} else if at, ok := chordHitsAfter(first, box, from, lp); ok {
					// The chord from the previous sample crosses the box: a
					// thin crossing between samples.
					ip := [3]float64{from[0] + at*(lp[0]-from[0]), from[1] + at*(lp[1]-from[1]), from[2] + at*(lp[2]-from[2])}
					axis, val, bnd, _ := insideBox(box, ip)
					ti := t - (1-at)*step
					hit(tk, Violation{Link: links[k], Kind: KindForbidden, Zone: lim.Forbidden[z].Name, Axis: axisName(axis), Time: ti, Value: val, Limit: bnd, Point: ip, Start: ti, End: ti}, 0)
					flush(tk)
				} else {
					flush(tk)
				}
			}
		}
	}

	// Samples go where the links may have moved sampleStep since the last
	// one (acc bounds that distance), on segments' own bounds:
	// slow stretches of many short segments take few samples.
	nseg := tr.Segments()
	acc := 0.0
	for i := 0; i < nseg; i++ {
		for k, j := range order {
			absV[k] = vmax[i*tr.Joints()+j]
		}
		// No link origin is faster than the tool's; a shape's points may be
		// faster by its reach times the joints' summed speeds.
		fastest := ch.ToolSpeedBound(absV)
		if w.shapeReach > 0 {
			sum := 0.0
			for _, v := range absV {
				sum += v
			}
			fastest += sum * w.shapeReach
		}
		seg := tr.Segment(i, 0)
		if i == 0 {
			sample(i, seg.Start, 0, true)
		}
		if fastest > 0 {
			if n := (acc + seg.Duration*fastest) / sampleStep; float64(samples)+n >= maxWorkspaceSamples {
				return &InputError{Field: "points[" + strconv.Itoa(i) + "]", Expected: fmt.Sprintf("a motion whose links travel at most %g m (the workspace check's %d samples)", maxWorkspaceSamples*sampleStep, maxWorkspaceSamples),
					Actual: "more by then, the tool at up to " + fmtFloat(fastest) + " m/s", Err: ErrTooLarge}
			}
			dt := sampleStep / fastest
			last := -acc / fastest // when, at this speed, the last sample was
			for tau := last + dt; tau < seg.Duration; tau += dt {
				sample(i, seg.Start, tau, false)
				last = tau
			}
			acc = fastest * (seg.Duration - last)
		}
		if i == nseg-1 {
			sample(i, seg.Start, seg.Duration, false)
		}
	}
	for k := range tracks {
		flush(&tracks[k])
	}
	path.End = d.ToolPose() // d holds the last sample, the trajectory's end
	path.Samples = samples
	c.r.Tool = path
	return nil
}

func sq(x float64) float64 { return x * x }

func axisName(a int) string { return [3]string{"x", "y", "z"}[a] }

// outsideBox reports the axis on which p is furthest outside b, p's
// coordinate there, the face crossed and by how much (0 when inside).
func outsideBox(b *Box, p [3]float64) (axis int, value, limit, depth float64) {
	tol := 1e-9
	for a := range 3 {
		if d := b.Min[a] - p[a]; d > tol && d > depth {
			axis, value, limit, depth = a, p[a], b.Min[a], d
		}
		if d := p[a] - b.Max[a]; d > tol && d > depth {
			axis, value, limit, depth = a, p[a], b.Max[a], d
		}
	}
	return axis, value, limit, depth
}

// insideBox reports, for p strictly inside b, the face p is nearest to
// (the shortest way out), p's coordinate on that axis and the depth; depth
// is 0 when p is not inside.
func insideBox(b *Box, p [3]float64) (axis int, value, limit, depth float64) {
	tol := 1e-9
	depth = math.Inf(1)
	for a := range 3 {
		lo, hi := p[a]-b.Min[a], b.Max[a]-p[a]
		if !(lo > tol && hi > tol) {
			return 0, 0, 0, 0
		}
		if lo < depth {
			axis, value, limit, depth = a, p[a], b.Min[a], lo
		}
		if hi < depth {
			axis, value, limit, depth = a, p[a], b.Max[a], hi
		}
	}
	return axis, value, limit, depth
}

// chordHitsAfter is chordHits from the second sample on.
func chordHitsAfter(first bool, b *Box, from, to [3]float64) (float64, bool) {
	if first {
		return 0, false
	}
	return chordHits(b, from, to)
}

// chordHits reports whether the segment from a to b passes through the
// interior of box (slab test), and the fraction along it of the deepest
// point of the crossing (its middle).
func chordHits(b *Box, from, to [3]float64) (float64, bool) {
	for a := range 3 { // both ends beyond one face: the common case, cheaply
		if (from[a] <= b.Min[a] && to[a] <= b.Min[a]) || (from[a] >= b.Max[a] && to[a] >= b.Max[a]) {
			return 0, false
		}
	}
	t0, t1 := 0.0, 1.0
	for a := range 3 {
		d := to[a] - from[a]
		if math.Abs(d) < 1e-15 {
			if !(from[a] > b.Min[a] && from[a] < b.Max[a]) {
				return 0, false
			}
			continue
		}
		lo, hi := (b.Min[a]-from[a])/d, (b.Max[a]-from[a])/d
		if lo > hi {
			lo, hi = hi, lo
		}
		t0, t1 = math.Max(t0, lo), math.Min(t1, hi)
		if !(t1-t0 > 1e-12) {
			return 0, false
		}
	}
	return (t0 + t1) / 2, true
}

// order maps the chain's movable joints to their index in joints.
func (w *Workspace) order(joints []string) ([]int, error) {
	cj := w.chain.Joints()
	order := make([]int, len(cj))
	for k, name := range cj {
		order[k] = -1
		for i, j := range joints {
			if j == name {
				order[k] = i
			}
		}
		if order[k] < 0 {
			return nil, &InputError{Field: "joints", Joint: name, Expected: "every joint of the chain " + quoteName(w.chain.Base()) + " → " + quoteName(w.chain.Tool()),
				Actual: "joint " + quoteName(name) + " missing", Err: ErrUnknownJoint}
		}
	}
	return order, nil
}
