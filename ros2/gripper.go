package ros2

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/config"
)

// gripperCodec is a gripper's action: gripper_action_controller's
// control_msgs/action/GripperCommand (parallel false) or
// parallel_gripper_controller's ParallelGripperCommand, whose command
// and state are a sensor_msgs/JointState of the finger joint.
type gripperCodec struct {
	parallel bool
	joint    string // the finger joint
	// position reads the finger's position from the joint states, to
	// measure progress from where the goal started.
	position func() (float64, bool)
}

func newGripperCodec(ac config.ActuatorConfig, position func(joint string) (float64, bool)) (gripperCodec, error) {
	c := gripperCodec{joint: ac.Joints[0]}
	c.position = func() (float64, bool) { return position(c.joint) }
	switch ac.ActionType {
	case config.GripperActionCommand:
	case config.GripperActionParallel:
		c.parallel = true
	default:
		return c, fmt.Errorf("%w: %s: action_type %q is not a gripper action", config.ErrConfig, ac.Name, ac.ActionType)
	}
	return c, nil
}

func (c gripperCodec) actionType() string {
	if c.parallel {
		return config.GripperActionParallel
	}
	return config.GripperActionCommand
}

// errNoCommand: a goal type without the command field the codec fills.
var errNoCommand = errors.New("the goal has no command")

// build fills the command: position (m) and max_effort (N), or for a
// parallel gripper the finger joint's position and, when max_effort is
// positive, its effort (none: the controller's own limit).
func (c gripperCodec) build(msg *cdr.Message, g actuators.Goal) (progressFunc, error) {
	gc, ok := g.(actuators.GripperCommand)
	if !ok {
		return nil, fmt.Errorf("%w: a gripper takes no %T goal", actuators.ErrInvalidArgument, g)
	}
	if !finite(gc.Position) || !finite(gc.MaxEffort) || gc.MaxEffort < 0 {
		return nil, fmt.Errorf("%w: position and max_effort must be finite and max_effort not negative, got %v and %v",
			actuators.ErrInvalidArgument, gc.Position, gc.MaxEffort)
	}
	cmd, _ := msg.Get("command").(*cdr.Message)
	if cmd == nil {
		return nil, fmt.Errorf("%s: %w", msg.Type.Name(), errNoCommand)
	}
	var err error
	if c.parallel {
		eff := []float64{}
		if gc.MaxEffort > 0 {
			eff = []float64{gc.MaxEffort}
		}
		err = errors.Join(cmd.Set("name", []string{c.joint}), cmd.Set("position", []float64{gc.Position}), cmd.Set("effort", eff))
	} else {
		err = errors.Join(cmd.Set("position", gc.Position), cmd.Set("max_effort", gc.MaxEffort))
	}
	if err != nil {
		return nil, err
	}
	start, known := c.position()
	return func(fb *cdr.Message) (float64, bool) {
		pos, _, ok := c.fingerState(fb)
		span := math.Abs(gc.Position - start)
		if !ok || !known || span < 1e-4 || !finite(pos) { // a NaN from the robot is no progress
			return 0, false
		}
		return math.Max(0, math.Min(1, 1-math.Abs(gc.Position-pos)/span)), true
	}, nil
}

// fingerState reads the finger's position and effort from a feedback or
// a result: fields position and effort, or a parallel gripper's state.
func (c gripperCodec) fingerState(m *cdr.Message) (pos, eff float64, ok bool) {
	if m == nil {
		return 0, 0, false
	}
	if !c.parallel {
		pos, ok = m.Get("position").(float64)
		eff, _ = m.Get("effort").(float64)
		return pos, eff, ok
	}
	st, _ := m.Get("state").(*cdr.Message)
	if st == nil {
		return 0, 0, false
	}
	names, _ := st.Get("name").([]string)
	ps, _ := st.Get("position").([]float64)
	es, _ := st.Get("effort").([]float64)
	i := 0 // a state naming no joint is the finger's alone
	if len(names) > 0 {
		i = slices.Index(names, c.joint)
	}
	if i < 0 || i >= len(ps) { // it names joints, but not the finger
		return 0, 0, false
	}
	if i < len(es) {
		eff = es[i]
	}
	return ps[i], eff, true
}

// outcome reads the result as the ROS 1 transport shows it: position,
// effort, stalled, reached_goal; the status decides the state (a stall
// succeeds or aborts as the controller's allow_stalling says). A result
// that neither reached the goal nor stalled is a preemption's: the
// controllers end a goal so when a newer one takes over.
func (c gripperCodec) outcome(m *cdr.Message) outcome {
	if m == nil {
		return outcome{}
	}
	pos, eff, _ := c.fingerState(m)
	stalled, _ := m.Get("stalled").(bool)
	reached, _ := m.Get("reached_goal").(bool)
	var text string
	switch {
	case reached:
		text = fmt.Sprintf("reached the goal at %.4g m", pos)
	case stalled:
		text = fmt.Sprintf("stalled at %.4g m, effort %.4g N", pos, eff)
	}
	return outcome{preemption: !reached && !stalled, text: text,
		result: map[string]any{"position": number(pos), "effort": number(eff), "stalled": stalled, "reached_goal": reached}}
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// number is x for a JSON result: nil (null) when it is not finite, which
// JSON cannot carry (a robot's NaN made the whole result unencodable).
func number(x float64) any {
	if !finite(x) {
		return nil
	}
	return x
}
