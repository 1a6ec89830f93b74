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
	Robot   actuators.State
	Arm     *ArmModel
	Gripper *GripperModel
	Base    *BaseModel
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
	caps, _ := d.Base.Guard.(SafetyBase)
	base := map[string]any{"name": d.Base.Name, "frame": d.Base.Frame, "max_drive_s": d.Base.MaxDriveS}
	if caps.Base != nil {
		c := caps.Base.Config()
		base["max_linear"], base["max_angular"], base["geofence"] = c.MaxLinearSpeed, c.MaxAngularSpeed, c.Geofence
	}
	var notes []string
	for _, ig := range d.Ignored {
		notes = append(notes, fmt.Sprintf("%s: %s=%s ignored, kept %s (%s)", ig.Joint, ig.Key, ig.Value, ig.Kept, ig.Reason))
	}
	out := map[string]any{
		"actuators":        d.Robot.Actuators(),
		"joints":           d.Arm.Guard.Describe(),
		"arm":              map[string]any{"name": d.Arm.Name, "joints": d.Arm.Joints},
		"gripper":          map[string]any{"name": d.Gripper.Name, "joint": d.Gripper.Joint, "min": d.Gripper.Min, "max": d.Gripper.Max, "max_effort": d.Gripper.MaxEffort},
		"base":             base,
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
	return out
}
