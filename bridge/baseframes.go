package bridge

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/safety"
	"github.com/actbridge/actbridge/tf"
)

// Defaults for a base whose fence lies in another frame than its odometry.
const (
	// DefaultTFMaxAge is how old the odometry→fence transform may be:
	// older, localisation has stopped and the fence cannot be placed.
	DefaultTFMaxAge = time.Second
	// DefaultMaxTilt (rad) bounds how far that transform may tilt: a
	// map→odom link that tilts is a broken localisation, not a slope.
	DefaultMaxTilt = 0.1
)

// Rules of the refusals that come from TF.
const (
	ruleTFMaxAge  = "tf_max_age"
	ruleTFMaxTilt = "tf_max_tilt"
	ruleTFLookup  = "tf_lookup"
)

// baseFrames is one preview's view of a base's frames: its odometry's,
// its fence's, and the link between them from TF (nil when they are the
// same frame, as on a robot without localisation).
type baseFrames struct {
	odom, fence string
	link        *safety.FrameLink // odom → fence
	age         time.Duration
}

// frames reads the link from b's odometry frame into its fence's frame.
// Refusals name both frames, the transform's age or tilt, and the rule.
func (b *BaseModel) frames(now func() time.Time) (baseFrames, *Error) {
	f := baseFrames{odom: cleanFrame(b.Frame), fence: cleanFrame(b.Guard.FenceFrame())}
	if f.odom == f.fence {
		return f, nil
	}
	what := fmt.Sprintf("transform %s→%s", f.odom, f.fence)
	if b.Frames == nil {
		return f, StateError(CodeUnavailable, "no transforms read", "when the transport reads /tf",
			fmt.Sprintf("the geofence of %s is in %q and its odometry in %q, but no %s is read: base motions cannot be checked", b.Name, f.fence, f.odom, what))
	}
	maxAge := b.TFMaxAge
	if maxAge <= 0 {
		maxAge = DefaultTFMaxAge
	}
	tr, at, err := b.Frames.Transform(f.fence, f.odom, maxAge)
	if err != nil {
		rule := ruleTFLookup
		if errors.Is(err, tf.ErrStale) {
			rule = ruleTFMaxAge
		}
		e := StateError(CodeUnavailable, what+" unavailable", fmt.Sprintf("when TF has a %s at most %v old", what, maxAge),
			fmt.Sprintf("cannot place %s in the geofence's frame: %v", b.Name, err))
		e.Rule = rule
		return f, e
	}
	x, y, yaw, tilt := tr.Ground()
	maxTilt := b.MaxTilt
	if maxTilt <= 0 {
		maxTilt = DefaultMaxTilt
	}
	if !(tilt <= maxTilt) {
		e := StateError(CodeUnavailable, fmt.Sprintf("%s tilts %.3f rad", what, tilt), fmt.Sprintf("when it tilts at most %g rad", maxTilt),
			fmt.Sprintf("%s tilts %.3f rad: a broken localisation, the geofence cannot be placed", what, tilt))
		e.Rule = ruleTFMaxTilt
		return f, e
	}
	if age := now().Sub(at); !at.IsZero() && age > 0 { // a stamp a little ahead (tf.Options.MaxAhead) reads 0
		f.age = age
	}
	f.link = &safety.FrameLink{From: f.odom, To: f.fence, X: x, Y: y, Yaw: yaw}
	return f, nil
}

// start is what a base preview keeps of the state it was computed from:
// the odometry pose and, fenced in another frame, the odom→fence link and
// the motion's end in odometry (a goal given there, a drive's end; nil:
// the goal is in the fence's frame), which confirm reads again
// (restate.go): a localisation that jumped since moved them in the fence.
func (f baseFrames) start(cur actuators.Pose2D, end *actuators.Pose2D) map[string]float64 {
	s := map[string]float64{"x": cur.X, "y": cur.Y, "yaw": cur.Yaw}
	if f.link != nil {
		s["link_x"], s["link_y"], s["link_yaw"] = f.link.X, f.link.Y, f.link.Yaw
		if end != nil {
			s["end_x"], s["end_y"] = end.X, end.Y
		}
	}
	return s
}

// inFence maps a pose given in frame into the fence's frame.
func (f baseFrames) inFence(g BaseGuard, frame string, p actuators.Pose2D) (actuators.Pose2D, *Error) {
	q, err := g.InFence(cleanFrame(frame), p, f.link)
	if err != nil {
		return actuators.Pose2D{}, FieldError("frame", f.names(), quote(frame), "cannot check a pose in this frame against the geofence: "+err.Error())
	}
	q.Frame = f.fence
	return q, nil
}

// inOdom maps a pose of the fence's frame into the odometry's.
func (f baseFrames) inOdom(p actuators.Pose2D) actuators.Pose2D {
	if f.link == nil {
		return roundPose(p, f.odom)
	}
	q := f.link.Inverse().Apply(safety.Pose2D{X: p.X, Y: p.Y, Theta: p.Yaw})
	return roundPose(actuators.Pose2D{X: q.X, Y: q.Y, Yaw: q.Theta}, f.odom)
}

// names lists the frames a base goal may be given in.
func (f baseFrames) names() string {
	if f.odom == f.fence {
		return quote(f.odom)
	}
	return quote(f.odom) + " or " + quote(f.fence)
}

// show is the preview's view of poses in both frames (nil when there is
// one): what the planner asked for next to what the fence was checked on.
// The frame names are the keys; transform is odom's origin in the fence's
// frame and its age.
func (f baseFrames) show(odom, fence map[string]actuators.Pose2D) map[string]any {
	if f.link == nil {
		return nil
	}
	bare := func(ps map[string]actuators.Pose2D) map[string]framePose {
		out := make(map[string]framePose, len(ps))
		for k, p := range ps {
			out[k] = framePose{round6(p.X), round6(p.Y), round6(math.Remainder(p.Yaw, 2*math.Pi))}
		}
		return out
	}
	return map[string]any{
		f.odom: bare(odom), f.fence: bare(fence),
		"transform": map[string]float64{"x": round6(f.link.X), "y": round6(f.link.Y), "yaw": round6(f.link.Yaw), "age_s": round6(f.age.Seconds())},
	}
}

// framePose is a pose under its frame's name in a preview's frames.
type framePose struct {
	X   float64 `json:"x"`
	Y   float64 `json:"y"`
	Yaw float64 `json:"yaw"`
}

func roundPose(p actuators.Pose2D, frame string) actuators.Pose2D {
	return actuators.Pose2D{Frame: frame, X: round6(p.X), Y: round6(p.Y), Yaw: round6(math.Remainder(p.Yaw, 2*math.Pi))}
}

// cleanFrame drops tf1's leading slash so "/map" and "map" match.
func cleanFrame(f string) string { return strings.TrimLeft(strings.TrimSpace(f), "/") }
