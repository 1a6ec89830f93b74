package bridge

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/safety"
	"github.com/actbridge/actbridge/tf"
)

// RuleStaleState names the refusal of a preview or confirm whose joint
// states are older than their topic's freshness bound (actuators.Cadence)
// with no newer one within the wait: the robot stopped publishing. Code
// unavailable: retry unchanged once it publishes; the preview stands.
const RuleStaleState = "stale_state"

// freshJoints reads the robot's joint states by the freshness rule (the
// newest sample while it is younger than its topic's bound, else a wait
// for a newer one); a robot whose newest is older than StaleAfter even
// after that wait has stopped publishing and is refused (unavailable,
// rule stale_state). A wait that found nothing newer on a sample still
// within StaleAfter is no refusal: a loaded host can delay one batch.
func freshJoints(ctx context.Context, robot actuators.Robot, now func() time.Time, staleAfter time.Duration) (map[string]actuators.JointReading, *Error) {
	snap := robot.FreshJoints(ctx)
	if snap.Received.IsZero() {
		return nil, StateError(CodeUnavailable, "no /joint_states received", "when the robot publishes joint states", "cannot preview without the robot's current state")
	}
	if age := now().Sub(snap.Received); age > staleAfter { // after the wait
		e := StateError(CodeUnavailable, fmt.Sprintf("joint states are %.3f s old and no newer one came", age.Seconds()),
			"when the robot publishes /joint_states again (is its joint_state_broadcaster running?)", "cannot act on stale robot state; nothing was sent")
		e.Rule = RuleStaleState
		return nil, e
	}
	m := make(map[string]actuators.JointReading, len(snap.Joints))
	for _, j := range snap.Joints {
		m[j.Name] = j
	}
	return m, nil
}

// restateLink reads a map-fenced base's odom→fence link again: the
// preview placed the fence with the link it read then, and a localisation
// that jumped since has moved the fence under the goal.
func (m *Motions) restateLink(actuator string, g *previewGoal) (string, *Error) {
	lx, fenced := g.Start["link_x"]
	if !fenced {
		return "", nil
	}
	var b *BaseModel
	for _, x := range m.Bases {
		if x.Name == actuator {
			b = x
		}
	}
	if b == nil {
		return "the base's geofence frame is no longer read", nil
	}
	f, err := b.frames(m.Now)
	switch {
	case err != nil:
		return "", err
	case f.link == nil:
		return "the base's fence is now in its odometry's frame", nil
	}
	// Where the motion's ends are in the fence now, not where odom's
	// origin is: a turn about an origin metres away moves them by the
	// turn times that distance.
	then := safety.FrameLink{X: lx, Y: g.Start["link_y"], Yaw: g.Start["link_yaw"]}
	ends := []safety.Pose2D{{X: g.Start["x"], Y: g.Start["y"]}}
	if ex, ok := g.Start["end_x"]; ok {
		ends = append(ends, safety.Pose2D{X: ex, Y: g.Start["end_y"]})
	}
	for _, p := range ends {
		a, b := f.link.Apply(p), then.Apply(p)
		if d := math.Hypot(a.X-b.X, a.Y-b.Y); d > m.PoseTolerance {
			return fmt.Sprintf("localisation moved the motion %.3f m in %s since the preview (%s→%s; tolerance %.3f)", d, f.fence, f.odom, f.fence, m.PoseTolerance), nil
		}
	}
	if d := math.Abs(math.Remainder(f.link.Yaw-g.Start["link_yaw"], 2*math.Pi)); d > m.PoseTolerance {
		return fmt.Sprintf("localisation turned %s→%s by %.3f rad since the preview (tolerance %.3f)", f.odom, f.fence, d, m.PoseTolerance), nil
	}
	return "", nil
}

// FrameTolerance is how far (m, and rad) an arm pose given in another
// frame may have moved in the arm's base link between preview and
// confirm, as that frame moved: the joint path was solved for where the
// pose was, and the tool would miss it by as much.
const FrameTolerance = 0.02

// restateArmFrame reads again the frame an arm pose was given in (a
// mobile base's map, a camera on a moving link): a frame that moved past
// FrameTolerance since the preview makes it stale.
func (m *Motions) restateArmFrame(actuator string, l *frameLink) (string, *Error) {
	if l == nil {
		return "", nil
	}
	var arm *ArmModel
	for _, a := range m.Arms {
		if a.Name == actuator {
			arm = a
		}
	}
	if arm == nil || arm.Frames == nil {
		return "the arm's transforms are no longer read: the pose's frame " + l.Frame + " cannot be placed again", nil
	}
	now, _, err := armTransform(arm, l.Base, l.Frame, m.Now, "the preview stands")
	if err != nil {
		return "", err
	}
	// Where the goal is now, not where the frame's origin is: a frame
	// turned about an origin metres away moves the goal by the turn times
	// that distance.
	then := tf.Transform{Translation: l.Translation, Rotation: l.Rotation}
	if d := distance(now.Apply(l.Position), then.Apply(l.Position)); d > FrameTolerance {
		return fmt.Sprintf("the pose given in %s moved %.3f m in %s since the preview, as %s moved (tolerance %.3f)", l.Frame, d, l.Base, l.Frame, FrameTolerance), nil
	}
	if d := angleBetween(now.Rotation, l.Rotation); l.Oriented && d > FrameTolerance {
		return fmt.Sprintf("the pose given in %s turned %.3f rad in %s since the preview, as %s turned (tolerance %.3f)", l.Frame, d, l.Base, l.Frame, FrameTolerance), nil
	}
	return "", nil
}

// restate compares the live robot with the state a preview of actuator
// was computed on, right before confirm sends it; it returns why they
// differ, or "" when the preview still holds, or an error when the state
// cannot be read fresh (stale_state: the preview is not used up).
func (m *Motions) restate(ctx context.Context, actuator string, g *previewGoal) (string, *Error) {
	if g.Goal != nil && g.Goal.Kind() == actuators.KindBase {
		pose, ok := m.Robot.Odom(actuator)
		if !ok {
			return "no odometry", nil
		}
		if d := math.Hypot(pose.X-g.Start["x"], pose.Y-g.Start["y"]); d > m.PoseTolerance {
			return fmt.Sprintf("base moved %.3f m since the preview (tolerance %.3f)", d, m.PoseTolerance), nil
		}
		if d := math.Abs(math.Remainder(pose.Yaw-g.Start["yaw"], 2*math.Pi)); d > m.PoseTolerance {
			return fmt.Sprintf("base turned %.3f rad since the preview (tolerance %.3f)", d, m.PoseTolerance), nil
		}
		return m.restateLink(actuator, g)
	}
	if why, err := m.restateArmFrame(actuator, g.FrameLink); why != "" || err != nil {
		return why, err
	}
	cur, err := freshJoints(ctx, m.Robot, m.Now, m.StaleAfter)
	if err != nil {
		return "", err
	}
	for j, v := range g.Start {
		r, ok := cur[j]
		if !ok {
			return "joint " + j + " no longer reported", nil
		}
		if d := math.Abs(r.Position - v); d > m.StartTolerance {
			return fmt.Sprintf("%s is at %.4f, preview started from %.4f (tolerance %.4f)", j, r.Position, v, m.StartTolerance), nil
		}
	}
	return "", nil
}
