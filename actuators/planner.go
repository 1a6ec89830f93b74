package actuators

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Planner asks an external motion planner (MoveIt's move_group) for a
// collision-aware joint trajectory. Planning moves nothing: what comes back
// is checked against the bridge's own joint and workspace limits and
// previewed like any arm goal, and only a confirm sends it (through the
// arm's FollowJointTrajectory, never MoveIt's execute).
type Planner interface {
	Plan(ctx context.Context, req PlanRequest) (Plan, error)
}

// PlanRequest is one planning question: a joint goal (Joints and Goal) or
// a pose goal (Pose), from the Start state, for a MoveIt planning group.
type PlanRequest struct {
	Service string // the planning service, e.g. /plan_kinematic_path
	Node    string // the one node whose service to ask ("": the only one)
	Group   string // the MoveIt planning group

	Start []JointReading // the state to plan from (positions are used)

	Joints []string  // a joint goal: these joints
	Goal   []float64 // at these positions (rad or m)
	Pose   *PoseGoal // or a pose goal

	Pipeline, PlannerID string // "" = move_group's defaults
	Attempts            int    // 0 = 1
	Time                time.Duration
	// VelocityScaling and AccelerationScaling in (0, 1] scale the
	// robot's limits MoveIt times the path with; 0 = DefaultScaling.
	VelocityScaling, AccelerationScaling float64
}

// PoseGoal asks for Link at Position (and Orientation, unless it is the
// zero quaternion) in Frame, within the tolerances.
type PoseGoal struct {
	Link, Frame       string
	Position          [3]float64 // m
	Orientation       [4]float64 // x, y, z, w; zero = any orientation
	PositionTolerance float64    // m, radius of the target sphere
	AngleTolerance    float64    // rad, per axis
}

// DefaultScaling is the velocity and acceleration scaling a plan asks for
// when the request names none: MoveIt setup assistant's default.
const DefaultScaling = 0.1

// Plan is a planner's answer: the trajectory from the start state, how
// long planning took, and who planned it.
type Plan struct {
	Trajectory   Trajectory
	PlanningTime time.Duration
	Source       string // the node and participant that answered
}

// ErrNoPlanner: no planning service is on the graph (the bridge plans
// itself then, and its preview says so).
var ErrNoPlanner = errors.New("no motion planner")

// PlanError is a planner's refusal: MoveIt's error code with its constant
// name (PLANNING_FAILED, NO_IK_SOLUTION, ...) and message where the distro
// carries one.
type PlanError struct {
	Code    int32
	Name    string
	Message string
}

func (e *PlanError) Error() string {
	s := fmt.Sprintf("the planner refused: %s (%d)", e.Name, e.Code)
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}
