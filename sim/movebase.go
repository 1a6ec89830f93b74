package sim

import (
	"fmt"
	"math"
	"time"
)

// A navigation goal is the target pose; its feedback the base's pose.
type navHandle = goalHandle[PoseStamped, NavigateResult, NavigateFeedback]

// OdomFrame is the frame of /odom, the parent of BaseFrame.
const OdomFrame = "odom"

// KnownFrame reports whether the sim's navigation takes a goal in frame:
// MapFrame, or the odom frame (also named "/odom" or left empty).
func KnownFrame(frame string) bool {
	return frame == MapFrame || frame == "/"+MapFrame || isOdomFrame(frame)
}

func isOdomFrame(frame string) bool {
	return frame == "" || frame == OdomFrame || frame == "/"+OdomFrame
}

// MoveBaseConfig is when a move_base goal counts as reached.
type MoveBaseConfig struct {
	XYTolerance    float64 // m
	YawTolerance   float64 // rad
	FeedbackPeriod time.Duration
}

// moveBase drives the base to a goal pose: turn toward it, drive, turn to
// the goal's yaw. It is a stand-in for the navigation stack on an empty floor.
type moveBase struct {
	cfg    MoveBaseConfig
	faults *MoveBaseFaults
	base   *base
	// drift is map→odom now: a goal in the odom frame is put in the map
	// frame when it arrives, as move_base and Nav2 transform a goal to
	// their global frame once.
	drift func() Pose2D

	active       *navHandle
	target       Pose2D // in the map frame
	odomGoal     bool   // the goal, and so its feedback, is in the odom frame
	xyReached    bool
	started      time.Time
	nextFeedback time.Time
}

func newMoveBase(cfg MoveBaseConfig, faults *MoveBaseFaults, b *base, drift func() Pose2D) *moveBase {
	if cfg.FeedbackPeriod <= 0 {
		cfg.FeedbackPeriod = 50 * time.Millisecond
	}
	return &moveBase{cfg: cfg, faults: faults, base: b, drift: drift}
}

// goal accepts every goal (preempting the current one, as move_base's
// SimpleActionServer does) and aborts those it cannot pursue.
func (m *moveBase) goal(now time.Time, h *navHandle) {
	if m.active != nil {
		_ = m.active.canceled(now, NavigateResult{}, "preempted by a new goal")
		m.active = nil
	}
	if err := h.accept(now, ""); err != nil {
		return
	}
	g := h.Goal()
	p, o := g.Pose.Position, g.Pose.Orientation
	yaw, ok := yawFromQuaternion(o.X, o.Y, o.Z, o.W)
	switch {
	case !KnownFrame(g.Frame):
		_ = h.abort(now, NavigateResult{}, fmt.Sprintf("unknown frame %q: goals must be in %q or %q", g.Frame, MapFrame, OdomFrame))
		return
	case !ok:
		_ = h.abort(now, NavigateResult{}, "Aborting on goal because it was sent with an invalid quaternion")
		return
	case !finite(p.X) || !finite(p.Y):
		_ = h.abort(now, NavigateResult{}, "goal position is not finite")
		return
	}
	m.active, m.target, m.xyReached = h, Pose2D{X: p.X, Y: p.Y, Yaw: yaw}, false
	if m.odomGoal = isOdomFrame(g.Frame); m.odomGoal {
		m.target = compose2D(m.drift(), m.target)
	}
	m.started, m.nextFeedback = now, now
}

func (m *moveBase) cancel(now time.Time, h *navHandle) {
	if h.Same(m.active) {
		m.active = nil
	}
	_ = h.canceled(now, NavigateResult{}, "canceled")
}

// step sets the base's command for this step; call it before base.step.
func (m *moveBase) step(now time.Time) {
	if m.active == nil {
		return
	}
	if f := m.faults.AbortAfter; f > 0 && now.Sub(m.started) >= f {
		_ = m.active.abort(now, NavigateResult{}, fmt.Sprintf("simrobot fault: aborted after %s", f))
		m.active = nil
		return
	}
	pose := m.base.pose
	dx, dy := m.target.X-pose.X, m.target.Y-pose.Y
	dist := math.Hypot(dx, dy)
	// Aim for half the tolerance so the result is well inside it; once
	// reached, the position is latched, like latch_xy_goal_tolerance.
	if dist <= m.cfg.XYTolerance/2 {
		m.xyReached = true
	}
	cmd := Twist2D{}
	if !m.xyReached {
		e := wrapAngle(math.Atan2(dy, dx) - pose.Yaw)
		cmd.Angular = 2.5 * e
		if math.Abs(e) < 0.2 {
			cmd.Linear = math.Max(dist, 0.05) * math.Cos(e)
		}
	} else {
		e := wrapAngle(m.target.Yaw - pose.Yaw)
		if math.Abs(e) <= m.cfg.YawTolerance/2 {
			m.base.drive(Twist2D{})
			_ = m.active.succeed(now, NavigateResult{}, "Goal reached.")
			m.active = nil
			return
		}
		cmd.Angular = math.Copysign(math.Max(2.5*math.Abs(e), 0.1), e)
	}
	m.base.drive(cmd)
	if !now.Before(m.nextFeedback) {
		m.nextFeedback = now.Add(m.cfg.FeedbackPeriod)
		frame := MapFrame
		if m.odomGoal {
			frame, pose = OdomFrame, compose2D(invert2D(m.drift()), pose)
		}
		m.active.feedback(now, poseStamped(now, frame, pose))
	}
}

func poseStamped(now time.Time, frame string, p Pose2D) PoseStamped {
	x, y, z, w := quaternionFromYaw(p.Yaw)
	return PoseStamped{Stamp: now, Frame: frame, Pose: Pose{
		Position:    Point3{X: p.X, Y: p.Y},
		Orientation: Quaternion{X: x, Y: y, Z: z, W: w},
	}}
}
