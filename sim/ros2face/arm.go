package ros2face

import (
	"fmt"
	"slices"
	"time"

	"github.com/actbridge/actbridge/cdr"
	ros2msgs "github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/sim"
)

// The arms' actions, as ros2_controllers' joint_trajectory_controller names them.
const (
	ArmAction  = "/joint_trajectory_controller/follow_joint_trajectory"
	Arm2Action = "/arm2_controller/follow_joint_trajectory"
	typeFJT    = "control_msgs/action/FollowJointTrajectory"
)

// The text ros2_controllers' joint_trajectory_controller (Jazzy and
// later) aborts a preempted goal with.
const preemptedText = "Current goal preempted by new incoming action."

// errorInvalidGoal is FollowJointTrajectory's INVALID_GOAL error code.
const errorInvalidGoal int32 = -1

// trajectory is the FollowJointTrajectory converter of one arm.
type trajectory struct {
	f      *face
	arm2   bool
	distro ros2msgs.Distro
}

// submit rejects what ROS 2's controller rejects before the sim looks:
// a last point with a non-zero velocity
// (allow_nonzero_velocity_at_trajectory_end is false by default).
func (t trajectory) submit(id sim.GoalID, m *cdr.Message) error {
	g, err := trajGoal(m)
	if err != nil {
		return err
	}
	if pts := g.Trajectory.Points; len(pts) > 0 {
		if slices.ContainsFunc(pts[len(pts)-1].Velocities, func(v float64) bool { return v != 0 }) {
			return fmt.Errorf("the last point has non-zero velocities")
		}
	}
	if t.arm2 {
		t.f.r.Arm2Goal(id, g)
	} else {
		t.f.r.ArmGoal(id, g)
	}
	return nil
}

func (t trajectory) end(e simEnd, b *bridgedGoal, out *cdr.Message) (ending, error) {
	st := e.st
	r, ok := e.res.(sim.TrajectoryResult)
	if !ok {
		return 0, fmt.Errorf("%w: sim result %T", ErrMessage, e.res)
	}
	how := ended(st, b, endAbort)
	if how == endAbort && st == sim.StatusPreempted {
		if t.distro == ros2msgs.Humble {
			// Humble's controller calls setCanceled on the executing goal,
			// which rcl refuses; the released handle then ends it CANCELED
			// with a zero result.
			return endAbandon, nil
		}
		r = sim.TrajectoryResult{ErrorCode: errorInvalidGoal, ErrorString: preemptedText}
	}
	rf := fields{m: out}
	rf.set("error_code", r.ErrorCode)
	rf.set("error_string", r.ErrorString)
	return how, rf.err
}

// feedback is the distro's FollowJointTrajectory feedback; Kilted's index
// is the trajectory point the desired state has reached or passed.
func (t trajectory) feedback(fb any, b *bridgedGoal, out *cdr.Message) error {
	f, ok := fb.(sim.TrajectoryFeedback)
	if !ok {
		return fmt.Errorf("%w: sim feedback %T", ErrMessage, fb)
	}
	fl := fields{m: out}
	fl.stamp("header.stamp", f.Stamp)
	fl.set("header.frame_id", "")
	fl.set("joint_names", f.JointNames)
	for name, p := range map[string]sim.TrajectoryPoint{"desired": f.Desired, "actual": f.Actual, "error": f.Error} {
		point(&fl, name, p)
	}
	if out.Type.FieldIndex("index") >= 0 {
		fl.set("index", pointIndex(b.goal, f.Stamp, b.accepted))
	}
	return fl.err
}

// pointIndex counts the goal's points whose time has come at stamp, the
// trajectory starting at its header stamp (accepted when zero), minus one.
func pointIndex(goal *cdr.Message, stamp, accepted time.Time) int32 {
	start := accepted
	if s, ok := get(goal, "trajectory.header.stamp").(*cdr.Message); ok && !timeOf(s).IsZero() {
		start = timeOf(s)
	}
	pts, _ := get(goal, "trajectory.points").([]*cdr.Message)
	n := int32(-1)
	for _, p := range pts {
		d, _ := p.Get("time_from_start").(*cdr.Message)
		if d == nil || start.Add(durationOf(d)).After(stamp) {
			break
		}
		n++
	}
	return max(n, 0)
}

// point sets a trajectory_msgs/JointTrajectoryPoint at path ("": the
// message itself).
func point(fl *fields, path string, p sim.TrajectoryPoint) {
	if path != "" {
		path += "."
	}
	fl.set(path+"positions", nonNil(p.Positions))
	fl.set(path+"velocities", nonNil(p.Velocities))
	fl.set(path+"accelerations", nonNil(p.Accelerations))
	fl.set(path+"effort", nonNil(p.Effort))
	sec, nsec := durationFields(p.TimeFromStart)
	fl.set(path+"time_from_start.sec", sec)
	fl.set(path+"time_from_start.nanosec", nsec)
}

func nonNil(v []float64) []float64 {
	if v == nil {
		return []float64{}
	}
	return v
}

// trajGoal reads a ROS 2 FollowJointTrajectory goal into the sim's
// goal; the multi-DOF and component tolerance fields, which the
// sim's arm has no use for, are ignored as a single-DOF controller does.
func trajGoal(m *cdr.Message) (sim.TrajectoryGoal, error) {
	var g sim.TrajectoryGoal
	jt, ok := m.Get("trajectory").(*cdr.Message)
	if !ok {
		return g, fmt.Errorf("%w: goal without a trajectory", ErrMessage)
	}
	stamp, _ := get(jt, "header.stamp").(*cdr.Message)
	frame, _ := get(jt, "header.frame_id").(string)
	names, _ := jt.Get("joint_names").([]string)
	g.Trajectory = sim.Trajectory{Frame: frame, JointNames: names}
	if stamp != nil {
		g.Trajectory.Stamp = timeOf(stamp)
	}
	pts, _ := jt.Get("points").([]*cdr.Message)
	for _, p := range pts {
		d, _ := p.Get("time_from_start").(*cdr.Message)
		if d == nil {
			return g, fmt.Errorf("%w: point without time_from_start", ErrMessage)
		}
		pos, _ := p.Get("positions").([]float64)
		vel, _ := p.Get("velocities").([]float64)
		acc, _ := p.Get("accelerations").([]float64)
		eff, _ := p.Get("effort").([]float64)
		g.Trajectory.Points = append(g.Trajectory.Points, sim.TrajectoryPoint{
			Positions: pos, Velocities: vel, Accelerations: acc, Effort: eff, TimeFromStart: durationOf(d)})
	}
	g.PathTolerance = tolerances(m.Get("path_tolerance"))
	g.GoalTolerance = tolerances(m.Get("goal_tolerance"))
	if d, ok := m.Get("goal_time_tolerance").(*cdr.Message); ok {
		g.GoalTimeTolerance = durationOf(d)
	}
	return g, nil
}

func tolerances(v any) []sim.JointTolerance {
	ms, _ := v.([]*cdr.Message)
	out := make([]sim.JointTolerance, 0, len(ms))
	for _, m := range ms {
		name, _ := m.Get("name").(string)
		pos, _ := m.Get("position").(float64)
		vel, _ := m.Get("velocity").(float64)
		acc, _ := m.Get("acceleration").(float64)
		out = append(out, sim.JointTolerance{Name: name, Position: pos, Velocity: vel, Acceleration: acc})
	}
	return out
}
