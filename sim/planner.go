package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// The planner answers MoveIt's GetMotionPlan for the sim's arm with its
// own code: a damped-least-squares IK on the sim's forward kinematics
// (world.go), joint-space paths checked against the table by the sim's
// collision test, and a cubic time law within the URDF's velocity limits.
// It shares nothing with the bridge's kinematics, which it checks.

// MoveIt error codes the planner answers with, by MoveItErrorCodes'
// constant names; a face gives each its distro's value.
const (
	PlanSuccess          = "SUCCESS"
	PlanFailed           = "PLANNING_FAILED"
	PlanInvalidGroup     = "INVALID_GROUP_NAME"
	PlanInvalidGoal      = "INVALID_GOAL_CONSTRAINTS"
	PlanInvalidState     = "INVALID_ROBOT_STATE"
	PlanInvalidLink      = "INVALID_LINK_NAME"
	PlanFrameFailure     = "FRAME_TRANSFORM_FAILURE"
	PlanStartInCollision = "START_STATE_IN_COLLISION"
	PlanGoalInCollision  = "GOAL_IN_COLLISION"
	PlanNoIKSolution     = "NO_IK_SOLUTION"
)

// ArmGroup is the first arm's planning group; Arm2 names the second's.
const ArmGroup = "arm"

// PlanRequest is a motion plan request for a planning group: a joint
// goal (Joints) or a pose goal (Pose), from Start.
type PlanRequest struct {
	Group string
	// Start holds joint positions to plan from; joints it lacks start
	// where the robot stands.
	Start  map[string]float64
	Joints []JointGoal
	Pose   *PoseGoal
	// VelocityScaling in (0, 1] scales the URDF's velocity limits; any
	// other value means 1, as MoveIt takes it.
	VelocityScaling float64
}

// JointGoal is one joint constraint: the position to reach.
type JointGoal struct {
	Name     string
	Position float64
}

// PoseGoal puts Link's origin within Radius of Position and, when
// Orientation is set, its rotation within AxisTolerance (rad, about the
// target's x, y and z axes) of Orientation, both in Frame: a link of
// the robot ("" is the URDF's root), MapFrame or OdomFrame.
type PoseGoal struct {
	Link, Frame   string
	Position      Point3
	Radius        float64
	Orientation   *Quaternion
	AxisTolerance [3]float64
}

// PlanResult is the planner's answer: Code is a MoveItErrorCodes
// constant's name, the trajectory set when it is PlanSuccess.
type PlanResult struct {
	Code, Message string
	Trajectory    Trajectory
	PlanningTime  time.Duration
}

// Planner budgets: IK restarts and iterations, via points tried when the
// straight path is blocked, the collision check's joint-space step and
// the trajectory's sample period.
const (
	ikSeeds       = 40
	ikIterations  = 200
	ikSolutions   = 6
	viaPoints     = 60
	pathStep      = 0.02 // rad
	sampleEvery   = 0.1  // s
	minSegment    = 0.1  // s
	planSeed      = 36
	ikDamping     = 0.05
	maxIKStep     = 0.3 // rad per iteration
	aimFraction   = 0.5 // of a tolerance the IK aims within
	minAngleTol   = 1e-3
	minRadiusGoal = 1e-4
	// maxPosition bounds a start position (rad or m) and maxChecks a
	// path's collision checks; maxMotion a trajectory's duration and
	// maxSamples its points per leg: what a request can make the planner do.
	maxPosition = 1e4
	maxChecks   = 100_000
	maxMotion   = time.Hour
	maxSamples  = 2000
)

// Plan answers a motion plan request from the robot's current state. It
// is deterministic: the same request from the same state gets the same
// trajectory.
func (r *Robot) Plan(req PlanRequest) PlanResult {
	began := time.Now()
	p, res := r.newPlanner(req)
	if res.Code == "" {
		res = p.plan(req)
	}
	res.PlanningTime = time.Since(began)
	return res
}

type planner struct {
	m      *worldModel
	joints []Joint
	state  map[string]float64 // every joint at the start; the group's are overwritten per query
	start  []float64          // the group's joints at the start
	base   Pose2D             // true pose, map frame
	drift  Pose2D
	table  *Box
	scale  float64
	rng    *rand.Rand
}

func refuse(code, format string, args ...any) PlanResult {
	return PlanResult{Code: code, Message: fmt.Sprintf(format, args...)}
}

// newPlanner snapshots what a plan needs under the lock.
func (r *Robot) newPlanner(req PlanRequest) (*planner, PlanResult) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var a *arm
	switch req.Group {
	case ArmGroup:
		a = r.arm
	case Arm2:
		a = r.arm2
	}
	if a == nil {
		return nil, refuse(PlanInvalidGroup, "no planning group %q (the sim plans for %q)", req.Group, ArmGroup)
	}
	p := &planner{m: r.model, joints: a.cfg.Joints, state: r.fillPositions(map[string]float64{}),
		base: r.base.pose, drift: r.driftLocked(), table: r.cfg.Table, scale: req.VelocityScaling,
		rng: rand.New(rand.NewPCG(planSeed, planSeed))}
	if !(p.scale > 0 && p.scale <= 1) {
		p.scale = 1
	}
	for name, v := range req.Start {
		if _, ok := p.state[name]; !ok {
			continue // not a joint of the robot: MoveIt ignores it too
		}
		if !finite(v) || math.Abs(v) > maxPosition {
			return nil, refuse(PlanInvalidState, "start state: %s is %v", name, v)
		}
		p.state[name] = v
	}
	return p, PlanResult{}
}

func (p *planner) plan(req PlanRequest) PlanResult {
	start := make([]float64, len(p.joints))
	for i, j := range p.joints {
		start[i] = p.state[j.Name]
		if !j.Continuous() && (start[i] < j.Lower-1e-6 || start[i] > j.Upper+1e-6) {
			return refuse(PlanInvalidState, "start state: %s at %g is beyond its limits [%g, %g]", j.Name, start[i], j.Lower, j.Upper)
		}
	}
	p.start = start
	if p.collides(start) {
		return refuse(PlanStartInCollision, "the start state touches the %s", TableObject)
	}
	var goals [][]float64
	switch {
	case req.Pose != nil && len(req.Joints) > 0:
		return refuse(PlanInvalidGoal, "a joint goal or a pose goal, not both")
	case req.Pose != nil:
		var res PlanResult
		if goals, res = p.poseGoals(*req.Pose, start); res.Code != "" {
			return res
		}
	case len(req.Joints) > 0:
		goal, res := p.jointGoal(req.Joints, start)
		if res.Code != "" {
			return res
		}
		goals = [][]float64{goal}
	default:
		return refuse(PlanInvalidGoal, "no goal constraints")
	}
	for _, g := range goals {
		if path := p.path(start, g); path != nil {
			tr, ok := p.timed(path)
			if !ok {
				return refuse(PlanFailed, "at %g of the velocity limits the motion would take over %s", p.scale, maxMotion)
			}
			return PlanResult{Code: PlanSuccess, Trajectory: tr}
		}
	}
	return refuse(PlanFailed, "no path clear of the %s within %d via points", TableObject, viaPoints)
}

func (p *planner) jointGoal(js []JointGoal, start []float64) ([]float64, PlanResult) {
	goal := append([]float64(nil), start...)
	for _, g := range js {
		i := p.index(g.Name)
		switch {
		case i < 0:
			return nil, refuse(PlanInvalidGoal, "joint %q is not in the group", g.Name)
		case !finite(g.Position):
			return nil, refuse(PlanInvalidGoal, "joint %q: position %v", g.Name, g.Position)
		case !p.joints[i].Continuous() && (g.Position < p.joints[i].Lower || g.Position > p.joints[i].Upper):
			return nil, refuse(PlanInvalidGoal, "joint %q: %g is beyond its limits [%g, %g]", g.Name, g.Position, p.joints[i].Lower, p.joints[i].Upper)
		}
		goal[i] = g.Position
		if p.joints[i].Continuous() {
			goal[i] = start[i] + wrapAngle(g.Position-start[i]) // the shortest way, as the controller turns
		}
	}
	if p.collides(goal) {
		return nil, refuse(PlanGoalInCollision, "the goal state touches the %s", TableObject)
	}
	return goal, PlanResult{}
}

func (p *planner) index(name string) int {
	for i, j := range p.joints {
		if j.Name == name {
			return i
		}
	}
	return -1
}

// configure sets the group's joints to q in p.state and returns it.
func (p *planner) configure(q []float64) map[string]float64 {
	for i, j := range p.joints {
		p.state[j.Name] = q[i]
	}
	return p.state
}

func (p *planner) collides(q []float64) bool {
	return p.table != nil && len(p.m.touching(*p.table, p.base, p.configure(q))) > 0
}

// clear reports whether the straight joint-space line from a to b stays
// off the table, checked every pathStep.
func (p *planner) clear(a, b []float64) bool {
	n := 1.0
	for i := range a {
		n = math.Max(n, math.Ceil(math.Abs(b[i]-a[i])/pathStep))
	}
	if n > maxChecks {
		return false
	}
	q := make([]float64, len(a))
	for k := 0.0; k <= n; k++ {
		s := k / n
		for i := range a {
			q[i] = a[i] + s*(b[i]-a[i])
		}
		if p.collides(q) {
			return false
		}
	}
	return true
}

// path is start→goal in joint space, straight when clear, else through
// the first of the via points tried (the arm raised over the pan halfway,
// then seeded random ones) with both legs clear; nil when none is.
func (p *planner) path(start, goal []float64) [][]float64 {
	if p.clear(start, goal) {
		return [][]float64{start, goal}
	}
	up := make([]float64, len(start))
	for i := range up {
		up[i] = p.clamp(i, 0)
	}
	up[0] = (start[0] + goal[0]) / 2
	for k := range viaPoints {
		via := up
		if k > 0 {
			via = p.random()
		}
		if !p.collides(via) && p.clear(start, via) && p.clear(via, goal) {
			return [][]float64{start, via, goal}
		}
	}
	return nil
}

func (p *planner) clamp(i int, v float64) float64 {
	j := p.joints[i]
	if j.Continuous() {
		return v
	}
	return math.Max(j.Lower, math.Min(j.Upper, v))
}

func (p *planner) random() []float64 {
	q := make([]float64, len(p.joints))
	for i, j := range p.joints {
		lo, hi := j.Lower, j.Upper
		if j.Continuous() {
			lo, hi = p.start[i]-math.Pi, p.start[i]+math.Pi
		}
		q[i] = lo + p.rng.Float64()*(hi-lo)
	}
	return q
}

// timed samples the path's legs, each a cubic from rest to rest whose
// peak joint speed (1.5 × the mean) stays within the scaled limits; false
// when that would take longer than maxMotion.
func (p *planner) timed(path [][]float64) (Trajectory, bool) {
	tr := Trajectory{JointNames: make([]string, len(p.joints))}
	for i, j := range p.joints {
		tr.JointNames[i] = j.Name
	}
	n := len(p.joints)
	tr.Points = append(tr.Points, TrajectoryPoint{Positions: append([]float64(nil), path[0]...),
		Velocities: make([]float64, n), Accelerations: make([]float64, n)})
	t0 := 0.0
	for leg := 1; leg < len(path); leg++ {
		a, b := path[leg-1], path[leg]
		T := minSegment
		for i, j := range p.joints {
			if v := j.Velocity * p.scale; v > 0 {
				T = math.Max(T, 1.5*math.Abs(b[i]-a[i])/v)
			}
		}
		if t0+T > maxMotion.Seconds() {
			return Trajectory{}, false
		}
		// Cubic splines through these samples are the cubic itself, so a
		// long leg may take fewer than one per sampleEvery.
		steps := int(min(math.Ceil(T/sampleEvery), maxSamples))
		for k := 1; k <= steps; k++ {
			tau := float64(k) / float64(steps)
			s, ds, dds := 3*tau*tau-2*tau*tau*tau, 6*tau*(1-tau)/T, (6-12*tau)/(T*T)
			pt := TrajectoryPoint{Positions: make([]float64, n), Velocities: make([]float64, n), Accelerations: make([]float64, n),
				TimeFromStart: time.Duration((t0 + tau*T) * float64(time.Second))}
			for i := range n {
				d := b[i] - a[i]
				pt.Positions[i], pt.Velocities[i], pt.Accelerations[i] = a[i]+s*d, ds*d, dds*d
			}
			if k == steps {
				copy(pt.Positions, b) // exactly the goal, and at rest
				clear(pt.Velocities)
			}
			tr.Points = append(tr.Points, pt)
		}
		t0 += T
	}
	return tr, true
}
