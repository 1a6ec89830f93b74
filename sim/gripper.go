package sim

import (
	"math"
	"time"
)

type gripHandle = goalHandle[GripperGoal, GripperResult, GripperFeedback]

// GripperConfig is the one-finger gripper's joint and behaviour, after
// ros_control's gripper_action_controller.
type GripperConfig struct {
	Joint   Joint
	Initial float64
	Speed   float64 // m/s the finger moves at
	// GoalTolerance is how close the finger must get to succeed.
	GoalTolerance float64
	// StallTimeout: a finger that has not moved for this long short of its
	// goal has stalled and the goal ends ABORTED with stalled=true.
	StallTimeout   time.Duration
	FeedbackPeriod time.Duration
}

type gripper struct {
	cfg    GripperConfig
	faults *GripperFaults

	pos, vel, effort float64

	active       *gripHandle
	target       float64
	maxEffort    float64
	lastMove     time.Time
	nextFeedback time.Time
}

func newGripper(cfg GripperConfig, faults *GripperFaults) *gripper {
	if cfg.FeedbackPeriod <= 0 {
		cfg.FeedbackPeriod = 50 * time.Millisecond
	}
	return &gripper{cfg: cfg, faults: faults, pos: cfg.Joint.clampPos(cfg.Initial)}
}

// goal accepts every command, preempting the one in progress; a target out
// of the joint's range is pursued up to the limit, where the finger stalls.
func (g *gripper) goal(now time.Time, h *gripHandle) {
	cmd := h.Goal()
	if !finite(cmd.Position) || !finite(cmd.MaxEffort) {
		_ = h.reject(now, g.result(false, false), "position and max_effort must be finite")
		return
	}
	if g.active != nil {
		_ = g.active.canceled(now, g.result(false, false), "preempted by a new goal")
	}
	if err := h.accept(now, ""); err != nil {
		g.active = nil
		return
	}
	g.active, g.target, g.maxEffort = h, cmd.Position, cmd.MaxEffort
	g.lastMove, g.nextFeedback = now, now
}

func (g *gripper) cancel(now time.Time, h *gripHandle) {
	if h.Same(g.active) {
		g.active = nil
	}
	_ = h.canceled(now, g.result(false, false), "canceled")
}

func (g *gripper) result(stalled, reached bool) GripperResult {
	return GripperResult{Position: g.pos, Effort: g.effort, Stalled: stalled, ReachedGoal: reached}
}

// step moves the finger toward the target at the configured speed.
func (g *gripper) step(now time.Time, dt time.Duration) {
	g.vel = 0
	if g.active == nil {
		g.effort = 0
		return
	}
	goal := g.cfg.Joint.clampPos(g.target)
	if !g.faults.Stall {
		d := goal - g.pos
		maxStep := g.cfg.Speed * dt.Seconds()
		if math.Abs(d) > maxStep {
			d = math.Copysign(maxStep, d)
		}
		if d != 0 {
			g.pos += d
			g.vel = d / dt.Seconds()
			g.lastMove = now
		}
	}
	g.effort = 0
	if g.vel == 0 && math.Abs(g.target-g.pos) > g.cfg.GoalTolerance {
		// Pushing against an object or a joint stop.
		g.effort = g.effortLimit()
	}
	switch {
	case math.Abs(g.target-g.pos) <= g.cfg.GoalTolerance:
		_ = g.active.succeed(now, g.result(false, true), "")
		g.active = nil
	case now.Sub(g.lastMove) >= g.cfg.StallTimeout:
		_ = g.active.abort(now, g.result(true, false), "gripper stalled")
		g.active = nil
	case !now.Before(g.nextFeedback):
		g.nextFeedback = now.Add(g.cfg.FeedbackPeriod)
		r := g.result(false, false)
		g.active.feedback(now, GripperFeedback(r))
	}
}

// effortLimit is the commanded max_effort, or the joint's limit when the
// command leaves it at 0 or asks for more.
func (g *gripper) effortLimit() float64 {
	lim := g.cfg.Joint.Effort
	if e := math.Abs(g.maxEffort); e > 0 && (lim <= 0 || e < lim) {
		return e
	}
	return lim
}
