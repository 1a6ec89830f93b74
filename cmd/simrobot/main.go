// Command simrobot is a simulated ros_control robot for actbridge: a 6-joint
// arm behind /arm_controller/follow_joint_trajectory, a gripper behind
// /gripper_controller/gripper_cmd, a diff-drive base on /cmd_vel and /odom
// with a /move_base action, and fault injection through parameters. With
// --second-arm it is a dual-arm cell: a second arm, joints arm2_*, behind
// /arm2_controller/follow_joint_trajectory.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"math"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/actbridge/actbridge/ros1/roslink"
	"github.com/actbridge/actbridge/sim"
	"github.com/actbridge/actbridge/sim/ros1face"
	"github.com/actbridge/actbridge/version"
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
	// initialPositions and initialPose are the flags as given, parsed into cfg.
	initialPositions string
	initialPose      string
	table            string // --table, parsed into cfg.Table
	odomDrift        string // --odom-drift, parsed into cfg.OdomDrift
	cfg              sim.Config
	// ros is the face: 1 (ROS 1, goroslib) or 2 (ROS 2, ros2face).
	ros       int
	distro    string // with --ros 2; checked by checkROS
	namespace string // with --ros 2; checked by checkROS
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	o := options{cfg: sim.DefaultConfig()}
	fs := flag.NewFlagSet("simrobot", flag.ContinueOnError)
	fs.SetOutput(stderr)
	c := &o.cfg
	fs.StringVar(&o.name, "name", "simrobot", "ROS node name; faults are read from /<name>/faults/, services are /<name>/...")
	fs.StringVar(&o.urdf, "urdf", "", "URDF file to simulate and set on /robot_description (default: the built-in 6-joint arm)")
	fs.StringVar(&o.jointLimits, "joint-limits", "", "joint_limits.yaml to set under "+ros1face.ParamJointLimits+" (default: built-in)")
	fs.BoolVar(&c.SecondArm, "second-arm", false, "serve a dual-arm cell: a second arm, its joints prefixed "+sim.Arm2JointPrefix+", behind "+sim.Arm2Action+
		" (default URDF and joint limits: the built-in dual-arm cell, launch/simrobot-dual-arm.urdf)")
	fs.StringVar(&c.GripperJoint, "gripper-joint", c.GripperJoint, "URDF joint driven by the gripper; every other movable joint is the arm")
	fs.Float64Var(&c.JointStatesHz, "joint-states-hz", c.JointStatesHz, "/joint_states rate in simulated Hz (1..1000)")
	fs.Float64Var(&c.OdomHz, "odom-hz", c.OdomHz, "/odom rate in simulated Hz")
	fs.Float64Var(&c.ArmStateHz, "arm-state-hz", c.ArmStateHz, "/arm_controller/state rate in simulated Hz")
	fs.Float64Var(&c.TFHz, "tf-hz", c.TFHz, "/tf rate in simulated Hz (map→odom, odom→base_footprint, the moving joints' links; fixed joints go once to /tf_static)")
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
	fs.StringVar(&o.initialPositions, "initial-positions", "", "start joints at these positions instead of 0 (gripper: open): name=value,... in rad or m, within the URDF's hard limits (e.g. elbow_joint=2.55, past the bridge's soft limit of 2.5)")
	fs.StringVar(&o.initialPose, "initial-pose", "", "start the base at x,y,yaw in the map frame, where odom starts too (m, m, rad) instead of 0,0,0")
	fs.StringVar(&o.table, "table", "", "put a table in the world: the box xmin,ymin,zmin,xmax,ymax,zmax in the map frame (m); links touching it go to the collision log, service /<name>/collisions")
	fs.StringVar(&o.odomDrift, "odom-drift", "", "make odometry drift: x,y,yaw per simulated second (m/s, m/s, rad/s) added to map→odom, so /odom and odom→base_footprint leave the true pose, which stays in map (default: none)")
	fs.BoolVar(&o.waitMaster, "wait-master", true, "wait for the ROS master instead of failing when it is not up")
	fs.IntVar(&o.ros, "ros", 1, "ROS version to serve: 1 (rosmaster, ROS_MASTER_URI) or 2 (ros2_control names; ROS_DOMAIN_ID, ROS_AUTOMATIC_DISCOVERY_RANGE (unset: localhost only), ROS_STATIC_PEERS)")
	fs.StringVar(&o.namespace, "namespace", "", "with --ros 2: put every node, topic, service and action under this namespace (/robot1), with /tf and /tf_static remapped into it (/robot1/tf), as a TurtleBot 4 under ROBOT_NAMESPACE (default: none)")
	fs.StringVar(&o.distro, "distro", defaultDistro, "with --ros 2: the ROS 2 distro whose messages and controller semantics to serve (humble, jazzy, kilted, lyrical)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), `Usage: simrobot [flags]

A simulated ROS 1 robot with the names a gazebo_ros_control robot offers.
It reads ROS_MASTER_URI, ROS_HOSTNAME and ROS_IP, and registers again after
a master restart.

With --ros 2 (--distro humble|jazzy|kilted|lyrical) the same robot is a ROS 2
robot under ros2_control names (package sim/ros2face): /joint_states,
/robot_description (latched), /diff_drive_controller/cmd_vel (TwistStamped)
and /odom, /tf and /tf_static, the camera, /plan_kinematic_path (MoveIt's
GetMotionPlan for the group "arm", by the sim's own planner), the actions
/joint_trajectory_controller/follow_joint_trajectory,
/gripper_controller/gripper_cmd (ParallelGripperCommand on kilted and
lyrical) and /navigate_to_pose, the controllers' parameters, and the
Trigger services
/<name>/{apply_faults,clear_faults,goals,collisions}; faults are the parameters
faults.<key with dots> of /<name>. With --namespace /robot1 every one of
those names is under /robot1 (/robot1/navigate_to_pose, /robot1/tf,
/robot1/simrobot/goals). It reads ROS_DOMAIN_ID,
ROS_AUTOMATIC_DISCOVERY_RANGE (unset: localhost only), ROS_STATIC_PEERS,
and ROS_DISCOVERY_SERVER (a Fast DDS Discovery Server's client then).
What follows describes the ROS 1 face.

Serves: /joint_states, /arm_controller/state, /odom, /cmd_vel, /tf and
/tf_static (latched), the actions
%s, %s and %s,
and the std_srvs/Trigger services /<name>/apply_faults, /<name>/clear_faults,
/<name>/goals (goal log as JSON) and /<name>/collisions (what touched the
--table, as JSON). With --second-arm also %s
and the action %s
(goal log key "%s"); faults act on the first arm only.

Faults: set parameters under /<name>/faults/, then call /<name>/apply_faults:
`, sim.ArmAction, sim.GripperAction, sim.MoveBaseAction, ros1face.TopicArm2State, sim.Arm2Action, sim.Arm2)
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
	if err := o.checkROS(); err != nil {
		return o, err
	}
	if c.JointStatesHz < 1 || c.JointStatesHz > 1000 {
		return o, fmt.Errorf("--joint-states-hz %g: want 1..1000", c.JointStatesHz)
	}
	if c.SecondArm {
		c.URDF = sim.DualArmURDF
	}
	if o.urdf != "" {
		b, err := os.ReadFile(o.urdf)
		if err != nil {
			return o, err
		}
		c.URDF = string(b)
	}
	if err := o.applyInitial(); err != nil {
		return o, err
	}
	if o.jointLimits != "" {
		b, err := os.ReadFile(o.jointLimits)
		if err != nil {
			return o, err
		}
		o.jointLimits = string(b)
	} else if c.SecondArm {
		o.jointLimits = sim.DualArmJointLimits
	}
	return o, nil
}

func run(args []string, getenv func(string) string, stderr io.Writer) int {
	logger := log.New(stderr, "", log.LstdFlags|log.Lmicroseconds)
	if len(args) == 1 && (args[0] == "version" || args[0] == "--version") {
		fmt.Fprintln(stderr, "simrobot", version.Get())
		return 0
	}
	o, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "simrobot: %v\n", err)
		return 2
	}
	if o.ros == 2 {
		return run2(o, getenv, logger)
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
	if j := robot.Arm2Joints(); j != nil {
		logger.Printf("simrobot: second arm joints %v behind %s", j, sim.Arm2Action)
	}
	err = ros1face.Serve(ctx, robot, ros1face.ServeConfig{
		Env:             env,
		Name:            o.name,
		JointLimitsYAML: o.jointLimits,
		WaitForMaster:   o.waitMaster,
		Logf:            logger.Printf,
		Exit:            func(code int) { os.Exit(code) },
		Ready: func() {
			logger.Printf("simrobot: serving %s %s %s %s, actions %s %s %s, services /%s/{apply_faults,clear_faults,goals,collisions}",
				ros1face.TopicJointStates, ros1face.TopicArmState, ros1face.TopicOdom, ros1face.TopicCmdVel,
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

// numbers parses n finite comma-separated numbers of a flag.
func numbers(flag, s, want string, n int) ([]float64, error) {
	parts := strings.Split(s, ",")
	if len(parts) != n {
		return nil, fmt.Errorf("%s %q: want %s", flag, s, want)
	}
	v := make([]float64, n)
	for i, p := range parts {
		f, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, fmt.Errorf("%s %q: %q is not a finite number", flag, s, p)
		}
		v[i] = f
	}
	return v, nil
}

// applyInitial parses --initial-positions, --initial-pose, --odom-drift and --table
// into the config. Joints are named; a name the URDF does not move, a malformed
// value or a position beyond the joint's hard stops (where no real joint
// can stand) is an error.
func (o *options) applyInitial() error {
	c := &o.cfg
	if o.initialPose != "" {
		v, err := numbers("--initial-pose", o.initialPose, "x,y,yaw", 3)
		if err != nil {
			return err
		}
		c.BaseInitial = sim.Pose2D{X: v[0], Y: v[1], Yaw: v[2]}
	}
	if o.odomDrift != "" {
		v, err := numbers("--odom-drift", o.odomDrift, "x,y,yaw per second", 3)
		if err != nil {
			return err
		}
		c.OdomDrift = sim.Pose2D{X: v[0], Y: v[1], Yaw: v[2]}
	}
	if o.table != "" {
		v, err := numbers("--table", o.table, "xmin,ymin,zmin,xmax,ymax,zmax", 6)
		if err != nil {
			return err
		}
		b := sim.Box{Min: [3]float64(v[:3]), Max: [3]float64(v[3:])}
		for i := range 3 {
			if b.Min[i] > b.Max[i] {
				return fmt.Errorf("--table %q: a min above its max", o.table)
			}
		}
		c.Table = &b
	}
	if o.initialPositions == "" {
		return nil
	}
	joints, err := sim.ParseJoints(c.URDF)
	if err != nil {
		return err
	}
	var arm []sim.Joint
	for _, j := range joints {
		if j.Name != c.GripperJoint {
			arm = append(arm, j)
		}
	}
	c.ArmInitial = make([]float64, len(arm))
	seen := map[string]bool{}
	for _, item := range strings.Split(o.initialPositions, ",") {
		name, val, ok := strings.Cut(strings.TrimSpace(item), "=")
		f, perr := strconv.ParseFloat(strings.TrimSpace(val), 64)
		if !ok || perr != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("--initial-positions: %q is not name=number", item)
		}
		if seen[name] {
			return fmt.Errorf("--initial-positions: joint %q given twice", name)
		}
		seen[name] = true
		k := slices.IndexFunc(joints, func(j sim.Joint) bool { return j.Name == name })
		if k < 0 {
			return fmt.Errorf("--initial-positions: %q is not a movable joint of the URDF", name)
		}
		if j := joints[k]; !j.Continuous() && (f < j.Lower || f > j.Upper) {
			return fmt.Errorf("--initial-positions: %s=%g is beyond the joint's hard stops [%g, %g]", name, f, j.Lower, j.Upper)
		}
		if name == c.GripperJoint {
			c.GripperInitial = &f
			continue
		}
		c.ArmInitial[slices.IndexFunc(arm, func(j sim.Joint) bool { return j.Name == name })] = f
	}
	return nil
}
