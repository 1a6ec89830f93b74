package ros2

import (
	"errors"
	"fmt"
	"math"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/cdr"
)

// navigateToPose is a base's navigation action: Nav2's bt_navigator.
const navigateToPose = "nav2_msgs/action/NavigateToPose"

// navigateCodec is NavigateToPose: a pose in a frame (the base's odom
// frame when the goal names none) and Nav2's default behavior tree.
type navigateCodec struct {
	frame string
}

func (navigateCodec) actionType() string { return navigateToPose }

// errNoPose: a goal type without the pose the codec fills.
var errNoPose = errors.New("the goal has no pose")

// build fills pose: a zero stamp (the newest transform), the frame, the
// position and the yaw as a quaternion about z.
func (c navigateCodec) build(msg *cdr.Message, g actuators.Goal) (progressFunc, error) {
	nv, ok := g.(actuators.Navigate)
	if !ok {
		return nil, fmt.Errorf("%w: a base's navigation takes no %T goal", actuators.ErrInvalidArgument, g)
	}
	p := nv.Target
	if !finiteAll(p.X, p.Y, p.Yaw) {
		return nil, fmt.Errorf("%w: the goal pose must be finite, got x=%v y=%v yaw=%v", actuators.ErrInvalidArgument, p.X, p.Y, p.Yaw)
	}
	if p.Frame == "" {
		p.Frame = c.frame
	}
	header, _ := path(msg, "pose", "header").(*cdr.Message)
	pos, _ := path(msg, "pose", "pose", "position").(*cdr.Message)
	rot, _ := path(msg, "pose", "pose", "orientation").(*cdr.Message)
	if header == nil || pos == nil || rot == nil {
		return nil, fmt.Errorf("%s: %w", msg.Type.Name(), errNoPose)
	}
	if err := errors.Join(header.Set("frame_id", p.Frame), pos.Set("x", p.X), pos.Set("y", p.Y),
		rot.Set("z", math.Sin(p.Yaw/2)), rot.Set("w", math.Cos(p.Yaw/2))); err != nil {
		return nil, err
	}
	first := -1.0
	return func(fb *cdr.Message) (float64, bool) {
		d, ok := fb.Get("distance_remaining").(float32)
		if !ok || !finiteAll(float64(d)) || d < 0 {
			return 0, false
		}
		if first < 0 && d > 1e-3 {
			first = float64(d) // the path's length as Nav2 first measured it
		}
		if first < 0 {
			return 0, false // Nav2 reports 0 until it has a path
		}
		return math.Max(0, math.Min(1, 1-float64(d)/first)), true
	}, nil
}

// outcome reads the distro's result: Humble's is empty (std_msgs/Empty);
// Jazzy's and later carry error_code and error_msg. Nav2's simple action
// server ends a preempted goal ABORTED with an empty result: error_code
// NONE (0), or Humble's result, which cannot tell.
func (navigateCodec) outcome(m *cdr.Message) outcome {
	if m == nil {
		return outcome{}
	}
	code, ok := m.Get("error_code").(uint16)
	if !ok {
		return outcome{preemption: true, result: map[string]any{}}
	}
	text, _ := m.Get("error_msg").(string)
	return outcome{preemption: code == 0, text: text, result: map[string]any{"error_code": code, "error_msg": text}}
}
