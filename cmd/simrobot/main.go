// Command simrobot is a simulated ros_control robot for actbridge: a 6-joint
// arm behind /arm_controller/follow_joint_trajectory, a gripper behind
// /gripper_controller/gripper_cmd, a diff-drive base on /cmd_vel and /odom
// with a /move_base action, and fault injection through parameters.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/actbridge/actbridge/roslink"
	"github.com/actbridge/actbridge/sim"
)

func main() {
	os.Exit(run(os.Args[1:], os.Getenv, os.Stderr))
}

// options are the command-line flags.
type options struct {
	name        string
	urdf        string
	jointLimits string
	waitMaster  bool
	cfg         sim.Config
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	o := options{cfg: sim.DefaultConfig()}
	fs := flag.NewFlagSet("simrobot", flag.ContinueOnError)
	fs.SetOutput(stderr)
	c := &o.cfg
	fs.StringVar(&o.name, "name", "simrobot", "ROS node name; faults are read from /<name>/faults/, services are /<name>/...")
	fs.StringVar(&o.urdf, "urdf", "", "URDF file to simulate and set on /robot_description (default: the built-in 6-joint arm)")
	fs.StringVar(&o.jointLimits, "joint-limits", "", "joint_limits.yaml to set under "+sim.ParamJointLimits+" (default: built-in)")
	fs.StringVar(&c.GripperJoint, "gripper-joint", c.GripperJoint, "URDF joint driven by the gripper; every other movable joint is the arm")
	fs.Float64Var(&c.JointStatesHz, "joint-states-hz", c.JointStatesHz, "/joint_states rate in simulated Hz (1..1000)")
	fs.Float64Var(&c.OdomHz, "odom-hz", c.OdomHz, "/odom rate in simulated Hz")
	fs.Float64Var(&c.ArmStateHz, "arm-state-hz", c.ArmStateHz, "/arm_controller/state rate in simulated Hz")
	fs.Float64Var(&c.StatusHz, "status-hz", c.StatusHz, "action status rate in simulated Hz")
	fs.Float64Var(&c.TimeScale, "time-scale", c.TimeScale, "simulated seconds per wall second")
	fs.DurationVar(&c.Step, "step", c.Step, "fixed physics step (simulated time)")
	fs.DurationVar(&c.StatusListTimeout, "status-list-timeout", c.StatusListTimeout, "how long finished goals stay in the status list")
	fs.Float64Var(&c.PathTolerance, "path-tolerance", c.PathTolerance, "default per-joint path tolerance, rad (0: not checked)")
	fs.Float64Var(&c.GoalTolerance, "goal-tolerance", c.GoalTolerance, "default per-joint goal tolerance, rad (0: not checked)")
	fs.DurationVar(&c.GoalTime, "goal-time", c.GoalTime, "default goal_time_tolerance")
	fs.BoolVar(&c.HoldOnAbort, "hold-on-abort", c.HoldOnAbort, "stop the arm when a goal aborts (ROS 1 JTC keeps executing the trajectory)")
	fs.Float64Var(&c.GripperSpeed, "gripper-speed", c.GripperSpeed, "finger speed, m/s")
	fs.Float64Var(&c.Base.MaxLinear, "max-linear", c.Base.MaxLinear, "base speed limit, m/s")
	fs.Float64Var(&c.Base.MaxAngular, "max-angular", c.Base.MaxAngular, "base turn rate limit, rad/s")
	fs.DurationVar(&c.Base.CmdTimeout, "cmd-vel-timeout", c.Base.CmdTimeout, "stop the base when /cmd_vel is silent this long")
	fs.BoolVar(&o.waitMaster, "wait-master", true, "wait for the ROS master instead of failing when it is not up")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), `Usage: simrobot [flags]

A simulated ROS 1 robot with the names a gazebo_ros_control robot offers.
It reads ROS_MASTER_URI, ROS_HOSTNAME and ROS_IP, and registers again after
a master restart.

Serves: /joint_states, /arm_controller/state, /odom, /cmd_vel, the actions
%s, %s and %s,
and the std_srvs/Trigger services /<name>/apply_faults, /<name>/clear_faults
and /<name>/goals (goal log as JSON).

Faults: set parameters under /<name>/faults/, then call /<name>/apply_faults:
`, sim.ArmAction, sim.GripperAction, sim.MoveBaseAction)
		for _, p := range sim.FaultParams() {
			fmt.Fprintf(fs.Output(), "  %-26s %-5s %s\n", p.Key, p.Kind, p.Doc)
		}
		fmt.Fprintf(fs.Output(), "  %-26s %-5s %s\n\nFlags:\n", "exit_code", "int", "exit the process with this code (no goodbye to the master)")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	// roslaunch appends __name:= and __log:= arguments; take the node name
	// from __name:= unless --name was given, ignore the rest.
	nameSet := false
	fs.Visit(func(f *flag.Flag) { nameSet = nameSet || f.Name == "name" })
	for _, a := range fs.Args() {
		switch {
		case strings.HasPrefix(a, "__name:=") && !nameSet:
			o.name = strings.TrimPrefix(a, "__name:=")
		case strings.HasPrefix(a, "__"):
		default:
			return o, fmt.Errorf("unexpected argument %q", a)
		}
	}
	if c.JointStatesHz < 1 || c.JointStatesHz > 1000 {
		return o, fmt.Errorf("--joint-states-hz %g: want 1..1000", c.JointStatesHz)
	}
	if o.urdf != "" {
		b, err := os.ReadFile(o.urdf)
		if err != nil {
			return o, err
		}
		c.URDF = string(b)
	}
	if o.jointLimits != "" {
		b, err := os.ReadFile(o.jointLimits)
		if err != nil {
			return o, err
		}
		o.jointLimits = string(b)
	}
	return o, nil
}

func run(args []string, getenv func(string) string, stderr io.Writer) int {
	logger := log.New(stderr, "", log.LstdFlags|log.Lmicroseconds)
	o, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "simrobot: %v\n", err)
		return 2
	}
	env, err := roslink.EnvFrom(getenv)
	if err != nil {
		fmt.Fprintf(stderr, "simrobot: %v\n", err)
		return 2
	}
	robot, err := sim.New(o.cfg)
	if err != nil {
		fmt.Fprintf(stderr, "simrobot: %v\n", err)
		return 2
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	logger.Printf("simrobot: master %s, node /%s, arm joints %v, joint_states %g Hz, time scale %g",
		env.MasterAddress, o.name, robot.ArmJoints(), o.cfg.JointStatesHz, o.cfg.TimeScale)
	err = sim.Serve(ctx, robot, sim.ServeConfig{
		Env:             env,
		Name:            o.name,
		JointLimitsYAML: o.jointLimits,
		WaitForMaster:   o.waitMaster,
		Logf:            logger.Printf,
		Exit:            func(code int) { os.Exit(code) },
		Ready: func() {
			logger.Printf("simrobot: serving %s %s %s %s, actions %s %s %s, services /%s/{apply_faults,clear_faults,goals}",
				sim.TopicJointStates, sim.TopicArmState, sim.TopicOdom, sim.TopicCmdVel,
				sim.ArmAction, sim.GripperAction, sim.MoveBaseAction, o.name)
		},
	})
	if err != nil {
		logger.Printf("simrobot: %v", err)
		return 1
	}
	logger.Printf("simrobot: stopped")
	return 0
}
