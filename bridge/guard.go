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

// ArmCheck is the safety analysis of one arm trajectory.
type ArmCheck struct {
	Joints []JointImpact
	// Violations are the limits it would break, as safety reports them
	// (times, values and points rounded to 1e-6).
	Violations []safety.Violation
	Warnings   []string
	Duration   float64
	// Recovery lists the joints the motion starts outside their range; when
	// it is not empty the motion was checked by the recovery rules and needs
	// the operator's confirmation.
	Recovery []safety.OutOfRange
	// Plot holds a few samples per joint for the operator console.
	Plot map[string][][2]float64
	// Use is how much of each joint's limits the motion uses (console).
	Use map[string]LimitUse
	// Tool is the tool link's path; nil without a kinematic model.
	Tool *safety.ToolPath
	// ToolPlot is the tool's path and the workspace for the console.
	ToolPlot *ToolPlot
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
	// CheckGoal refuses goals outside the fence. A base violation names
	// the value it is about (x, y, linear, ...) as its Joint and the rule
	// as its Kind.
	CheckGoal(frame string, x, y float64) []safety.Violation
	// CheckDrive refuses twists over the caps and drives whose predicted end
	// pose leaves the fence; it returns the predicted end pose.
	CheckDrive(start actuators.Pose2D, linear, angular, duration float64) (actuators.Pose2D, []safety.Violation)
	// OutsideFence names, per axis (joint "x" or "y"), how far a pose lies
	// outside the fence; nil inside. From outside, CheckDrive applies the
	// recovery rules.
	OutsideFence(p actuators.Pose2D) []safety.OutOfRange
	// FenceFrame is the frame the fence is declared and checked in.
	FenceFrame() string
	// InFence maps a pose in frame into the fence's frame, through link
	// when frame is not the fence's (safety.Base.InFence); the poses
	// CheckGoal, CheckDrive and OutsideFence take are in the fence's frame.
	InFence(frame string, p actuators.Pose2D, link *safety.FrameLink) (actuators.Pose2D, error)
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
