package sim

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/actbridge/actbridge/spline"
)

// FollowJointTrajectory result codes, numbered as control_msgs numbers them.
const (
	ErrorSuccessful            int32 = 0
	ErrorInvalidGoal           int32 = -1
	ErrorInvalidJoints         int32 = -2
	ErrorOldHeaderTimestamp    int32 = -3
	ErrorPathToleranceViolated int32 = -4
	ErrorGoalToleranceViolated int32 = -5
)

type trajHandle = goalHandle[TrajectoryGoal, TrajectoryResult, TrajectoryFeedback]

// ArmConfig is the trajectory controller's joints and default constraints,
// what joint_trajectory_controller reads from its constraints/ parameters.
type ArmConfig struct {
	Joints  []Joint
	Initial []float64 // start positions; zeros when nil
	// Default per-joint tolerances (rad); 0 means not checked. A goal's
	// tolerance overrides them when > 0 and disables them when < 0.
	PathTolerance float64
	GoalTolerance float64
	// GoalTime is how long after the trajectory's end the joints may take to
	// settle within the goal tolerance (constraints/goal_time).
	GoalTime       time.Duration
	FeedbackPeriod time.Duration
	// HoldOnAbort stops the arm when a goal aborts. ROS 1's
	// joint_trajectory_controller does not: after a tolerance abort it
	// keeps executing the trajectory, so clients must send a stop.
	HoldOnAbort bool
}

// arm is a ros_control joint_trajectory_controller driving simulated joints
// that follow the desired state exactly unless a fault adds lag or offset.
type arm struct {
	cfg    ArmConfig
	index  map[string]int
	wrap   []bool
	faults *ArmFaults

	desired []spline.State
	pos     []float64
	vel     []float64

	traj   *spline.Trajectory
	origin time.Time // when the trajectory's time_from_start is 0

	active       *trajHandle
	started      time.Time
	pathTol      []JointTolerance
	goalTol      []JointTolerance
	goalTime     time.Duration
	nextFeedback time.Time
}

func newArm(cfg ArmConfig, faults *ArmFaults) (*arm, error) {
	if len(cfg.Joints) == 0 {
		return nil, errors.New("sim: arm has no joints")
	}
	if cfg.Initial != nil && len(cfg.Initial) != len(cfg.Joints) {
		return nil, fmt.Errorf("sim: %d initial positions for %d arm joints", len(cfg.Initial), len(cfg.Joints))
	}
	if cfg.FeedbackPeriod <= 0 {
		cfg.FeedbackPeriod = 50 * time.Millisecond
	}
	n := len(cfg.Joints)
	a := &arm{cfg: cfg, index: map[string]int{}, wrap: make([]bool, n), faults: faults,
		desired: make([]spline.State, n), pos: make([]float64, n), vel: make([]float64, n)}
	for i, j := range cfg.Joints {
		a.index[j.Name] = i
		a.wrap[i] = j.Continuous()
		if cfg.Initial != nil {
			a.desired[i].Pos = j.clampPos(cfg.Initial[i])
		}
		a.pos[i] = a.desired[i].Pos
	}
	return a, nil
}

func (a *arm) names() []string {
	out := make([]string, len(a.cfg.Joints))
	for i, j := range a.cfg.Joints {
		out[i] = j.Name
	}
	return out
}

// goal is joint_trajectory_controller's goalCB: check joints, build the
// trajectory from the current desired state, preempt the active goal.
func (a *arm) goal(now time.Time, h *trajHandle) {
	g := h.Goal()
	reject := func(code int32, text string) {
		_ = h.reject(now, TrajectoryResult{ErrorCode: code, ErrorString: text}, text)
	}
	perm, err := a.mapJoints(g.Trajectory.JointNames)
	if err != nil {
		reject(ErrorInvalidJoints, err.Error())
		return
	}

	var traj *spline.Trajectory
	origin := now
	if len(g.Trajectory.Points) > 0 {
		var code int32
		traj, origin, code, err = a.buildTrajectory(now, g.Trajectory, perm)
		if err != nil {
			reject(code, err.Error())
			return
		}
	}

	a.preempt(now, "preempted by a new goal")
	if err := h.accept(now, ""); err != nil {
		return
	}
	a.active, a.started, a.nextFeedback = h, now, now
	a.pathTol, a.goalTol, a.goalTime = a.tolerances(g)
	if traj == nil {
		// An empty trajectory stops the arm where it is; the goal then
		// succeeds once the joints are within the goal tolerance.
		a.holdAtActual()
		a.origin = now
		return
	}
	a.traj, a.origin = traj, origin
}

// mapJoints returns, for each goal joint, its controller index. Like JTC
// without allow_partial_joints_goal, the goal must name every joint once.
func (a *arm) mapJoints(names []string) ([]int, error) {
	perm := make([]int, len(names))
	seen := make([]bool, len(a.cfg.Joints))
	for k, n := range names {
		i, ok := a.index[n]
		if !ok {
			return nil, fmt.Errorf("joints on incoming goal don't match the controller joints: unknown joint %q", n)
		}
		if seen[i] {
			return nil, fmt.Errorf("joints on incoming goal don't match the controller joints: joint %q twice", n)
		}
		seen[i], perm[k] = true, i
	}
	if len(names) != len(a.cfg.Joints) {
		var missing []string
		for i, s := range seen {
			if !s {
				missing = append(missing, a.cfg.Joints[i].Name)
			}
		}
		return nil, fmt.Errorf("joints on incoming goal don't match the controller joints: missing %v", missing)
	}
	return perm, nil
}

// buildTrajectory starts at the header stamp (now when zero). Points whose
// time has already passed are dropped, as JTC does; if none is left the
// goal is OLD_HEADER_TIMESTAMP.
func (a *arm) buildTrajectory(now time.Time, jt Trajectory, perm []int) (*spline.Trajectory, time.Time, int32, error) {
	origin := now
	if !jt.Stamp.IsZero() {
		origin = jt.Stamp
	}
	skip := 0.0 // seconds of the trajectory already in the past
	if origin.Before(now) {
		skip = now.Sub(origin).Seconds()
	}
	n := len(a.cfg.Joints)
	var points []spline.Point
	for k, p := range jt.Points {
		t := p.TimeFromStart.Seconds()
		if t <= skip {
			continue
		}
		sp := spline.Point{Time: t - skip, Positions: make([]float64, n)}
		if len(p.Positions) != len(perm) {
			return nil, now, ErrorInvalidGoal, fmt.Errorf("points[%d] has %d positions for %d joints", k, len(p.Positions), len(perm))
		}
		for gi, ci := range perm {
			sp.Positions[ci] = p.Positions[gi]
		}
		var err error
		if sp.Velocities, err = permute(p.Velocities, perm, n); err != nil {
			return nil, now, ErrorInvalidGoal, fmt.Errorf("points[%d].velocities: %w", k, err)
		}
		if sp.Accelerations, err = permute(p.Accelerations, perm, n); err != nil {
			return nil, now, ErrorInvalidGoal, fmt.Errorf("points[%d].accelerations: %w", k, err)
		}
		points = append(points, sp)
	}
	if len(points) == 0 {
		if skip > 0 {
			return nil, now, ErrorOldHeaderTimestamp, errors.New("every trajectory point is in the past")
		}
		return nil, now, ErrorInvalidGoal, errors.New("no trajectory point has time_from_start > 0")
	}
	start := a.desiredAt(now)
	traj, err := spline.NewWraparound(start, points, a.wrap)
	if err != nil {
		return nil, now, ErrorInvalidGoal, err
	}
	if origin.Before(now) {
		origin = now
	}
	return traj, origin, ErrorSuccessful, nil
}

func permute(xs []float64, perm []int, n int) ([]float64, error) {
	if len(xs) == 0 {
		return nil, nil
	}
	if len(xs) != len(perm) {
		return nil, fmt.Errorf("%d values for %d joints", len(xs), len(perm))
	}
	out := make([]float64, n)
	for gi, ci := range perm {
		out[ci] = xs[gi]
	}
	return out, nil
}

// desiredAt is the desired state the next trajectory starts from.
func (a *arm) desiredAt(now time.Time) []spline.State {
	out := make([]spline.State, len(a.desired))
	if a.traj != nil {
		a.traj.At(now.Sub(a.origin).Seconds(), out)
		return out
	}
	copy(out, a.desired)
	return out
}

// tolerances resolves the goal's tolerances against the defaults: > 0
// overrides, 0 keeps the default, < 0 disables the check.
func (a *arm) tolerances(g TrajectoryGoal) (path, goal []JointTolerance, goalTime time.Duration) {
	n := len(a.cfg.Joints)
	path, goal = make([]JointTolerance, n), make([]JointTolerance, n)
	for i, j := range a.cfg.Joints {
		path[i] = JointTolerance{Name: j.Name, Position: a.cfg.PathTolerance}
		goal[i] = JointTolerance{Name: j.Name, Position: a.cfg.GoalTolerance}
	}
	apply := func(dst []JointTolerance, src []JointTolerance) {
		for _, t := range src {
			i, ok := a.index[t.Name]
			if !ok {
				continue // JTC ignores tolerances of joints it does not own
			}
			dst[i].Position = override(dst[i].Position, t.Position)
			dst[i].Velocity = override(dst[i].Velocity, t.Velocity)
			dst[i].Acceleration = override(dst[i].Acceleration, t.Acceleration)
		}
	}
	apply(path, g.PathTolerance)
	apply(goal, g.GoalTolerance)
	goalTime = a.cfg.GoalTime
	if g.GoalTimeTolerance > 0 {
		goalTime = g.GoalTimeTolerance
	}
	return path, goal, goalTime
}

func override(def, v float64) float64 {
	switch {
	case v > 0:
		return v
	case v < 0:
		return 0
	}
	return def
}

// preempt ends the active goal as PREEMPTED without stopping the arm: the
// next trajectory starts from the current desired state.
func (a *arm) preempt(now time.Time, text string) {
	if a.active == nil {
		return
	}
	_ = a.active.canceled(now, TrajectoryResult{}, text)
	a.active = nil
}

// cancel is JTC's cancelCB: hold position, end the goal PREEMPTED (or
// RECALLED if it never started).
func (a *arm) cancel(now time.Time, h *trajHandle) {
	if h.Same(a.active) {
		a.holdAtActual()
		a.active = nil
	}
	_ = h.canceled(now, TrajectoryResult{}, "canceled")
}

// holdAtActual stops the arm where it is, like JTC's setHoldPosition.
func (a *arm) holdAtActual() {
	off := a.faults.TrackingOffset
	for i, j := range a.cfg.Joints {
		a.desired[i] = spline.State{Pos: j.clampPos(a.pos[i] - off)}
	}
	a.traj = nil
}

func (a *arm) finish(now time.Time, ok bool, code int32, text string) {
	r := TrajectoryResult{ErrorCode: code, ErrorString: text}
	if ok {
		_ = a.active.succeed(now, r, text)
	} else {
		_ = a.active.abort(now, r, text)
		if a.cfg.HoldOnAbort {
			a.holdAtActual()
		}
	}
	a.active = nil
}

// step advances the joints by dt and checks the active goal's tolerances.
func (a *arm) step(now time.Time, dt time.Duration) {
	t := now.Sub(a.origin).Seconds()
	if a.traj != nil {
		a.traj.At(t, a.desired)
	}
	k := 1.0
	if a.faults.Lag > 0 {
		k = math.Min(1, dt.Seconds()/a.faults.Lag.Seconds())
	}
	for i, j := range a.cfg.Joints {
		target := a.desired[i].Pos + a.faults.TrackingOffset
		p := j.clampPos(a.pos[i] + (target-a.pos[i])*k)
		a.vel[i] = (p - a.pos[i]) / dt.Seconds()
		a.pos[i] = p
	}
	if a.active == nil {
		return
	}
	a.checkGoal(now, t)
}

func (a *arm) checkGoal(now time.Time, t float64) {
	if f := a.faults.AbortAfter; f > 0 && now.Sub(a.started) >= f {
		a.finish(now, false, a.faults.AbortErrorCode, fmt.Sprintf("simrobot fault: aborted after %s", f))
		return
	}
	end := a.traj.Duration() // 0 for an empty trajectory
	if t <= end {
		for i, tol := range a.pathTol {
			if e := a.pos[i] - a.desired[i].Pos; tol.Position > 0 && math.Abs(e) > tol.Position {
				a.finish(now, false, ErrorPathToleranceViolated,
					fmt.Sprintf("path tolerance violated: %s error %.4f > %.4f", tol.Name, e, tol.Position))
				return
			}
			if e := a.vel[i] - a.desired[i].Vel; tol.Velocity > 0 && math.Abs(e) > tol.Velocity {
				a.finish(now, false, ErrorPathToleranceViolated,
					fmt.Sprintf("path tolerance violated: %s velocity error %.4f > %.4f", tol.Name, e, tol.Velocity))
				return
			}
		}
		a.feedback(now)
		return
	}
	inside, worst := true, ""
	for i, tol := range a.goalTol {
		e := a.pos[i] - a.desired[i].Pos
		if tol.Position > 0 && math.Abs(e) > tol.Position {
			inside, worst = false, fmt.Sprintf("%s error %.4f > %.4f", tol.Name, e, tol.Position)
			break
		}
		if tol.Velocity > 0 && math.Abs(a.vel[i]) > tol.Velocity {
			inside, worst = false, fmt.Sprintf("%s velocity %.4f > %.4f", tol.Name, a.vel[i], tol.Velocity)
			break
		}
	}
	switch {
	case inside:
		a.finish(now, true, ErrorSuccessful, "")
	case t > end+a.goalTime.Seconds():
		a.finish(now, false, ErrorGoalToleranceViolated, "goal tolerance violated: "+worst)
	default:
		a.feedback(now)
	}
}

func (a *arm) feedback(now time.Time) {
	if now.Before(a.nextFeedback) {
		return
	}
	a.nextFeedback = now.Add(a.cfg.FeedbackPeriod)
	a.active.feedback(now, a.state(now))
}

// state is the controller's state, as /arm_controller/state carries it.
func (a *arm) state(now time.Time) ControllerState {
	n := len(a.cfg.Joints)
	s := ControllerState{
		Stamp:      now,
		JointNames: a.names(),
		Desired: TrajectoryPoint{Positions: make([]float64, n), Velocities: make([]float64, n),
			Accelerations: make([]float64, n)},
		Actual: TrajectoryPoint{Positions: append([]float64(nil), a.pos...), Velocities: append([]float64(nil), a.vel...)},
		Error:  TrajectoryPoint{Positions: make([]float64, n), Velocities: make([]float64, n)},
	}
	for i, d := range a.desired {
		s.Desired.Positions[i], s.Desired.Velocities[i], s.Desired.Accelerations[i] = d.Pos, d.Vel, d.Acc
		s.Error.Positions[i], s.Error.Velocities[i] = d.Pos-a.pos[i], d.Vel-a.vel[i]
	}
	return s
}
