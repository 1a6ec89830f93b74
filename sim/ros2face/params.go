package ros2face

import (
	"encoding/json"
	"strings"

	"github.com/actbridge/actbridge/ros2/node"
	"github.com/actbridge/actbridge/ros2/param"
	"github.com/actbridge/actbridge/ros2/service"
	"github.com/actbridge/actbridge/sim"
)

// readOnly is what the controllers' parameters say of themselves: the
// sim reads its configuration once, as a controller does on configure.
const readOnly = "read at start (simrobot flags); the sim does not reconfigure"

// controllerParams are the parameters each controller node (by name)
// serves, named as ros2_controllers' controllers declare them.
func (f *face) controllerParams() map[string][]param.Declaration {
	cfg := f.r.Config()
	ro := func(name string, v any) param.Declaration {
		return param.Declaration{Name: name, Value: param.Value{V: v}, ReadOnly: true, Description: readOnly}
	}
	jtc := func(joints []string) []param.Declaration {
		ds := []param.Declaration{
			ro("joints", joints),
			ro("command_interfaces", []string{"position"}),
			ro("state_interfaces", []string{"position", "velocity"}),
			ro("allow_nonzero_velocity_at_trajectory_end", false),
			ro("constraints.goal_time", cfg.GoalTime.Seconds()),
		}
		for _, j := range joints {
			ds = append(ds, ro("constraints."+j+".trajectory", cfg.PathTolerance), ro("constraints."+j+".goal", cfg.GoalTolerance))
		}
		return ds
	}
	out := map[string][]param.Declaration{
		"joint_trajectory_controller": jtc(f.r.ArmJoints()),
		"gripper_controller": {
			ro("joint", cfg.GripperJoint),
			ro("goal_tolerance", cfg.GripperGoalTolerance),
			ro("stall_timeout", cfg.GripperStallTimeout.Seconds()),
		},
		"diff_drive_controller": {
			ro("cmd_vel_timeout", cfg.Base.CmdTimeout.Seconds()),
			ro("linear.x.max_velocity", cfg.Base.MaxLinear),
			ro("angular.z.max_velocity", cfg.Base.MaxAngular),
			ro("odom_frame_id", sim.OdomFrame),
			ro("base_frame_id", sim.BaseFrame),
		},
	}
	if j := f.r.Arm2Joints(); j != nil {
		out["arm2_controller"] = jtc(j)
	}
	return out
}

// faultName is a fault's parameter on the sim's node: ROS 1's
// /<node>/faults/arm/lag is faults.arm.lag.
func faultName(key string) string { return "faults." + strings.ReplaceAll(key, "/", ".") }

// faultParams declares every fault parameter healthy (false, 0, 0.0).
func faultParams() []param.Declaration {
	var ds []param.Declaration
	for _, fp := range sim.FaultParams() {
		var v any
		switch fp.Kind {
		case "bool":
			v = false
		case "int":
			v = int64(0)
		default:
			v = 0.0
		}
		ds = append(ds, param.Declaration{Name: faultName(fp.Key), Value: param.Value{V: v}, Description: fp.Doc + " (in force after apply_faults)"})
	}
	return ds
}

// params starts a parameter server for each controller node and for the
// sim's own node (its fault parameters).
func (f *face) params(nodes map[string]*node.Node) error {
	decls := f.controllerParams()
	decls[f.cfg.Name] = faultParams()
	for name, ds := range decls {
		n := nodes[name]
		if n == nil {
			continue
		}
		s, err := param.NewServer(f.ctx.Participant(), f.set, n.FullName(), ds, param.ServerOptions{Service: service.Options{Endpoints: n.Announce}})
		if err != nil {
			return err
		}
		f.paramServers = append(f.paramServers, s)
		if name == f.cfg.Name {
			f.faults = s
		}
	}
	return nil
}

// faultGetter reads the fault parameters for sim.ReadFaults.
type faultGetter struct{ s *param.Server }

func (g faultGetter) Param(key, _ string) (any, bool, error) {
	v, ok := g.s.Get(faultName(strings.TrimPrefix(key, "/")))
	if !ok {
		return nil, false, nil
	}
	if i, isInt := v.V.(int64); isInt {
		return int(i), true, nil
	}
	return v.V, true, nil
}

// applyFaults puts the fault parameters in force and answers them as JSON.
func (f *face) applyFaults() (string, error) {
	flt, err := sim.ReadFaults(faultGetter{f.faults}, "")
	if err != nil {
		return "", err
	}
	f.r.SetFaults(flt)
	b, err := json.Marshal(flt.Params())
	if err == nil {
		f.logf("simrobot: faults applied: %s", b)
	}
	return string(b), err
}

// clearFaults heals the robot and sets the fault parameters healthy again.
func (f *face) clearFaults() (string, error) {
	f.r.SetFaults(sim.Faults{})
	var ps []param.Parameter
	for _, d := range faultParams() {
		ps = append(ps, param.Parameter{Name: d.Name, Value: d.Value})
	}
	f.faults.Set(ps...)
	f.logf("simrobot: faults cleared")
	return "{}", nil
}
