package actuators

import (
	"time"

	"github.com/actbridge/actbridge/spline"
)

// Goal is what Motion.Send puts on the wire: one variant per actuator
// kind. The set is closed; a transport switches on the concrete type.
type Goal interface {
	// Kind is the kind of actuator the goal is for.
	Kind() Kind
	goal()
}

// Trajectory is an arm goal: positions (and optionally velocities and
// accelerations) per joint at times from the start. The safety layer has
// checked limits; a transport checks only the shape.
type Trajectory struct {
	Joints []string
	Points []spline.Point
}

// GripperCommand is a gripper goal: a finger position (m) and the largest
// effort (N) the gripper may use to get there.
type GripperCommand struct {
	Position  float64
	MaxEffort float64
}

// Navigate is a base goal: reach a pose; an empty frame means the base's
// odometry frame.
type Navigate struct {
	Target Pose2D
}

// Drive is a base goal without a planner: a fixed velocity for a duration.
// It lives only as long as the ctx passed to Send (the deadman): zero is
// sent at the end, on Cancel, StopAll, and when ctx ends.
type Drive struct {
	Linear   float64 // m/s
	Angular  float64 // rad/s
	Duration time.Duration
}

func (Trajectory) Kind() Kind     { return KindArm }
func (GripperCommand) Kind() Kind { return KindGripper }
func (Navigate) Kind() Kind       { return KindBase }
func (Drive) Kind() Kind          { return KindBase }

func (Trajectory) goal()     {}
func (GripperCommand) goal() {}
func (Navigate) goal()       {}
func (Drive) goal()          {}
