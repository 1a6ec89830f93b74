package sim

import (
	"cmp"
	"math"
	"slices"
)

// poseTarget is a pose goal in the map frame.
type poseTarget struct {
	link   string
	p      vec3
	radius float64
	r      *mat3 // nil: any orientation
	tol    [3]float64
	chain  []int // indices into the group's joints that move link
	axisOf []int // model.joints index of each chain joint
}

// poseGoals are the group's joint positions that satisfy g, nearest the
// start first: a damped-least-squares IK on the sim's own FK from the
// start and from seeded random states. None found: NO_IK_SOLUTION; all
// touching the table: GOAL_IN_COLLISION.
func (p *planner) poseGoals(g PoseGoal, start []float64) ([][]float64, PlanResult) {
	t, res := p.target(g)
	if res.Code != "" {
		return nil, res
	}
	var found, colliding [][]float64
	for k := 0; k < ikSeeds && len(found) < ikSolutions; k++ {
		seed := start
		if k > 0 {
			seed = p.random()
		}
		q, ok := p.ik(t, seed)
		if !ok {
			continue
		}
		if p.collides(q) {
			colliding = append(colliding, q)
			continue
		}
		found = append(found, q)
	}
	switch {
	case len(found) > 0:
		dist := func(q []float64) float64 {
			d := 0.0
			for i := range q {
				d = math.Max(d, math.Abs(q[i]-start[i]))
			}
			return d
		}
		slices.SortStableFunc(found, func(a, b []float64) int { return cmp.Compare(dist(a), dist(b)) })
		return found, PlanResult{}
	case len(colliding) > 0:
		return nil, refuse(PlanGoalInCollision, "every IK solution for %s touches the %s", g.Link, TableObject)
	}
	return nil, refuse(PlanNoIKSolution, "no IK solution for %s within %d restarts", g.Link, ikSeeds)
}

// target checks g and puts it in the map frame.
func (p *planner) target(g PoseGoal) (poseTarget, PlanResult) {
	pos := vec3{g.Position.X, g.Position.Y, g.Position.Z}
	if !finite(pos[0]) || !finite(pos[1]) || !finite(pos[2]) || !(g.Radius > 0) || math.IsInf(g.Radius, 0) {
		return poseTarget{}, refuse(PlanInvalidGoal, "a position goal needs a finite position and a radius > 0")
	}
	t := poseTarget{link: g.Link, p: pos, radius: g.Radius}
	if g.Orientation != nil {
		q := *g.Orientation
		n := math.Sqrt(q.X*q.X + q.Y*q.Y + q.Z*q.Z + q.W*q.W)
		if !finite(n) || n < 1e-6 {
			return poseTarget{}, refuse(PlanInvalidGoal, "orientation goal: not a rotation")
		}
		for i, v := range g.AxisTolerance {
			if !(v >= 0) || math.IsInf(v, 0) {
				return poseTarget{}, refuse(PlanInvalidGoal, "orientation goal: tolerance %v", v)
			}
			t.tol[i] = math.Max(v, minAngleTol)
		}
		r := quatMatrix(q.X/n, q.Y/n, q.Z/n, q.W/n)
		t.r = &r
	}
	// The frame's pose in map.
	var frame transform
	switch {
	case g.Frame == MapFrame || g.Frame == "/"+MapFrame:
		frame = identityTransform()
	case g.Frame == OdomFrame || g.Frame == "/"+OdomFrame:
		frame = planar(p.drift)
	default:
		name := g.Frame
		if name == "" {
			name = p.m.root
		}
		f, ok := p.m.linkPoses(p.base, p.state)[name]
		if !ok {
			return poseTarget{}, refuse(PlanFrameFailure, "unknown frame %q", g.Frame)
		}
		frame = f
	}
	t.p = frame.p.add(frame.r.apply(t.p))
	if t.r != nil {
		r := frame.r.mul(*t.r)
		t.r = &r
	}
	// The group's joints on the way from the root to the link.
	parentJoint := map[string]int{}
	for k, j := range p.m.joints {
		parentJoint[j.child] = k
	}
	if _, ok := parentJoint[g.Link]; !ok && g.Link != p.m.root {
		return poseTarget{}, refuse(PlanInvalidLink, "no link %q", g.Link)
	}
	for l := g.Link; ; {
		k, ok := parentJoint[l]
		if !ok {
			break
		}
		if i := p.index(p.m.joints[k].name); i >= 0 {
			t.chain, t.axisOf = append(t.chain, i), append(t.axisOf, k)
		}
		l = p.m.joints[k].parent
	}
	if len(t.chain) == 0 {
		return poseTarget{}, refuse(PlanInvalidLink, "link %q is not moved by the group", g.Link)
	}
	return t, PlanResult{}
}

func planar(p Pose2D) transform {
	return transform{r: axisAngle(vec3{0, 0, 1}, p.Yaw), p: vec3{p.X, p.Y, 0}}
}

// quatMatrix is the rotation of a unit quaternion.
func quatMatrix(x, y, z, w float64) mat3 {
	return mat3{
		{1 - 2*(y*y+z*z), 2 * (x*y - z*w), 2 * (x*z + y*w)},
		{2 * (x*y + z*w), 1 - 2*(x*x+z*z), 2 * (y*z - x*w)},
		{2 * (x*z - y*w), 2 * (y*z + x*w), 1 - 2*(x*x+y*y)},
	}
}

func (m mat3) transpose() mat3 {
	var out mat3
	for i := range 3 {
		for j := range 3 {
			out[i][j] = m[j][i]
		}
	}
	return out
}

// rotationVector is the axis times the angle of a rotation.
func (m mat3) rotationVector() vec3 {
	c := math.Max(-1, math.Min(1, (m[0][0]+m[1][1]+m[2][2]-1)/2))
	angle := math.Acos(c)
	v := vec3{m[2][1] - m[1][2], m[0][2] - m[2][0], m[1][0] - m[0][1]}
	s := math.Sin(angle)
	if s > 1e-6 {
		return v.scale(angle / (2 * s))
	}
	if c > 0 {
		return v.scale(0.5) // near identity
	}
	// Near a half turn: the axis from the diagonal, signed by the largest.
	k := 0
	for i := 1; i < 3; i++ {
		if m[i][i] > m[k][k] {
			k = i
		}
	}
	var axis vec3
	axis[k] = math.Sqrt(math.Max(0, (m[k][k]+1)/2))
	for i := range 3 {
		if i != k {
			axis[i] = (m[i][k] + m[k][i]) / (4 * axis[k])
		}
	}
	return axis.scale(angle / axis.norm())
}

// errors is the target's position error (m) and rotation error (rad,
// about the target's axes; zero without an orientation goal) for link
// at pose l.
func (t *poseTarget) errors(l transform) (vec3, vec3) {
	ep := t.p.sub(l.p)
	if t.r == nil {
		return ep, vec3{}
	}
	return ep, t.r.transpose().mul(l.r).rotationVector()
}

func (t *poseTarget) met(l transform, fraction float64) bool {
	ep, er := t.errors(l)
	if ep.norm() > math.Max(fraction*t.radius, minRadiusGoal) {
		return false
	}
	for i := range 3 {
		if math.Abs(er[i]) > fraction*t.tol[i] {
			return false
		}
	}
	return true
}

// ik moves the group's joints from seed toward the target by damped
// least squares, the Jacobian from the revolute and prismatic axes the
// sim's FK places; it reports whether the target is met.
func (p *planner) ik(t poseTarget, seed []float64) ([]float64, bool) {
	q := append([]float64(nil), seed...)
	rows := 3
	if t.r != nil {
		rows = 6
	}
	n := len(t.chain)
	J := make([][]float64, rows)
	for i := range J {
		J[i] = make([]float64, n)
	}
	for range ikIterations {
		poses := p.m.linkPoses(p.base, p.configure(q))
		l := poses[t.link]
		if t.met(l, aimFraction) {
			return q, true
		}
		ep, _ := t.errors(l)
		e := []float64{ep[0], ep[1], ep[2]}
		if t.r != nil {
			er := t.r.mul(l.r.transpose()).rotationVector() // world frame
			e = append(e, er[0], er[1], er[2])
		}
		for c, k := range t.axisOf {
			j := p.m.joints[k]
			jp := poses[j.child]
			axis := jp.r.apply(j.axis)
			var lin, ang vec3
			switch j.typ {
			case "prismatic":
				lin = axis
			case "revolute", "continuous":
				lin, ang = axis.cross(l.p.sub(jp.p)), axis
			}
			for r := range 3 {
				J[r][c] = lin[r]
				if rows == 6 {
					J[3+r][c] = ang[r]
				}
			}
		}
		dq := dampedStep(J, e, ikDamping)
		big := 0.0
		for _, v := range dq {
			big = math.Max(big, math.Abs(v))
		}
		f := 1.0
		if big > maxIKStep {
			f = maxIKStep / big
		}
		for c, i := range t.chain {
			q[i] = p.clamp(i, q[i]+f*dq[c])
		}
	}
	return q, t.met(p.m.linkPoses(p.base, p.configure(q))[t.link], aimFraction)
}

// dampedStep is Jᵀ(JJᵀ + λ²I)⁻¹e.
func dampedStep(J [][]float64, e []float64, lambda float64) []float64 {
	m, n := len(J), len(J[0])
	A := make([][]float64, m)
	for i := range m {
		A[i] = make([]float64, m+1)
		for j := range m {
			for k := range n {
				A[i][j] += J[i][k] * J[j][k]
			}
		}
		A[i][i] += lambda * lambda
		A[i][m] = e[i]
	}
	// Gauss-Jordan with partial pivoting; JJᵀ + λ²I is positive definite.
	for c := range m {
		piv := c
		for r := c + 1; r < m; r++ {
			if math.Abs(A[r][c]) > math.Abs(A[piv][c]) {
				piv = r
			}
		}
		A[c], A[piv] = A[piv], A[c]
		for r := range m {
			if r != c {
				f := A[r][c] / A[c][c]
				for k := c; k <= m; k++ {
					A[r][k] -= f * A[c][k]
				}
			}
		}
	}
	y := make([]float64, m)
	for i := range m {
		y[i] = A[i][m] / A[i][i]
	}
	dq := make([]float64, n)
	for k := range n {
		for i := range m {
			dq[k] += J[i][k] * y[i]
		}
	}
	return dq
}
