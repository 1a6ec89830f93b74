package ros2face

import (
	"context"
	"errors"
	"fmt"
	"log"
	"strings"
	"sync"

	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/ros2/names"
	"github.com/actbridge/actbridge/ros2/node"
	"github.com/actbridge/actbridge/ros2/param"
	"github.com/actbridge/actbridge/ros2/qos"
	"github.com/actbridge/actbridge/ros2/service"
	"github.com/actbridge/actbridge/sim"
)

// The names a ros2_control robot with these controllers offers.
const (
	TopicJointStates      = "/joint_states"
	TopicRobotDescription = "/robot_description"
	TopicCmdVel           = "/diff_drive_controller/cmd_vel"
	TopicOdom             = "/diff_drive_controller/odom"
	TopicCameraImage      = "/camera/image_raw"
	TopicCameraCompressed = "/camera/image_raw/compressed"
)

// The ROS 2 types the face speaks.
const (
	typeJointState      = "sensor_msgs/msg/JointState"
	typeString          = "std_msgs/msg/String"
	typeTwistStamped    = "geometry_msgs/msg/TwistStamped"
	typeOdometry        = "nav_msgs/msg/Odometry"
	typeImage           = "sensor_msgs/msg/Image"
	typeCompressedImage = "sensor_msgs/msg/CompressedImage"
)

// Config is how Serve presents a robot on ROS 2.
type Config struct {
	Distro    msgs.Distro
	Discovery node.Discovery
	// Name is the sim's own node (faults and the goal log live under it);
	// "simrobot" when empty.
	Name string
	// Namespace, when set ("/robot1"), holds every node and with them
	// every topic, service and action, as a launch file's
	// PushRosNamespace does; /tf and /tf_static are remapped into it
	// (/robot1/tf), as a TurtleBot 4's and Nav2's launch files remap
	// them ('/tf' → 'tf'). Only rcl's own global names stay outside.
	Namespace string
	// Ready, if set, is called once every endpoint is announced.
	Ready func()
	Logf  func(format string, args ...any)
}

// face is one Serve: the Context, its nodes' endpoints and the robot.
type face struct {
	r    *sim.Robot
	cfg  Config
	ctx  *node.Context
	logf func(string, ...any)

	joints, odom, image, compressed, description *node.Publisher
	tf, tfStatic                                 *node.Publisher
	cmdVel                                       *node.Subscription

	set     *msgs.Set              // the distro's definitions and the sim's own, for the servers' setup
	bridges map[string]*goalBridge // by the sim's action short name
	servers []*service.Server
	// nodes are the face's nodes by name (all in cfg.Namespace); paramServers their
	// parameters, faults the sim node's (fault parameters).
	nodes        map[string]*node.Node
	paramServers []*param.Server
	faults       *param.Server

	led led // the status LED set_led sets

	errMu  sync.Mutex
	failed map[string]bool // topics whose publish failed, logged once
}

// Serve runs r on ROS 2 until ctx ends: it joins the domain as one
// participant, announces the robot's nodes, steps the robot in paced
// simulated time and publishes what it produces. It returns nil when ctx
// ends, or the error that stopped it.
func Serve(ctx context.Context, r *sim.Robot, cfg Config) error {
	if cfg.Name == "" {
		cfg.Name = "simrobot"
	}
	if cfg.Logf == nil {
		cfg.Logf = log.Printf
	}
	if cfg.Namespace == "" {
		cfg.Namespace = "/"
	}
	if err := names.ValidateNamespace(cfg.Namespace); err != nil {
		return err
	}
	nc, err := node.NewContext(ctx, node.Options{Distro: cfg.Distro, Discovery: cfg.Discovery, Remap: tfRemap(cfg.Namespace)})
	if err != nil {
		return err
	}
	defer nc.Close()
	set, err := msgs.Load(cfg.Distro)
	if err == nil {
		err = AddInterfaces(set)
	}
	if err != nil {
		return err
	}
	f := &face{r: r, cfg: cfg, ctx: nc, logf: cfg.Logf, failed: map[string]bool{}, set: set, bridges: map[string]*goalBridge{}, nodes: map[string]*node.Node{}}
	defer f.closeServers()
	if err := f.topics(); err != nil {
		return err
	}
	if err := f.actions(); err != nil {
		return err
	}
	if err := f.params(f.nodes); err != nil {
		return err
	}
	if err := f.services(f.nodes[cfg.Name]); err != nil {
		return err
	}
	if err := f.servePlanner(); err != nil {
		return err
	}
	// Once every node exists, and before the one service of a type outside
	// the distro's set: a bridge that sees set_led finds its node's
	// describer already announced (as rcl makes it with the node). The
	// describers answer from the graph at each request, so endpoints
	// made after them are described too.
	if err := f.typeDescriptions(); err != nil {
		return err
	}
	if err := f.serveLED(f.nodes[cfg.Name]); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	// Deferred calls run last first: cancel the loops, then wait for them.
	defer wg.Wait()
	defer cancel()
	errc := make(chan error, 2)
	for _, loop := range []func(context.Context) error{f.takeCmdVel, f.runCamera} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := loop(ctx); err != nil && ctx.Err() == nil {
				errc <- err
				cancel()
			}
		}()
	}
	if cfg.Ready != nil {
		cfg.Ready()
	}
	err = r.Run(ctx, f.publish)
	select {
	case e := <-errc:
		return e
	default:
	}
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// topics makes the nodes and their publishers and subscriptions, and
// latches the robot description.
func (f *face) topics() error {
	self, err := f.node(f.cfg.Name)
	if err != nil {
		return err
	}
	jsb, err := f.node("joint_state_broadcaster")
	if err != nil {
		return err
	}
	rsp, err := f.node("robot_state_publisher")
	if err != nil {
		return err
	}
	ddc, err := f.node("diff_drive_controller")
	if err != nil {
		return err
	}
	pubs := []struct {
		n   *node.Node
		dst **node.Publisher
		top string
		typ string
		q   qos.Profile
	}{
		{jsb, &f.joints, TopicJointStates, typeJointState, qos.Default},
		{rsp, &f.description, TopicRobotDescription, typeString, qos.Latched},
		{rsp, &f.tf, TopicTF, typeTFMessage, tfQoS},
		{rsp, &f.tfStatic, TopicTFStatic, typeTFMessage, tfStaticQoS},
		{ddc, &f.odom, TopicOdom, typeOdometry, qos.Default},
		{self, &f.image, TopicCameraImage, typeImage, qos.Default},
		{self, &f.compressed, TopicCameraCompressed, typeCompressedImage, qos.Default},
	}
	for _, p := range pubs {
		if *p.dst, err = p.n.NewPublisher(relative(p.top), p.typ, p.q); err != nil {
			return fmt.Errorf("%s: %w", p.top, err)
		}
	}
	if f.cmdVel, err = ddc.NewSubscription(relative(TopicCmdVel), typeTwistStamped, qos.Default, node.SubscriptionOptions{}); err != nil {
		return fmt.Errorf("%s: %w", TopicCmdVel, err)
	}
	m := f.description.New()
	fl := fields{m: m}
	fl.set("data", f.r.Config().URDF)
	if fl.err != nil {
		return fl.err
	}
	if err := f.description.Publish(m); err != nil {
		return err
	}
	st := fields{m: f.tfStatic.New()}
	tfMessage(&st, f.r.StaticTransforms())
	if st.err != nil {
		return st.err
	}
	return f.tfStatic.Publish(st.m)
}

// publish hands the robot's periodic messages to their ROS 2 topics.
func (f *face) publish(ms []sim.Message) {
	for _, m := range ms {
		switch msg := m.(type) {
		case *sim.JointState:
			f.send(TopicJointStates, f.joints, func(fl *fields) { jointState(fl, msg) })
		case *sim.Odometry:
			f.send(TopicOdom, f.odom, func(fl *fields) { odometry(fl, msg) })
		case *sim.TFMessage:
			f.send(TopicTF, f.tf, func(fl *fields) { tfMessage(fl, msg) })
		case *sim.ActionResult:
			if b := f.bridges[msg.Action]; b != nil {
				b.result(msg.Status.ID.ID, simEnd{msg.Status.Status, msg.Status.Text, msg.Result})
			}
		case *sim.ActionFeedback:
			if b := f.bridges[msg.Action]; b != nil {
				b.feedback(msg.Status.ID.ID, msg.Feedback)
			}
		}
		// Status lists are the ROS 2 servers' own; the controller state
		// has no topic on ROS 2.
	}
}

// send fills a new message of p and publishes it; a failure is logged
// once per topic, since the same cause would repeat at every period.
func (f *face) send(topic string, p *node.Publisher, fill func(*fields)) {
	fl := fields{m: p.New()}
	fill(&fl)
	err := fl.err
	if err == nil {
		err = p.Publish(fl.m)
	}
	if err == nil {
		return
	}
	f.errMu.Lock()
	defer f.errMu.Unlock()
	if !f.failed[topic] {
		f.failed[topic] = true
		f.logf("ros2face: publish %s: %v", topic, err)
	}
}

func jointState(fl *fields, js *sim.JointState) {
	fl.stamp("header.stamp", js.Stamp)
	fl.set("header.frame_id", "")
	fl.set("name", js.Name)
	fl.set("position", js.Position)
	fl.set("velocity", js.Velocity)
	fl.set("effort", js.Effort)
}

func odometry(fl *fields, o *sim.Odometry) {
	fl.stamp("header.stamp", o.Stamp)
	fl.set("header.frame_id", o.Frame)
	fl.set("child_frame_id", o.ChildFrame)
	fl.point("pose.pose.position", o.Pose.Position)
	fl.quaternion("pose.pose.orientation", o.Pose.Orientation)
	fl.set("twist.twist.linear.x", o.Linear)
	fl.set("twist.twist.angular.z", o.Angular)
}

// takeCmdVel feeds every TwistStamped to the base; Robot.CmdVelStamped
// applies diff_drive_controller's stamp rules.
func (f *face) takeCmdVel(ctx context.Context) error {
	for {
		m, _, err := f.cmdVel.Take(ctx)
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, node.ErrClosed) {
				return nil
			}
			continue // an undecodable sample; the next one may be fine
		}
		stamp, _ := get(m, "header.stamp").(*cdr.Message)
		lin, _ := get(m, "twist.linear.x").(float64)
		ang, _ := get(m, "twist.angular.z").(float64)
		if stamp == nil {
			continue
		}
		f.r.CmdVelStamped(timeOf(stamp), lin, ang)
	}
}

// node returns the face's node name (in cfg.Namespace), made on first use.
func (f *face) node(name string) (*node.Node, error) {
	if n := f.nodes[name]; n != nil {
		return n, nil
	}
	n, err := f.ctx.NewNode(name, f.cfg.Namespace)
	if err != nil {
		return nil, err
	}
	f.nodes[name] = n
	return n, nil
}

// relative is one of the face's default names (/joint_states) as its
// node gives it, relative, so that the namespace applies; /tf and
// /tf_static stay absolute, as tf2_ros gives them (tfRemap moves them).
func relative(name string) string {
	if name == TopicTF || name == TopicTFStatic {
		return name
	}
	return strings.TrimPrefix(name, "/")
}

// resolve is the fully qualified name of a service or action name the
// face gives n: a default name made relative, or a private ~/name.
func resolve(n *node.Node, name string) (string, error) {
	return n.Resolve(relative(name), true)
}

// tfRemap is what a namespaced robot's launch files add to each node,
// ('/tf', 'tf') and ('/tf_static', 'tf_static'), so that its frame tree
// lives in its namespace: turtlebot4_description's
// robot_description.launch.py and nav2_bringup's launch files. None
// without a namespace.
func tfRemap(ns string) names.Remap {
	if ns == "/" {
		return nil
	}
	return names.Remap{
		{Kind: names.RemapName, From: TopicTF, To: strings.TrimPrefix(TopicTF, "/")},
		{Kind: names.RemapName, From: TopicTFStatic, To: strings.TrimPrefix(TopicTFStatic, "/")},
	}
}

// actions starts the action servers, each on its controller's node.
func (f *face) actions() error {
	type served struct {
		node, name, typ, short string
		conv                   converter
	}
	list := []served{
		{"joint_trajectory_controller", ArmAction, typeFJT, sim.Arm, trajectory{f: f, distro: f.cfg.Distro}},
	}
	grip := served{"gripper_controller", GripperAction, typeGripperCommand, sim.Gripper, gripperCommand{f}}
	if f.cfg.Distro == msgs.Kilted || f.cfg.Distro == msgs.Lyrical {
		grip.typ, grip.conv = typeParallel, parallelGripper{f: f, joint: f.r.Config().GripperJoint}
	}
	nav := navigate{f: f, checkFrame: f.cfg.Distro == msgs.Lyrical}
	list = append(list, grip, served{"bt_navigator", NavigateAction, typeNavigate, sim.MoveBase, nav})
	if f.r.Arm2Joints() != nil {
		list = append(list, served{"arm2_controller", Arm2Action, typeFJT, sim.Arm2, trajectory{f: f, arm2: true, distro: f.cfg.Distro}})
	}
	for _, s := range list {
		n, err := f.node(s.node)
		if err != nil {
			return err
		}
		full, err := resolve(n, s.name)
		if err != nil {
			return err
		}
		b, err := f.newGoalBridge(n, full, s.typ, s.short, s.conv)
		if err != nil {
			return err
		}
		f.bridges[s.short] = b
	}
	return nil
}

func (f *face) closeServers() {
	for _, b := range f.bridges {
		b.srv.Close()
	}
	for _, s := range f.servers {
		s.Close()
	}
	for _, s := range f.paramServers {
		s.Close()
	}
}
