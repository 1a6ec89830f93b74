package sim

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"
)

// Action short names, used by the goal log, the fault parameters and the
// action messages.
const (
	Arm      = "arm"
	Arm2     = "arm2"
	Gripper  = "gripper"
	MoveBase = "move_base"
)

// Each action's namespace, as the goal log's "ns" names it: the ROS 1
// names, which the goal log keeps whichever face serves the robot.
const (
	ArmAction      = "/arm_controller/follow_joint_trajectory"
	Arm2Action     = "/arm2_controller/follow_joint_trajectory"
	GripperAction  = "/gripper_controller/gripper_cmd"
	MoveBaseAction = "/move_base"
)

// BaseFrame is the base's frame, the child of OdomFrame.
const BaseFrame = "base_footprint"

// Arm2JointPrefix starts the second arm's joint names (Config.SecondArm),
// as one URDF names two arms.
const Arm2JointPrefix = "arm2_"

// Config is the robot's shape, rates and behaviour. Start from
// DefaultConfig; New checks but does not fill in fields.
type Config struct {
	URDF         string // robot description; movable joints other than GripperJoint form the arm
	GripperJoint string
	// SecondArm serves the URDF's Arm2JointPrefix joints as a second arm
	// behind Arm2Action (DualArmURDF has them); off, they join the first.
	// Faults are injected into the first arm only.
	SecondArm  bool
	ArmInitial []float64 // arm start positions, in URDF joint order (both arms); zeros when nil
	// GripperInitial is the finger's start position; fully open when nil.
	GripperInitial *float64
	// BaseInitial is the base's start pose in the map frame (and the odom
	// frame, which starts on it).
	BaseInitial Pose2D
	// OdomDrift is how fast odometry drifts from the truth, per simulated
	// second: map→odom grows by it (X, Y in m/s, Yaw in rad/s, in the map
	// frame) and /odom and odom→base_footprint carry the drifted pose,
	// as a localisation's map→odom compensates a real odometry's error.
	// Zero: perfect odometry, odom on map.
	OdomDrift Pose2D

	Step      time.Duration // fixed physics step of simulated time
	TimeScale float64       // simulated seconds per wall second when running
	// MaxLag is how far simulated time may fall behind before missed time
	// is dropped rather than replayed.
	MaxLag time.Duration
	Epoch  time.Time // simulated time at start; time.Now() when zero

	JointStatesHz float64
	OdomHz        float64
	ArmStateHz    float64
	StatusHz      float64
	// TFHz is the /tf rate: map→odom, odom→base_footprint and the moving
	// joints' links (the fixed ones are StaticTransforms, once).
	TFHz float64
	// StatusListTimeout keeps finished goals in the status list.
	StatusListTimeout time.Duration

	PathTolerance float64       // default per-joint path tolerance (rad)
	GoalTolerance float64       // default per-joint goal tolerance (rad)
	GoalTime      time.Duration // default goal_time_tolerance
	// HoldOnAbort stops the arm when a goal aborts; off, the trajectory
	// runs on after the abort as in ROS 1's joint_trajectory_controller.
	HoldOnAbort bool

	GripperSpeed         float64 // m/s
	GripperGoalTolerance float64 // m
	GripperStallTimeout  time.Duration

	Base     BaseConfig
	MoveBase MoveBaseConfig

	// Table is a box in the world (the map frame) that the links'
	// collision shapes are checked against at every step; contacts go to
	// the collision log. Nil: an empty world.
	Table *Box

	// Wall is the clock the goal log stamps arrivals with; time.Now when nil.
	Wall func() time.Time
}

// DefaultConfig is the robot launch/sim.launch starts.
func DefaultConfig() Config {
	return Config{
		URDF:                 DefaultURDF,
		GripperJoint:         "gripper_finger_joint",
		Step:                 time.Millisecond,
		TimeScale:            1,
		MaxLag:               100 * time.Millisecond,
		JointStatesHz:        100,
		OdomHz:               50,
		ArmStateHz:           50,
		TFHz:                 50,
		StatusHz:             10,
		StatusListTimeout:    5 * time.Second,
		PathTolerance:        0.2,
		GoalTolerance:        0.02,
		GoalTime:             500 * time.Millisecond,
		GripperSpeed:         0.05,
		GripperGoalTolerance: 0.002,
		GripperStallTimeout:  500 * time.Millisecond,
		Base:                 BaseConfig{MaxLinear: 0.5, MaxAngular: 1.0, CmdTimeout: 500 * time.Millisecond},
		MoveBase:             MoveBaseConfig{XYTolerance: 0.05, YawTolerance: 0.05},
	}
}

// ErrConfig is returned by New for a configuration it cannot run.
var ErrConfig = errors.New("sim: bad config")

// maxQueued bounds messages kept for a caller that never drains them.
const maxQueued = 50000

// Robot is the simulated robot. It is safe for concurrent use: ROS
// callbacks, the Run loop and tests all go through its lock.
type Robot struct {
	mu    sync.Mutex
	cfg   Config
	clock *Clock
	wall  func() time.Time

	joints  []Joint // arm joints, the second arm's, then the gripper joint
	arm     *arm
	arm2    *arm // nil without Config.SecondArm
	gripper *gripper
	base    *base
	nav     *moveBase
	faults  Faults

	armSrv  *actionServer[TrajectoryGoal, TrajectoryResult, TrajectoryFeedback]
	arm2Srv *actionServer[TrajectoryGoal, TrajectoryResult, TrajectoryFeedback] // nil without a second arm
	// arm2Faults stay zero: fault injection targets the first arm.
	arm2Faults ArmFaults
	gripSrv    *actionServer[GripperGoal, GripperResult, GripperFeedback]
	navSrv     *actionServer[PoseStamped, NavigateResult, NavigateFeedback]
	logs       map[string]*actionLog
	model      *worldModel        // the URDF's tree, for the frame tree and the collision check
	collisions *collisionTracker  // nil without a table
	q          map[string]float64 // joint positions for the collision check, reused

	nextJS, nextOdom, nextArmState, nextArm2State, nextTF time.Time
	jsSeq, odomSeq                                        uint32
	queued                                                []Message
}

// New builds a robot at rest at its initial positions.
func New(cfg Config) (*Robot, error) {
	switch {
	case cfg.Step <= 0:
		return nil, fmt.Errorf("%w: Step must be > 0", ErrConfig)
	case !(cfg.TimeScale > 0) || math.IsInf(cfg.TimeScale, 0):
		return nil, fmt.Errorf("%w: TimeScale must be > 0, got %g", ErrConfig, cfg.TimeScale)
	case !(cfg.JointStatesHz > 0) || !(cfg.OdomHz > 0) || !(cfg.ArmStateHz > 0) || !(cfg.StatusHz > 0) || !(cfg.TFHz > 0):
		return nil, fmt.Errorf("%w: publish rates must be > 0", ErrConfig)
	case !finite(cfg.BaseInitial.X) || !finite(cfg.BaseInitial.Y) || !finite(cfg.BaseInitial.Yaw):
		return nil, fmt.Errorf("%w: BaseInitial must be finite", ErrConfig)
	case !finite(cfg.OdomDrift.X) || !finite(cfg.OdomDrift.Y) || !finite(cfg.OdomDrift.Yaw):
		return nil, fmt.Errorf("%w: OdomDrift must be finite", ErrConfig)
	case cfg.Table != nil && !cfg.Table.valid():
		return nil, fmt.Errorf("%w: Table must be finite with Min <= Max, got %v", ErrConfig, *cfg.Table)
	}
	joints, err := ParseJoints(cfg.URDF)
	if err != nil {
		return nil, err
	}
	// ArmInitial follows the URDF's non-gripper joints; each arm takes its own.
	var armJoints, arm2Joints []Joint
	var initial, initial2 []float64
	var grip *Joint
	k := 0
	for _, j := range joints {
		if j.Name == cfg.GripperJoint {
			grip = &j
			continue
		}
		dst, init := &armJoints, &initial
		if cfg.SecondArm && strings.HasPrefix(j.Name, Arm2JointPrefix) {
			dst, init = &arm2Joints, &initial2
		}
		*dst = append(*dst, j)
		if k < len(cfg.ArmInitial) {
			*init = append(*init, cfg.ArmInitial[k])
		}
		k++
	}
	if grip == nil {
		return nil, fmt.Errorf("%w: gripper joint %q not in the URDF", ErrConfig, cfg.GripperJoint)
	}
	if cfg.SecondArm && len(arm2Joints) == 0 {
		return nil, fmt.Errorf("%w: a second arm needs %s* joints in the URDF (DualArmURDF has them)", ErrConfig, Arm2JointPrefix)
	}
	if cfg.ArmInitial != nil && len(cfg.ArmInitial) != k {
		return nil, fmt.Errorf("%w: %d initial arm positions for %d arm joints", ErrConfig, len(cfg.ArmInitial), k)
	}
	if cfg.Epoch.IsZero() {
		cfg.Epoch = time.Now()
	}
	r := &Robot{cfg: cfg, clock: NewClock(cfg.Epoch, cfg.Step), wall: cfg.Wall, logs: map[string]*actionLog{}}
	if r.wall == nil {
		r.wall = time.Now
	}
	r.faults = Faults{Arm: ArmFaults{AbortErrorCode: ErrorPathToleranceViolated}}
	armCfg := func(joints []Joint, initial []float64) ArmConfig {
		return ArmConfig{Joints: joints, Initial: initial, PathTolerance: cfg.PathTolerance,
			GoalTolerance: cfg.GoalTolerance, GoalTime: cfg.GoalTime, HoldOnAbort: cfg.HoldOnAbort}
	}
	r.arm, err = newArm(armCfg(armJoints, initial), &r.faults.Arm)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrConfig, err)
	}
	if cfg.SecondArm {
		r.arm2Faults.AbortErrorCode = ErrorPathToleranceViolated
		if r.arm2, err = newArm(armCfg(arm2Joints, initial2), &r.arm2Faults); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrConfig, err)
		}
	}
	gripStart := grip.Upper
	if cfg.GripperInitial != nil {
		gripStart = grip.clampPos(*cfg.GripperInitial)
	}
	r.gripper = newGripper(GripperConfig{Joint: *grip, Initial: gripStart, Speed: cfg.GripperSpeed,
		GoalTolerance: cfg.GripperGoalTolerance, StallTimeout: cfg.GripperStallTimeout}, &r.faults.Gripper)
	r.base = newBase(cfg.Base)
	r.base.pose = Pose2D{X: cfg.BaseInitial.X, Y: cfg.BaseInitial.Y, Yaw: wrapAngle(cfg.BaseInitial.Yaw)}
	r.nav = newMoveBase(cfg.MoveBase, &r.faults.MoveBase, r.base, r.driftLocked)
	r.joints = append(append(armJoints, arm2Joints...), *grip)

	statusPeriod := hz(cfg.StatusHz)
	for name, ns := range map[string]string{Arm: ArmAction, Gripper: GripperAction, MoveBase: MoveBaseAction} {
		r.logs[name] = newActionLog(ns)
	}
	srvCfg := func(name string) actionServerConfig {
		return actionServerConfig{Name: name, StatusListTimeout: cfg.StatusListTimeout, StatusPeriod: statusPeriod}
	}
	r.armSrv = newActionServer(srvCfg(Arm), armExec{r.arm}, r.logs[Arm])
	if r.arm2 != nil {
		r.logs[Arm2] = newActionLog(Arm2Action)
		r.arm2Srv = newActionServer(srvCfg(Arm2), armExec{r.arm2}, r.logs[Arm2])
	}
	r.gripSrv = newActionServer(srvCfg(Gripper), gripExec{r.gripper}, r.logs[Gripper])
	r.navSrv = newActionServer(srvCfg(MoveBase), navExec{r.nav}, r.logs[MoveBase])
	r.applyServerFaults()
	if r.model, err = newWorldModel(cfg.URDF); err != nil {
		return nil, err
	}
	r.q = map[string]float64{}
	if cfg.Table != nil {
		r.collisions = newCollisionTracker(r.model, *cfg.Table)
		r.collisions.step(r.clock.Now(), r.base.pose, r.positionsLocked())
	}
	return r, nil
}

// The executors adapt each controller to its action server.
type (
	armExec  struct{ a *arm }
	gripExec struct{ g *gripper }
	navExec  struct{ m *moveBase }
)

func (e armExec) goal(now time.Time, h *trajHandle)    { e.a.goal(now, h) }
func (e armExec) cancel(now time.Time, h *trajHandle)  { e.a.cancel(now, h) }
func (e gripExec) goal(now time.Time, h *gripHandle)   { e.g.goal(now, h) }
func (e gripExec) cancel(now time.Time, h *gripHandle) { e.g.cancel(now, h) }
func (e navExec) goal(now time.Time, h *navHandle)     { e.m.goal(now, h) }
func (e navExec) cancel(now time.Time, h *navHandle)   { e.m.cancel(now, h) }

func hz(f float64) time.Duration { return time.Duration(float64(time.Second) / f) }

// Config is the configuration the robot runs with.
func (r *Robot) Config() Config { return r.cfg }

// Now is the simulated time.
func (r *Robot) Now() time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.clock.Now()
}

// Joints lists the arm joints, then the gripper joint, as JointState does.
func (r *Robot) Joints() []Joint { return append([]Joint(nil), r.joints...) }

// ArmJoints lists the arm's joint names in controller order.
func (r *Robot) ArmJoints() []string { return r.arm.names() }

// Arm2Joints lists the second arm's joint names in controller order; nil
// without a second arm.
func (r *Robot) Arm2Joints() []string {
	if r.arm2 == nil {
		return nil
	}
	return r.arm2.names()
}

// Advance runs the physics for d of simulated time, in whole steps.
// Messages it produces queue up for Drain.
func (r *Robot) Advance(d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for n := int(d / r.cfg.Step); n > 0; n-- {
		r.stepLocked()
	}
}

// Drain returns and forgets the messages produced since the last Drain.
func (r *Robot) Drain() []Message {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.queued
	r.queued = nil
	return out
}

// Run steps the robot in simulated time paced by the wall clock (times
// TimeScale) until ctx ends, handing each batch of messages to publish
// outside the lock. publish may be nil.
func (r *Robot) Run(ctx context.Context, publish func([]Message)) error {
	wake := min(5*time.Millisecond, hz(r.cfg.JointStatesHz))
	wake = max(time.Duration(float64(wake)/r.cfg.TimeScale), 200*time.Microsecond)
	p := &pacer{scale: r.cfg.TimeScale, step: r.cfg.Step, maxLag: r.cfg.MaxLag}
	t := time.NewTicker(wake)
	defer t.Stop()
	for {
		r.mu.Lock()
		for n := p.due(time.Now(), r.clock.Elapsed()); n > 0; n-- {
			r.stepLocked()
		}
		out := r.queued
		r.queued = nil
		r.mu.Unlock()
		if publish != nil && len(out) > 0 {
			publish(out)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}

// stepLocked advances every part by one fixed step and queues what is due.
func (r *Robot) stepLocked() {
	r.clock.Tick()
	now, dt := r.clock.Now(), r.cfg.Step
	r.nav.step(now)
	r.base.step(now, dt)
	r.arm.step(now, dt)
	r.gripper.step(now, dt)

	r.queue(r.armSrv.drain(now)...)
	if r.arm2 != nil {
		r.arm2.step(now, dt)
		r.queue(r.arm2Srv.drain(now)...)
		if due(now, &r.nextArm2State, hz(r.cfg.ArmStateHz)) {
			r.queue(&ArmState{Arm: Arm2, ControllerState: r.arm2.state(now)})
		}
	}
	r.queue(r.gripSrv.drain(now)...)
	r.queue(r.navSrv.drain(now)...)
	if r.collisions != nil {
		r.collisions.step(now, r.base.pose, r.positionsLocked())
	}
	if due(now, &r.nextJS, hz(r.cfg.JointStatesHz)) && !r.faults.MuteJointStates {
		r.queue(r.jointStateLocked(now))
	}
	if due(now, &r.nextArmState, hz(r.cfg.ArmStateHz)) {
		r.queue(&ArmState{Arm: Arm, ControllerState: r.arm.state(now)})
	}
	if due(now, &r.nextOdom, hz(r.cfg.OdomHz)) {
		r.queue(r.odomLocked(now))
	}
	if due(now, &r.nextTF, hz(r.cfg.TFHz)) {
		r.queue(r.tfLocked(now))
	}
}

// due reports whether a periodic message is due and schedules the next one,
// skipping (not bursting) periods that were missed.
func due(now time.Time, next *time.Time, period time.Duration) bool {
	if now.Before(*next) {
		return false
	}
	*next = next.Add(period)
	if !next.After(now) {
		*next = now.Add(period)
	}
	return true
}

func (r *Robot) queue(ms ...Message) {
	r.queued = append(r.queued, ms...)
	if over := len(r.queued) - maxQueued; over > 0 {
		r.queued = append(r.queued[:0], r.queued[over:]...)
	}
}

func (r *Robot) jointStateLocked(now time.Time) *JointState {
	r.jsSeq++
	n := len(r.joints)
	js := &JointState{
		Seq:      r.jsSeq,
		Stamp:    now,
		Name:     make([]string, 0, n),
		Position: make([]float64, 0, n),
		Velocity: make([]float64, 0, n),
		Effort:   make([]float64, 0, n),
	}
	for _, a := range r.arms() {
		for i, j := range a.cfg.Joints {
			js.Name = append(js.Name, j.Name)
			js.Position = append(js.Position, a.pos[i])
			js.Velocity = append(js.Velocity, a.vel[i])
			js.Effort = append(js.Effort, 0)
		}
	}
	js.Name = append(js.Name, r.gripper.cfg.Joint.Name)
	js.Position = append(js.Position, r.gripper.pos)
	js.Velocity = append(js.Velocity, r.gripper.vel)
	js.Effort = append(js.Effort, r.gripper.effort)
	return js
}

func (r *Robot) odomLocked(now time.Time) *Odometry {
	r.odomSeq++
	return &Odometry{Seq: r.odomSeq, Stamp: now, Frame: OdomFrame, ChildFrame: BaseFrame,
		Pose: poseStamped(now, OdomFrame, r.odomPoseLocked()).Pose, Linear: r.base.vel.Linear, Angular: r.base.vel.Angular}
}

// arms are the first arm and the second, when there is one.
func (r *Robot) arms() []*arm {
	if r.arm2 == nil {
		return []*arm{r.arm}
	}
	return []*arm{r.arm, r.arm2}
}

// JointPositions is every joint's actual position by name.
func (r *Robot) JointPositions() map[string]float64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.fillPositions(map[string]float64{})
}

// positionsLocked fills the reused map r.q for the collision check.
func (r *Robot) positionsLocked() map[string]float64 { return r.fillPositions(r.q) }

func (r *Robot) fillPositions(out map[string]float64) map[string]float64 {
	for _, a := range r.arms() {
		for i, j := range a.cfg.Joints {
			out[j.Name] = a.pos[i]
		}
	}
	out[r.gripper.cfg.Joint.Name] = r.gripper.pos
	return out
}

// Collisions is every contact of the robot's links with the table so far.
func (r *Robot) Collisions() CollisionLog {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.collisions == nil {
		return CollisionLog{Touching: []string{}, Collisions: []Collision{}}
	}
	return r.collisions.snapshot()
}

// ArmPositions is the first arm's actual joint positions, in controller order.
func (r *Robot) ArmPositions() []float64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]float64(nil), r.arm.pos...)
}

// GripperState is the finger's position (m) and effort.
func (r *Robot) GripperState() (position, effort float64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.gripper.pos, r.gripper.effort
}

// BasePose is the base's pose in the odom frame, as its odometry has
// it (drifted from MapPose by Config.OdomDrift).
func (r *Robot) BasePose() Pose2D {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.odomPoseLocked()
}

// MapPose is the base's true pose, in the map frame.
func (r *Robot) MapPose() Pose2D {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.base.pose
}

// OdomInMap is map→odom now: the odometry's drift (Config.OdomDrift).
func (r *Robot) OdomInMap() Pose2D {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.driftLocked()
}

// LinkPose is link's true pose in the map frame from the sim's own
// forward kinematics: its position and rotation matrix (row-major).
func (r *Robot) LinkPose(link string) (pos [3]float64, rot [3][3]float64, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	t, ok := r.model.linkPoses(r.base.pose, r.positionsLocked())[link]
	return t.p, t.r, ok
}

// BaseVelocity is the base's current body velocity.
func (r *Robot) BaseVelocity() Twist2D {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.base.vel
}

// SetFaults replaces every fault at once; the zero Faults heals the robot.
// A zero Arm.AbortErrorCode means PATH_TOLERANCE_VIOLATED.
func (r *Robot) SetFaults(f Faults) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if f.Arm.AbortErrorCode == 0 {
		f.Arm.AbortErrorCode = ErrorPathToleranceViolated
	}
	// The controllers hold pointers into r.faults: copy, never reassign.
	r.faults = f
	r.applyServerFaults()
}

// Faults returns the faults in force.
func (r *Robot) Faults() Faults {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.faults
}

func (r *Robot) applyServerFaults() {
	r.armSrv.faults = r.faults.Arm.ActionFaults
	r.gripSrv.faults = r.faults.Gripper.ActionFaults
	r.navSrv.faults = r.faults.MoveBase.ActionFaults
}

// Goals is everything the action servers received, by action short name.
func (r *Robot) Goals() GoalLog {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := GoalLog{}
	for name, l := range r.logs {
		out[name] = l.snapshot()
	}
	return out
}

// GoalOutcome is where a goal stands on the server.
type GoalOutcome struct {
	Status uint8
	Text   string
	// Result is set in a terminal state: TrajectoryResult, GripperResult
	// or NavigateResult.
	Result any
}

// Goal is a goal's current state as the server holds it (the published
// state may lag under the delay fault). Goals leave the server's list
// StatusListTimeout after they end.
func (r *Robot) Goal(action, id string) (GoalOutcome, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch action {
	case Arm:
		return r.armSrv.outcome(id)
	case Arm2:
		if r.arm2Srv != nil {
			return r.arm2Srv.outcome(id)
		}
	case Gripper:
		return r.gripSrv.outcome(id)
	case MoveBase:
		return r.navSrv.outcome(id)
	}
	return GoalOutcome{}, false
}

// ArmGoal is a FollowJointTrajectory goal for the first arm.
func (r *Robot) ArmGoal(id GoalID, g TrajectoryGoal) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.armSrv.handleGoal(r.clock.Now(), r.wall(), id, g)
}

// Arm2Goal is a FollowJointTrajectory goal for the second arm; nothing
// happens without a second arm.
func (r *Robot) Arm2Goal(id GoalID, g TrajectoryGoal) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.arm2Srv != nil {
		r.arm2Srv.handleGoal(r.clock.Now(), r.wall(), id, g)
	}
}

// GripperGoal is a GripperCommand goal.
func (r *Robot) GripperGoal(id GoalID, g GripperGoal) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.gripSrv.handleGoal(r.clock.Now(), r.wall(), id, g)
}

// NavigateGoal is a goal for the base to reach target (move_base's
// target_pose, Nav2's pose).
func (r *Robot) NavigateGoal(id GoalID, target PoseStamped) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.navSrv.handleGoal(r.clock.Now(), r.wall(), id, target)
}

// DuplicateGoal logs a goal message whose id a face's own action server
// already holds (ROS 2's servers deduplicate before the goal reaches the
// robot), so the goal log counts it as the ROS 1 face's does; nothing runs.
func (r *Robot) DuplicateGoal(action string, id GoalID) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	l, ok := r.logs[action]
	if !ok {
		return fmt.Errorf("sim: unknown action %q", action)
	}
	rec := l.goal(id, r.clock.Now(), r.wall())
	rec.Duplicate = true
	l.a.Duplicates++
	return nil
}

// Cancel is a cancel request for an action's goals, with actionlib's
// rules (see package doc).
func (r *Robot) Cancel(action string, id GoalID) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	now, wall := r.clock.Now(), r.wall()
	switch action {
	case Arm:
		r.armSrv.handleCancel(now, wall, id)
	case Arm2:
		if r.arm2Srv == nil {
			return fmt.Errorf("sim: no second arm")
		}
		r.arm2Srv.handleCancel(now, wall, id)
	case Gripper:
		r.gripSrv.handleCancel(now, wall, id)
	case MoveBase:
		r.navSrv.handleCancel(now, wall, id)
	default:
		return fmt.Errorf("sim: unknown action %q", action)
	}
	return nil
}

// CmdVelStamped is a command whose timeout runs from its stamp, as ROS 2's
// diff_drive_controller does: a zero stamp means now, and a command
// already older than the timeout is dropped. It reports whether it was taken.
func (r *Robot) CmdVelStamped(stamp time.Time, linear, angular float64) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.clock.Now()
	if stamp.IsZero() {
		stamp = now
	}
	if now.Sub(stamp) > r.cfg.Base.CmdTimeout {
		return false
	}
	r.base.command(stamp, Twist2D{Linear: linear, Angular: angular})
	return true
}

// CmdVel is a velocity command taken now, as ROS 1's /cmd_vel is.
func (r *Robot) CmdVel(linear, angular float64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.base.command(r.clock.Now(), Twist2D{Linear: linear, Angular: angular})
}

// ResetOdometry puts the base back at the odom origin (the drifted one
// when odometry drifts), as a base driver's reset service does.
func (r *Robot) ResetOdometry() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.base.pose = r.driftLocked()
}
