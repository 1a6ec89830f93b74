package ros2face

import (
	"fmt"
	"math"
	"time"

	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/sim"
)

// Nav2's NavigateToPose, served by bt_navigator.
const (
	NavigateAction = "/navigate_to_pose"
	typeNavigate   = "nav2_msgs/action/NavigateToPose"
	// navUnknownError is Nav2's UNKNOWN error code (named from Kilted on),
	// for an abort the sim gives no code for.
	navUnknownError = uint16(9000)
)

// navigate converts NavigateToPose; the result is the distro's (Humble:
// std_msgs/Empty; Jazzy and later: error_code and error_msg), and a
// preempted goal ends ABORTED with an empty result as Nav2's simple
// action server ends it.
//
// checkFrame is Lyrical's Nav2 (1.5.1, #6279): bt_navigator checks the goal
// pose's transform when the goal arrives and rejects a goal it cannot
// transform; before, it accepted it and aborted it with TF_ERROR. The
// sim's navigation knows one frame (sim.KnownFrame).
type navigate struct {
	f          *face
	checkFrame bool
}

func (n navigate) submit(id sim.GoalID, m *cdr.Message) error {
	ps, ok := m.Get("pose").(*cdr.Message)
	if !ok {
		return fmt.Errorf("%w: NavigateToPose goal without a pose", ErrMessage)
	}
	frame := str(get(ps, "header.frame_id"))
	if n.checkFrame && !sim.KnownFrame(frame) {
		return fmt.Errorf("failed to transform a goal pose provided with frame_id '%s' to the global frame '%s'", frame, sim.MapFrame)
	}
	g := sim.PoseStamped{Frame: frame}
	if s, ok := get(ps, "header.stamp").(*cdr.Message); ok {
		g.Stamp = timeOf(s)
	}
	p := &g.Pose
	p.Position = sim.Point3{X: num(get(ps, "pose.position.x")), Y: num(get(ps, "pose.position.y")), Z: num(get(ps, "pose.position.z"))}
	p.Orientation = sim.Quaternion{X: num(get(ps, "pose.orientation.x")), Y: num(get(ps, "pose.orientation.y")),
		Z: num(get(ps, "pose.orientation.z")), W: num(get(ps, "pose.orientation.w"))}
	n.f.r.NavigateGoal(id, g)
	return nil
}

func str(v any) string  { s, _ := v.(string); return s }
func num(v any) float64 { f, _ := v.(float64); return f }

func (n navigate) end(e simEnd, b *bridgedGoal, out *cdr.Message) (ending, error) {
	how := ended(e.st, b, endAbort)
	if out.Type.FieldIndex("error_code") < 0 {
		return how, nil // Humble: an Empty result
	}
	fl := fields{m: out}
	// Nav2's simple action server aborts a preempted goal with an empty
	// result (error_code NONE); other aborts carry a code.
	if how == endAbort && e.st != sim.StatusPreempted && e.st != sim.StatusRecalled {
		fl.set("error_code", navUnknownError)
		fl.set("error_msg", e.text)
	}
	return how, fl.err
}

// feedback carries the base's pose, the time since the goal arrived and
// the straight-line distance left (the sim plans no path); Lyrical's also
// the tracking errors against that straight path: none across it, and the
// path's bearing less the base's heading (positive: the base points right
// of the path, as Nav2's TrackingFeedback signs it).
func (n navigate) feedback(fb any, b *bridgedGoal, out *cdr.Message) error {
	bp, ok := fb.(sim.NavigateFeedback)
	if !ok {
		return fmt.Errorf("%w: sim feedback %T", ErrMessage, fb)
	}
	fl := fields{m: out}
	fl.stamp("current_pose.header.stamp", bp.Stamp)
	fl.set("current_pose.header.frame_id", bp.Frame)
	fl.set("current_pose.pose.position.x", bp.Pose.Position.X)
	fl.set("current_pose.pose.position.y", bp.Pose.Position.Y)
	fl.set("current_pose.pose.orientation.x", bp.Pose.Orientation.X)
	fl.set("current_pose.pose.orientation.y", bp.Pose.Orientation.Y)
	fl.set("current_pose.pose.orientation.z", bp.Pose.Orientation.Z)
	fl.set("current_pose.pose.orientation.w", bp.Pose.Orientation.W)
	dist := math.Hypot(num(get(b.goal, "pose.pose.position.x"))-bp.Pose.Position.X, num(get(b.goal, "pose.pose.position.y"))-bp.Pose.Position.Y)
	fl.set("distance_remaining", float32(dist))
	if out.Type.FieldIndex("heading_tracking_error") >= 0 {
		o := bp.Pose.Orientation
		yaw := math.Atan2(2*(o.W*o.Z+o.X*o.Y), 1-2*(o.Y*o.Y+o.Z*o.Z))
		bearing := math.Atan2(num(get(b.goal, "pose.pose.position.y"))-bp.Pose.Position.Y, num(get(b.goal, "pose.pose.position.x"))-bp.Pose.Position.X)
		heading := 0.0
		if dist > 0 {
			heading = math.Remainder(bearing-yaw, 2*math.Pi)
		}
		fl.set("position_tracking_error", float32(0))
		fl.set("heading_tracking_error", float32(heading))
	}
	elapsed := bp.Stamp.Sub(b.accepted)
	sec, nsec := durationFields(max(elapsed, 0))
	fl.set("navigation_time.sec", sec)
	fl.set("navigation_time.nanosec", nsec)
	if v := n.f.r.Config().Base.MaxLinear; v > 0 {
		sec, nsec = durationFields(time.Duration(dist / v * float64(time.Second)))
		fl.set("estimated_time_remaining.sec", sec)
		fl.set("estimated_time_remaining.nanosec", nsec)
	}
	return fl.err
}
