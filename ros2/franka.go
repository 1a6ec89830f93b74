package ros2

import (
	"fmt"
	"math"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/config"
)

// franka_gripper's own actions (franka_ros2, every branch): the
// actuator's action is the node's namespace, e.g. /franka_gripper.
const (
	frankaMove  = "franka_msgs/action/Move"
	frankaGrasp = "franka_msgs/action/Grasp"
	// frankaSpeed is the fingers' speed (m/s), what franka_gripper's own
	// gripper_action commands.
	frankaSpeed = 0.1
	// frankaInner is how much narrower than the target a grasp may end
	// (m): GraspEpsilon's default, as gripper_action sends it.
	frankaInner = 0.005
)

// frankaCodec speaks franka_gripper's dialect: an opening goal is a Move
// (~/move), a closing one a Grasp (~/grasp) whose outer tolerance is the
// width it starts from, so closing on any object between the target and
// the current opening succeeds (libfranka's grasp succeeds only when the
// final width is within the tolerances of the target; its gripper_action
// sends 5 mm, so closing to 0 on an object aborts). Widths on the wire are
// full openings; the bridge's position is one finger's, half of it.
type frankaCodec struct {
	joint string // the finger joint: fr3_finger_joint1, width/2
	// position reads the finger's position from the joint states: which
	// way a goal goes, where progress starts, the width a result reports.
	position func() (float64, bool)
}

func newFrankaCodec(ac config.ActuatorConfig, position func(joint string) (float64, bool)) frankaCodec {
	c := frankaCodec{joint: ac.Joints[0]}
	c.position = func() (float64, bool) { return position(c.joint) }
	return c
}

func (frankaCodec) actionType() string { return config.GripperActionFranka }

func (frankaCodec) lanes() []laneSpec {
	return []laneSpec{{suffix: "/move", typ: frankaMove}, {suffix: "/grasp", typ: frankaGrasp}}
}

// command checks g: a gripper command to a finite position not below 0.
func (frankaCodec) command(g actuators.Goal) (actuators.GripperCommand, error) {
	gc, ok := g.(actuators.GripperCommand)
	if !ok {
		return gc, fmt.Errorf("%w: a gripper takes no %T goal", actuators.ErrInvalidArgument, g)
	}
	if !finite(gc.Position) || !finite(gc.MaxEffort) || gc.MaxEffort < 0 || gc.Position < 0 {
		return gc, fmt.Errorf("%w: position must be finite and not negative, max_effort finite and not negative, got %v and %v",
			actuators.ErrInvalidArgument, gc.Position, gc.MaxEffort)
	}
	return gc, nil
}

// laneOf: a goal at or beyond the fingers' position opens (~/move), one
// below it closes (~/grasp). Without the fingers' position nothing is sent.
func (c frankaCodec) laneOf(g actuators.Goal) (int, error) {
	gc, err := c.command(g)
	if err != nil {
		return 0, err
	}
	pos, ok := c.position()
	if !ok || !finite(pos) {
		return 0, fmt.Errorf("%w: no joint state of %s yet, so whether the goal opens (move) or closes (grasp) is unknown", actuators.ErrNotConnected, c.joint)
	}
	if gc.Position >= pos {
		return 0, nil
	}
	return 1, nil
}

// build fills a Move (width, speed) or a Grasp (width, speed, force =
// max_effort, epsilon inner 5 mm and outer the current width), the
// width being twice the finger position; progress reads the feedback's
// current_width.
func (c frankaCodec) build(msg *cdr.Message, g actuators.Goal) (progressFunc, error) {
	gc, err := c.command(g)
	if err != nil {
		return nil, err
	}
	pos, known := c.position()
	start := 2 * pos
	width := 2 * gc.Position
	errs := []error{msg.Set("width", width), msg.Set("speed", frankaSpeed)}
	if eps, ok := msg.Get("epsilon").(*cdr.Message); ok {
		if !known || !finite(start) {
			return nil, fmt.Errorf("%w: no joint state of %s yet: a grasp's tolerance is the width it starts from", actuators.ErrNotConnected, c.joint)
		}
		errs = append(errs, msg.Set("force", gc.MaxEffort), eps.Set("inner", frankaInner), eps.Set("outer", math.Max(start, frankaInner)))
	}
	for _, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("%s: %w", msg.Type.Name(), err)
		}
	}
	return func(fb *cdr.Message) (float64, bool) {
		if fb == nil {
			return 0, false
		}
		w, ok := fb.Get("current_width").(float64)
		span := math.Abs(width - start)
		if !ok || !known || span < 2e-4 || !finite(w) {
			return 0, false
		}
		return math.Max(0, math.Min(1, 1-math.Abs(width-w)/span)), true
	}, nil
}

// outcome reads a Move's or Grasp's result (success, error) and the
// fingers' newest joint state: width, the full opening, and position,
// one finger's (width/2), as the joint state says; null when none came.
func (c frankaCodec) outcome(m *cdr.Message) outcome {
	if m == nil {
		return outcome{}
	}
	success, _ := m.Get("success").(bool)
	msg, _ := m.Get("error").(string)
	pos, ok := c.position()
	if !ok {
		pos = math.NaN()
	}
	text := fmt.Sprintf("franka_gripper: %s", msg)
	if success {
		text = fmt.Sprintf("done at a width of %.4g m", 2*pos)
	}
	return outcome{text: text,
		result: map[string]any{"width": number(2 * pos), "position": number(pos), "success": success, "error": msg}}
}
