package bridge

import (
	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/safety"
	"github.com/actbridge/actbridge/spline"
)

// JointImpact is one joint's line in a preview.
type JointImpact struct {
	Joint          string  `json:"joint"`
	From           float64 `json:"from"`
	To             float64 `json:"to"`
	Delta          float64 `json:"delta"`
	PeakVelocity   float64 `json:"peak_velocity"`
	Limit          float64 `json:"limit"`
	PercentOfLimit float64 `json:"percent_of_limit"`
}

// Violation is one limit a motion would break: which joint (or rule), when
// along the motion, the value and the limit.
//
// A workspace violation (kind workspace, forbidden_zone or tool_speed)
// names the Link, the Point (metres, the arm's base link frame) at the
// worst sample, the forbidden Zone if any, and the Axis of the face it
// crosses: Value is the point's coordinate on it and Limit the face's
// (for tool_speed, m/s).
type Violation struct {
	Joint string      `json:"joint,omitempty"`
	Link  string      `json:"link,omitempty"`
	Kind  string      `json:"kind"` // position, velocity, acceleration, effort, geofence, speed_cap, step_cap, workspace, forbidden_zone, tool_speed
	Zone  string      `json:"zone,omitempty"`
	Axis  string      `json:"axis,omitempty"`
	Point *[3]float64 `json:"point,omitempty"`
	TimeS float64     `json:"time_s"`
	Value float64     `json:"value"`
	Limit float64     `json:"limit"`
}

// ArmCheck is the safety analysis of one arm trajectory.
type ArmCheck struct {
	Joints     []JointImpact
	Violations []Violation
	Warnings   []string
	Duration   float64
	// Recovery lists the joints the motion starts outside their range; when
	// it is not empty the motion was checked by the recovery rules and needs
	// the operator's confirmation.
	Recovery []OutOfRange
	// Plot holds a few samples per joint for the operator console.
	Plot map[string][][2]float64
	// Use is how much of each joint's limits the motion uses (console).
	Use map[string]LimitUse
	// Tool is the tool link's path; nil without a kinematic model.
	Tool *safety.ToolPath
	// ToolPlot is the tool's path and the workspace for the console.
	ToolPlot *ToolPlot
}

// OutOfRange is a joint standing outside its position range, as a
// recovery preview names it: the bound it is past and by how much.
type OutOfRange struct {
	Joint    string  `json:"joint"`
	Position float64 `json:"position"`
	Limit    float64 `json:"limit"`
	By       float64 `json:"by"`
}

// ArmGuard is what the arm tools need from the safety package: limits,
// the shortest safe duration, and a full trajectory check.
type ArmGuard interface {
	// Range is a joint's allowed position range; limited is false for
	// continuous joints.
	Range(joint string) (lo, hi float64, limited bool, ok bool)
	// MinDuration is the shortest safe duration of a point-to-point move; from
	// out of range it is the recovery's, whatever scale asks.
	MinDuration(joints []string, from, to []float64, scale float64) float64
	// Describe lists every arm joint with its limits, in joint order.
	Describe() []JointLimits
	Check(joints []string, start []spline.State, points []spline.Point) (ArmCheck, error)
}

// BaseGuard is what the base tools need: speed caps and a geofence.
type BaseGuard interface {
	Caps() (maxLinear, maxAngular float64)
	// CheckGoal refuses goals outside the fence.
	CheckGoal(frame string, x, y float64) []Violation
	// CheckDrive refuses twists over the caps and drives whose predicted end
	// pose leaves the fence; it returns the predicted end pose.
	CheckDrive(start actuators.Pose2D, linear, angular, duration float64) (actuators.Pose2D, []Violation)
	// OutsideFence names, per axis (joint "x" or "y"), how far a pose lies
	// outside the fence; nil inside. From outside, CheckDrive applies the
	// recovery rules.
	OutsideFence(p actuators.Pose2D) []OutOfRange
}

// JointLimits is one joint as robot_describe lists it. Zero limits with the
// matching has-flag false mean "none".
type JointLimits struct {
	Name            string   `json:"name"`
	Type            string   `json:"type"`
	Lower           *float64 `json:"lower,omitempty"`
	Upper           *float64 `json:"upper,omitempty"`
	MaxVelocity     float64  `json:"max_velocity"`
	MaxAcceleration *float64 `json:"max_acceleration,omitempty"`
	MaxEffort       float64  `json:"max_effort"`
	Source          string   `json:"source,omitempty"`
}
