package bridge

import (
	"fmt"
	"time"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/safety"
)

// RobotInfo is everything robot_describe reports: the robot as the tools
// know it, read live where it changes (actuators, e-stop, speed scale).
type RobotInfo struct {
	Robot actuators.State
	// Previewer holds the actuators of each kind as the tools know them.
	Previewer *Previewer
	// Limits are every joint's limits (URDF + joint_limits.yaml).
	Limits *safety.Limits
	// Policy is who confirms each configured actuator's motions.
	Policy []ActuatorPolicy
	// Ignored are limits_file values that would have loosened the URDF.
	Ignored               []safety.Ignored
	EStop                 func() (latched bool, event uint64, reason string, since time.Time)
	SpeedScale            func() float64
	RateLimits            RateLimits
	StepCaps              StepCaps
	RecoverySpeedFraction float64
	// Access describes the guarded ROS tools' allowlists; nil without them.
	Access *ROSTools
	// Description is the URDF the limits came from and any change since;
	// nil leaves urdf out.
	Description *DescriptionGuard
}

// ActuatorPolicy is one actuator and the role that confirms its motions.
type ActuatorPolicy struct {
	Name        string
	Kind        actuators.Kind
	ConfirmedBy Role
}

// Describe is robot_describe's result.
func (d *RobotInfo) Describe() any {
	latched, ev, reason, since := d.EStop()
	estop := map[string]any{"latched": latched, "event": ev}
	if latched {
		estop["reason"], estop["since"] = reason, since.UTC().Format(time.RFC3339)
	}
	policy := map[string]any{}
	for _, a := range d.Policy {
		policy[a.Name] = map[string]any{"kind": a.Kind, "confirmed_by": string(a.ConfirmedBy)}
	}
	var notes []string
	for _, ig := range d.Ignored {
		notes = append(notes, fmt.Sprintf("%s: %s=%s ignored, kept %s (%s)", ig.Joint, ig.Key, ig.Value, ig.Kept, ig.Reason))
	}
	out := map[string]any{
		"actuators":        d.Robot.Actuators(),
		"joints":           SafetyArm{Limits: d.Limits}.Describe(),
		"tiers":            map[string]string{"read": "runs at once", "write": "reversible; pass idempotency_key to retry safely", "irreversible": "returns a preview; runs only via motion_confirm", "stop": "never gated"},
		"policy":           policy,
		"speed_scale":      d.SpeedScale(),
		"estop":            estop,
		"master_reachable": d.Robot.Connected(), // the field's name is a contract; it means connected
		"limit_notes":      notes,
		"rate_limits":      d.RateLimits.Describe(),
		"step_caps":        d.StepCaps,
		// What a recovery from outside a limit may use of each velocity limit and speed cap.
		"recovery_speed_fraction": d.RecoverySpeedFraction,
	}
	if d.Access != nil {
		out["access"] = d.Access.Describe()
	}
	if d.Description != nil {
		out["urdf"] = d.Description.Describe()
	}
	for k, v := range d.Previewer.DescribeActuators() {
		out[k] = v
	}
	if tp := toolPoses(d.Previewer.Arms, d.Robot.Joints().Joints); tp != nil {
		out["tool_poses"] = tp
	}
	return out
}
