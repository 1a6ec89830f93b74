package ros2face

import (
	"fmt"

	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/sim"
)

// The gripper's action: gripper_action_controller's GripperCommand on
// Humble and Jazzy; on Kilted and Lyrical, where that controller is gone
// (ros2_controllers #1652), parallel_gripper_controller's
// ParallelGripperCommand under the same name.
const (
	GripperAction      = "/gripper_controller/gripper_cmd"
	typeGripperCommand = "control_msgs/action/GripperCommand"
	typeParallel       = "control_msgs/action/ParallelGripperCommand"
)

// gripperCommand converts control_msgs/action/GripperCommand.
type gripperCommand struct{ f *face }

func (c gripperCommand) submit(id sim.GoalID, m *cdr.Message) error {
	pos, ok1 := get(m, "command.position").(float64)
	eff, ok2 := get(m, "command.max_effort").(float64)
	if !ok1 || !ok2 {
		return fmt.Errorf("%w: GripperCommand goal", ErrMessage)
	}
	c.f.r.GripperGoal(id, sim.GripperGoal{Position: pos, MaxEffort: eff})
	return nil
}

func (c gripperCommand) end(e simEnd, b *bridgedGoal, out *cdr.Message) (ending, error) {
	st := e.st
	r, ok := e.res.(sim.GripperResult)
	if !ok {
		return 0, fmt.Errorf("%w: sim result %T", ErrMessage, e.res)
	}
	return ended(st, b, endAbort), gripperState(out, sim.GripperFeedback(r))
}

func (c gripperCommand) feedback(fb any, _ *bridgedGoal, out *cdr.Message) error {
	f, ok := fb.(sim.GripperFeedback)
	if !ok {
		return fmt.Errorf("%w: sim feedback %T", ErrMessage, fb)
	}
	return gripperState(out, f)
}

func gripperState(out *cdr.Message, s sim.GripperFeedback) error {
	fl := fields{m: out}
	fl.set("position", s.Position)
	fl.set("effort", s.Effort)
	fl.set("stalled", s.Stalled)
	fl.set("reached_goal", s.ReachedGoal)
	return fl.err
}

// parallelGripper converts control_msgs/action/ParallelGripperCommand:
// the goal's command names the finger joint, its first position is the
// target and its first effort (if any) the effort limit.
type parallelGripper struct {
	f     *face
	joint string
}

func (c parallelGripper) submit(id sim.GoalID, m *cdr.Message) error {
	names, _ := get(m, "command.name").([]string)
	pos, _ := get(m, "command.position").([]float64)
	eff, _ := get(m, "command.effort").([]float64)
	if len(names) != 1 || names[0] != c.joint || len(pos) != 1 {
		return fmt.Errorf("the command must name %s alone, with one position", c.joint)
	}
	g := sim.GripperGoal{Position: pos[0]}
	if len(eff) > 0 {
		g.MaxEffort = eff[0]
	}
	c.f.r.GripperGoal(id, g)
	return nil
}

func (c parallelGripper) end(e simEnd, b *bridgedGoal, out *cdr.Message) (ending, error) {
	st := e.st
	r, ok := e.res.(sim.GripperResult)
	if !ok {
		return 0, fmt.Errorf("%w: sim result %T", ErrMessage, e.res)
	}
	fl := fields{m: out}
	c.state(&fl, r.Position, r.Effort)
	fl.set("stalled", r.Stalled)
	fl.set("reached_goal", r.ReachedGoal)
	return ended(st, b, endAbort), fl.err
}

func (c parallelGripper) feedback(fb any, _ *bridgedGoal, out *cdr.Message) error {
	f, ok := fb.(sim.GripperFeedback)
	if !ok {
		return fmt.Errorf("%w: sim feedback %T", ErrMessage, fb)
	}
	fl := fields{m: out}
	c.state(&fl, f.Position, f.Effort)
	return fl.err
}

// state sets the finger's sensor_msgs/JointState at "state".
func (c parallelGripper) state(fl *fields, pos, eff float64) {
	fl.set("state.name", []string{c.joint})
	fl.set("state.position", []float64{pos})
	fl.set("state.velocity", []float64{})
	fl.set("state.effort", []float64{eff})
}
