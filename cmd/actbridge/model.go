package main

import (
	"cmp"
	"context"
	"fmt"
	"reflect"
	"slices"
	"time"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/bridge"
	"github.com/actbridge/actbridge/config"
	"github.com/actbridge/actbridge/inflight"
	"github.com/actbridge/actbridge/kinematics"
	"github.com/actbridge/actbridge/safety"
	urdfpkg "github.com/actbridge/actbridge/urdf"
)

// robotModel is the robot as the tools need it: limits, actuators, policy.
type robotModel struct {
	cfg     *config.Config
	urdf    string // the robot description the limits came from
	limits  *safety.Limits
	ignored []safety.Ignored
	// Any number of each kind, in config order (bridge.Previewer).
	arms     []*bridge.ArmModel
	grippers []*bridge.GripperModel
	bases    []*bridge.BaseModel
}

// loadModel merges the URDF with the config's joint_limits.yaml and builds
// the actuator models. urdf is the robot description text.
func loadModel(cfg *config.Config, urdf []byte) (*robotModel, error) {
	if d := bridge.URDFDigest(string(urdf)); cfg.URDFSHA256 != "" && d != cfg.URDFSHA256 {
		return nil, fmt.Errorf("%w: the robot description's sha256 is %s, the config pins urdf_sha256 %s: the limits would come from a URDF nobody checked; "+
			"compare the two URDFs, then set urdf_sha256 to the new digest (actbridge check-config --urdf FILE prints it)", config.ErrConfig, d, cfg.URDFSHA256)
	}
	lim, ignored, err := cfg.LoadLimits(urdf)
	if err != nil {
		return nil, err
	}
	m := &robotModel{cfg: cfg, urdf: string(urdf), limits: lim, ignored: ignored}
	desc, kinErr := urdfpkg.Parse(urdf)
	var kin *kinematics.Model
	if kinErr == nil {
		kin, kinErr = kinematics.NewModel(desc)
	}
	for _, a := range cfg.Actuators {
		switch a.Kind {
		case actuators.KindArm:
			for _, j := range a.Joints {
				if _, ok := lim.Joint(j); !ok {
					return nil, fmt.Errorf("config: arm joint %q is not a movable joint of the URDF", j)
				}
			}
			ws, err := armWorkspace(a, kin, kinErr, lim, desc)
			if err != nil {
				return nil, err
			}
			arm := &bridge.ArmModel{Name: a.Name, Joints: a.Joints, Guard: bridge.SafetyArm{Limits: lim, PlotSamples: 40,
				Opts: safety.CheckOptions{RecoveryFraction: cfg.RecoverySpeedFraction, Workspace: ws}}, TFMaxAge: cfg.TFMaxAge.D()}
			if pl := a.Planning; pl != nil {
				arm.Planning = &bridge.ArmPlanning{Group: pl.Group, Service: pl.Service, Node: pl.Node,
					Time: time.Duration(pl.TimeS * float64(time.Second))}
			}
			m.arms = append(m.arms, arm)
		case actuators.KindGripper:
			if len(a.Joints) != 1 {
				return nil, fmt.Errorf("config: gripper %s needs exactly one finger joint", a.Name)
			}
			j, ok := lim.Joint(a.Joints[0])
			if !ok || !j.HasPosition() {
				return nil, fmt.Errorf("config: gripper joint %q needs a position range in the URDF", a.Joints[0])
			}
			eff := j.MaxEffort.Value
			if eff <= 0 {
				eff = 10
			}
			speed := j.MaxVelocity.Value
			if speed <= 0 {
				speed = 0.05
			}
			m.grippers = append(m.grippers, &bridge.GripperModel{Name: a.Name, Joint: a.Joints[0], Min: j.MinPosition.Value, Max: j.MaxPosition.Value, MaxEffort: eff, SpeedMS: speed})
		case actuators.KindBase:
			if a.Caps == nil || a.Geofence == nil {
				return nil, fmt.Errorf("config: base %s needs caps and a geofence", a.Name)
			}
			b, err := safety.NewBase(safety.BaseConfig{MaxLinearSpeed: a.Caps.MaxLinear, MaxAngularSpeed: a.Caps.MaxAngular,
				MaxDriveDuration: a.MaxDriveDuration.D().Seconds(), RecoveryFraction: cfg.RecoverySpeedFraction,
				Geofence: safety.Fence{Frame: a.Geofence.Frame, MinX: a.Geofence.MinX, MaxX: a.Geofence.MaxX, MinY: a.Geofence.MinY, MaxY: a.Geofence.MaxY}})
			if err != nil {
				return nil, fmt.Errorf("config: base %s: %w", a.Name, err)
			}
			maxD := a.MaxDriveDuration.D().Seconds()
			if maxD <= 0 {
				maxD = safety.DefaultMaxDriveDuration
			}
			m.bases = append(m.bases, &bridge.BaseModel{Name: a.Name, Frame: a.OdomFrame, MaxDriveS: maxD, Guard: bridge.SafetyBase{Base: b},
				TFMaxAge: cfg.TFMaxAge.D()})
		}
	}
	return m, nil
}

// descriptionGuard holds motions when the robot publishes another URDF
// than m's while the bridge runs.
func (m *robotModel) descriptionGuard(now func() time.Time) *bridge.DescriptionGuard {
	return bridge.NewDescriptionGuard(m.urdf, m.cfg.URDFSHA256 != "", func(text string) ([]string, error) {
		lim, _, err := m.cfg.LoadLimits([]byte(text))
		if err != nil {
			return nil, err
		}
		changed := m.limits.Diff(lim)
		// The workspace checks and tool poses come from the links' origins,
		// axes and collision shapes: the same joint limits are not enough.
		was, err1 := urdfpkg.Parse([]byte(m.urdf))
		next, err2 := urdfpkg.Parse([]byte(text))
		if err1 != nil || err2 != nil || !reflect.DeepEqual(was.Links, next.Links) || !reflect.DeepEqual(was.Joints, next.Joints) ||
			!reflect.DeepEqual(was.Collisions, next.Collisions) {
			changed = append(changed, "the geometry (links, joint origins and axes, collision shapes)")
		}
		return changed, nil
	}, now)
}

// confirmer maps the config's per-actuator policy to the role that confirms.
func (m *robotModel) confirmer(actuator string) bridge.Role {
	if a, ok := m.cfg.Actuator(actuator); ok && a.Policy == config.PolicyOperator {
		return bridge.RoleOperator
	}
	return bridge.RolePlanner
}

// policy lists every configured actuator with the role that confirms it.
func (m *robotModel) policy() []bridge.ActuatorPolicy {
	out := make([]bridge.ActuatorPolicy, len(m.cfg.Actuators))
	for i, a := range m.cfg.Actuators {
		out[i] = bridge.ActuatorPolicy{Name: a.Name, Kind: a.Kind, ConfirmedBy: m.confirmer(a.Name)}
	}
	return out
}

// toolOptions are the knobs of the tool set that come from flags.
type toolOptions struct {
	dataDir    string
	ttl        time.Duration
	staleAfter time.Duration
	consoleURL string
	lazy       bool
	// estop keeps the e-stop latch (the motion store); nil: not kept (offline).
	estop bridge.EStopStore
	// What serve gives the tool layer beside the store (each nil offline):
	// the run's context, which bounds drives; who else hears of motion
	// changes (metrics; the events log always does); the operator's
	// approvals; who sees every call (audit, metrics); the idempotency
	// store of writes.
	lifetime      context.Context
	motionChanged func(inflight.Motion)
	approvals     *bridge.Approvals
	observer      bridge.Observer
	idem          bridge.Idempotency
}

// armWorkspace builds an arm's kinematic chain (base_link and tool_link,
// or the chain its joints make), narrowed to the effective joint limits,
// and binds the workspace limits to it, with the URDF's collision shapes. An arm whose config names neither
// links nor a workspace gets no model if the URDF's chain cannot be built
// (its tool pose and path are then not reported); otherwise that is an
// error.
func armWorkspace(a config.ActuatorConfig, kin *kinematics.Model, kinErr error, lim *safety.Limits, desc *urdfpkg.Robot) (*safety.Workspace, error) {
	required := a.BaseLink != "" || a.ToolLink != "" || a.Workspace != nil
	fail := func(err error) (*safety.Workspace, error) {
		if !required {
			return nil, nil
		}
		return nil, fmt.Errorf("%w: arm %s: %v", config.ErrConfig, a.Name, err)
	}
	if kinErr != nil {
		return fail(kinErr)
	}
	base, tool := a.BaseLink, a.ToolLink
	if base == "" || tool == "" {
		b, t, err := kin.DefaultChain(a.Joints)
		if err != nil {
			return fail(err)
		}
		base, tool = cmp.Or(base, b), cmp.Or(tool, t)
	}
	chain, err := kin.Chain(base, tool)
	if err != nil {
		return fail(err)
	}
	ranges := map[string][2]float64{}
	for _, j := range chain.Joints() {
		if !slices.Contains(a.Joints, j) {
			return fail(fmt.Errorf("joint %q of the chain %s → %s is not one of the arm's joints", j, base, tool))
		}
		if jl, ok := lim.Joint(j); ok && jl.HasPosition() {
			ranges[j] = [2]float64{jl.MinPosition.Value, jl.MaxPosition.Value}
		}
	}
	if chain, err = chain.WithBounds(ranges); err != nil {
		return fail(err)
	}
	var wl safety.WorkspaceLimits
	if w := a.Workspace; w != nil {
		wl.Collisions = desc.Collisions
		wl.ToolSpeedMax = w.ToolSpeedMax
		if w.Box != nil {
			wl.Box = &safety.Box{Min: [3]float64(w.Box.Min), Max: [3]float64(w.Box.Max)}
		}
		for _, z := range w.Forbidden {
			links := z.Links
			if len(links) == 0 {
				links = chain.MovingLinks()
			}
			wl.Forbidden = append(wl.Forbidden, safety.Zone{Name: z.Name, Box: safety.Box{Min: [3]float64(z.Min), Max: [3]float64(z.Max)}, Links: links})
		}
	}
	ws, err := safety.NewWorkspace(chain, wl)
	if err != nil {
		return fail(err)
	}
	return ws, nil
}
