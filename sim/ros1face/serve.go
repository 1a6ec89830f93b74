package ros1face

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net/http"
	"sync"
	"time"

	"github.com/bluenviron/goroslib/v2"
	"github.com/bluenviron/goroslib/v2/pkg/apiparam"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/actionlib_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/control_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/geometry_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/nav_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/sensor_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_srvs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/tf2_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/xmlrpc"

	"github.com/actbridge/actbridge/msgs/ros1"
	"github.com/actbridge/actbridge/ros1/roslink"
	"github.com/actbridge/actbridge/sim"
)

// The names a gazebo_ros_control robot with these controllers offers;
// the actions are the sim's (sim.ArmAction, …).
const (
	TopicJointStates = "/joint_states"
	TopicArmState    = "/arm_controller/state"
	TopicArm2State   = "/arm2_controller/state"
	TopicCmdVel      = "/cmd_vel"
	TopicOdom        = "/odom"
	TopicTF          = "/tf"
	TopicTFStatic    = "/tf_static"
)

// Parameters the sim sets on every (re)connection.
const (
	ParamRobotDescription = "/robot_description"
	// ParamJointLimits holds joint_limits.yaml, one parameter per key:
	// /robot_description_planning/joint_limits/<joint>/max_velocity.
	ParamJointLimits = "/robot_description_planning/joint_limits"
	ParamArmJoints   = "/arm_controller/joints"
)

// ServeConfig is how Serve presents a robot on ROS.
type ServeConfig struct {
	Env  roslink.Env
	Name string // node name; faults live under /<Name>/faults, services under /<Name>/
	// JointLimitsYAML is set under ParamJointLimits; DefaultJointLimits if empty.
	JointLimitsYAML string
	// WaitForMaster keeps Serve retrying until a master answers.
	WaitForMaster bool
	// Exit is called for the exit_code fault; nil makes that fault an error.
	Exit func(code int)
	// Ready, if set, is called once the node is registered the first time.
	Ready func()
	Logf  func(format string, args ...any)
}

// Serve runs r on ROS until ctx ends: it registers a node (again after each
// master restart), steps the robot in paced simulated time and publishes
// what it produces. It returns nil when ctx ends, or the error that stopped it.
func Serve(ctx context.Context, r *sim.Robot, cfg ServeConfig) error {
	if cfg.Name == "" {
		cfg.Name = "simrobot"
	}
	if cfg.JointLimitsYAML == "" {
		cfg.JointLimitsYAML = sim.DefaultJointLimits
	}
	if cfg.Logf == nil {
		cfg.Logf = log.Printf
	}
	if cfg.Env.MasterAddress == "" {
		env, err := roslink.EnvFrom(func(string) string { return "" })
		if err != nil {
			return err
		}
		cfg.Env = env
	}
	limits, err := flattenJointLimits(cfg.JointLimitsYAML)
	if err != nil {
		return err
	}
	s := &server{r: r, cfg: cfg, limits: limits, exit: make(chan int, 1)}
	link, err := roslink.Open(ctx, roslink.Config{Env: cfg.Env, Name: cfg.Name, WaitForMaster: cfg.WaitForMaster, Logf: cfg.Logf}, s.setup)
	if err != nil {
		return err
	}
	defer func() {
		if err := link.Close(); err != nil {
			cfg.Logf("simrobot: %v", err)
		}
	}()
	if cfg.Ready != nil {
		cfg.Ready()
	}

	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = r.Run(runCtx, s.publish)
	}()
	defer func() { stop(); <-done }()
	camDone := make(chan struct{})
	go func() {
		defer close(camDone)
		s.runCamera(runCtx)
	}()
	defer func() { stop(); <-camDone }()

	select {
	case <-ctx.Done():
		return nil
	case code := <-s.exit:
		// Give goroslib a moment to write apply_faults' answer.
		select {
		case <-time.After(200 * time.Millisecond):
		case <-ctx.Done():
			return nil
		}
		cfg.Exit(code)
		return nil
	}
}

// server is one Serve's ROS side; setup runs once per node incarnation.
type server struct {
	r      *sim.Robot
	cfg    ServeConfig
	limits []limitParam
	exit   chan int

	mu   sync.RWMutex
	sink *sink
	acc  accessState // the services of access.go
}

// sink is one node incarnation's publishers, by topic.
type sink struct {
	pubs map[string]*goroslib.Publisher
}

// publish writes the robot's messages on their ROS 1 topics.
func (s *server) publish(ms []sim.Message) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.sink == nil {
		return
	}
	for _, m := range ms {
		s.writeLocked(wire(m))
	}
}

// write publishes ROS 1 messages on their topics.
func (s *server) write(ws []wireMsg) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.sink != nil {
		s.writeLocked(ws)
	}
}

func (s *server) writeLocked(ws []wireMsg) {
	for _, w := range ws {
		if p := s.sink.pubs[w.topic]; p != nil {
			p.Write(w.msg)
		}
	}
}

type closer interface{ Close() }

func (s *server) setup(n *goroslib.Node) (teardown func(), err error) {
	var closers []closer
	teardownAll := func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i].Close()
		}
	}
	defer func() {
		if err != nil {
			teardownAll()
		}
	}()
	if err := s.setParams(n); err != nil {
		return nil, err
	}

	sk := &sink{pubs: map[string]*goroslib.Publisher{}}
	pub := func(topic string, msg any, latch bool) error {
		p, err := goroslib.NewPublisher(goroslib.PublisherConf{Node: n, Topic: topic, Msg: msg, Latch: latch})
		if err != nil {
			return fmt.Errorf("publish %s: %w", topic, err)
		}
		closers = append(closers, p)
		sk.pubs[topic] = p
		return nil
	}
	pubs := []struct {
		topic string
		msg   any
	}{
		{TopicJointStates, &sensor_msgs.JointState{}},
		{TopicArmState, &control_msgs.JointTrajectoryControllerState{}},
		{TopicOdom, &nav_msgs.Odometry{}},
		{TopicTF, &tf2_msgs.TFMessage{}},
		{sim.ArmAction + "/status", &actionlib_msgs.GoalStatusArray{}},
		{sim.ArmAction + "/feedback", &msgs.FollowJointTrajectoryActionFeedback{}},
		{sim.ArmAction + "/result", &msgs.FollowJointTrajectoryActionResult{}},
		{sim.GripperAction + "/status", &actionlib_msgs.GoalStatusArray{}},
		{sim.GripperAction + "/feedback", &msgs.GripperCommandActionFeedback{}},
		{sim.GripperAction + "/result", &msgs.GripperCommandActionResult{}},
		{sim.MoveBaseAction + "/status", &actionlib_msgs.GoalStatusArray{}},
		{sim.MoveBaseAction + "/feedback", &msgs.MoveBaseActionFeedback{}},
		{sim.MoveBaseAction + "/result", &msgs.MoveBaseActionResult{}},
		{TopicCameraImage, &sensor_msgs.Image{}},
		{TopicCameraCompressed, &sensor_msgs.CompressedImage{}},
	}
	if s.r.Arm2Joints() != nil {
		pubs = append(pubs, []struct {
			topic string
			msg   any
		}{
			{TopicArm2State, &control_msgs.JointTrajectoryControllerState{}},
			{sim.Arm2Action + "/status", &actionlib_msgs.GoalStatusArray{}},
			{sim.Arm2Action + "/feedback", &msgs.FollowJointTrajectoryActionFeedback{}},
			{sim.Arm2Action + "/result", &msgs.FollowJointTrajectoryActionResult{}},
		}...)
	}
	for _, p := range pubs {
		if err := pub(p.topic, p.msg, false); err != nil {
			return nil, err
		}
	}
	if err := pub(TopicTFStatic, &tf2_msgs.TFMessage{}, true); err != nil {
		return nil, err
	}
	sk.pubs[TopicTFStatic].Write(tfMessage(s.r.StaticTransforms()))
	s.mu.Lock()
	s.sink = sk
	s.mu.Unlock()
	closers = append(closers, closeFunc(func() {
		s.mu.Lock()
		if s.sink == sk {
			s.sink = nil
		}
		s.mu.Unlock()
	}))

	sub := func(topic string, cb any) error {
		sb, err := goroslib.NewSubscriber(goroslib.SubscriberConf{Node: n, Topic: topic, Callback: cb, QueueSize: 100})
		if err != nil {
			return fmt.Errorf("subscribe %s: %w", topic, err)
		}
		closers = append(closers, sb)
		return nil
	}
	r := s.r
	subs := []struct {
		topic string
		cb    any
	}{
		{sim.ArmAction + "/goal", func(m *msgs.FollowJointTrajectoryActionGoal) { r.ArmGoal(goalID(m.GoalId), trajectoryGoal(m.Goal)) }},
		{sim.ArmAction + "/cancel", func(m *actionlib_msgs.GoalID) { _ = r.Cancel(sim.Arm, goalID(*m)) }},
		{sim.GripperAction + "/goal", func(m *msgs.GripperCommandActionGoal) { r.GripperGoal(goalID(m.GoalId), gripperGoal(m.Goal)) }},
		{sim.GripperAction + "/cancel", func(m *actionlib_msgs.GoalID) { _ = r.Cancel(sim.Gripper, goalID(*m)) }},
		{sim.MoveBaseAction + "/goal", func(m *msgs.MoveBaseActionGoal) { r.NavigateGoal(goalID(m.GoalId), poseStamped(m.Goal.TargetPose)) }},
		{sim.MoveBaseAction + "/cancel", func(m *actionlib_msgs.GoalID) { _ = r.Cancel(sim.MoveBase, goalID(*m)) }},
		{TopicCmdVel, func(m *geometry_msgs.Twist) { r.CmdVel(m.Linear.X, m.Angular.Z) }},
	}
	if r.Arm2Joints() != nil {
		subs = append(subs, []struct {
			topic string
			cb    any
		}{
			{sim.Arm2Action + "/goal", func(m *msgs.FollowJointTrajectoryActionGoal) { r.Arm2Goal(goalID(m.GoalId), trajectoryGoal(m.Goal)) }},
			{sim.Arm2Action + "/cancel", func(m *actionlib_msgs.GoalID) { _ = r.Cancel(sim.Arm2, goalID(*m)) }},
		}...)
	}
	for _, sb := range subs {
		if err := sub(sb.topic, sb.cb); err != nil {
			return nil, err
		}
	}

	services := []struct {
		name string
		cb   func() (string, error)
	}{
		{"apply_faults", s.applyFaults(n)},
		{"clear_faults", s.clearFaults(n)},
		{"goals", s.goals},
		{"collisions", s.collisions},
	}
	for _, sv := range services {
		cb := sv.cb
		sp, err := goroslib.NewServiceProvider(goroslib.ServiceProviderConf{
			Node: n, Name: "/" + s.cfg.Name + "/" + sv.name, Srv: &std_srvs.Trigger{},
			Callback: func(*std_srvs.TriggerReq) (*std_srvs.TriggerRes, bool) {
				msg, err := cb()
				if err != nil {
					return &std_srvs.TriggerRes{Success: false, Message: err.Error()}, true
				}
				return &std_srvs.TriggerRes{Success: true, Message: msg}, true
			},
		})
		if err != nil {
			return nil, fmt.Errorf("service %s: %w", sv.name, err)
		}
		closers = append(closers, sp)
	}
	access, err := s.setupAccess(n)
	if err != nil {
		return nil, err
	}
	closers = append(closers, access...)
	return teardownAll, nil
}

type closeFunc func()

func (f closeFunc) Close() { f() }

func goalID(g actionlib_msgs.GoalID) sim.GoalID { return sim.GoalID{ID: g.Id, Stamp: g.Stamp} }

// FaultsPrefix is where Serve reads faults for a node name.
func FaultsPrefix(node string) string { return "/" + node + "/faults" }

// applyFaults reads /<name>/faults/... and puts them in force. It answers
// with the faults as JSON, keyed like FaultParams.
func (s *server) applyFaults(n *goroslib.Node) func() (string, error) {
	return func() (string, error) {
		f, err := sim.ReadFaults(nodeParams{n}, FaultsPrefix(s.cfg.Name))
		if err != nil {
			return "", err
		}
		if f.ExitCode != nil && s.cfg.Exit == nil {
			return "", errors.New("exit_code fault: this robot cannot exit (no Exit handler)")
		}
		s.r.SetFaults(f)
		b, err := json.Marshal(f.Params())
		if err != nil {
			return "", err
		}
		if f.ExitCode != nil {
			select {
			case s.exit <- *f.ExitCode:
			default:
			}
			s.cfg.Logf("simrobot: exit_code fault: exiting with %d", *f.ExitCode)
		} else {
			s.cfg.Logf("simrobot: faults applied: %s", b)
		}
		return string(b), nil
	}
}

// clearFaults heals the robot and deletes /<name>/faults so that a later
// apply_faults starts from nothing.
func (s *server) clearFaults(n *goroslib.Node) func() (string, error) {
	return func() (string, error) {
		s.r.SetFaults(sim.Faults{})
		c := apiparam.NewClient(s.cfg.Env.MasterAddress, "/"+s.cfg.Name, &http.Client{Timeout: 5 * time.Second})
		if ok, err := n.ParamIsSet(FaultsPrefix(s.cfg.Name)); err == nil && ok {
			if err := c.DeleteParam(FaultsPrefix(s.cfg.Name)); err != nil {
				return "", fmt.Errorf("faults cleared, but deleting %s failed: %w", FaultsPrefix(s.cfg.Name), err)
			}
		}
		s.cfg.Logf("simrobot: faults cleared")
		return "{}", nil
	}
}

func (s *server) goals() (string, error) {
	b, err := json.Marshal(s.r.Goals())
	return string(b), err
}

func (s *server) collisions() (string, error) {
	b, err := json.Marshal(s.r.Collisions())
	return string(b), err
}

// nodeParams reads parameters through roslink's typed getters.
type nodeParams struct{ n *goroslib.Node }

func (p nodeParams) Param(key, kind string) (any, bool, error) {
	ok, err := roslink.HasParam(p.n, key)
	if err != nil || !ok {
		return nil, false, err
	}
	// The master answers with the stored type; try the wanted one first.
	getters := map[string]func() (any, error){
		"bool":  func() (any, error) { return roslink.GetParamBool(p.n, key) },
		"int":   func() (any, error) { return roslink.GetParamInt(p.n, key) },
		"float": func() (any, error) { return roslink.GetParamFloat64(p.n, key) },
	}
	order := map[string][]string{"bool": {"bool", "int"}, "int": {"int", "float"}, "float": {"float", "int"}}[kind]
	var firstErr error
	for _, k := range order {
		v, err := getters[k]()
		if err == nil {
			return v, true, nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	return nil, true, fmt.Errorf("%s: %w: want %s: %v", key, sim.ErrFaultParam, kind, firstErr)
}

// limitParam is one joint_limits.yaml value as a parameter.
type limitParam struct {
	key   string
	value any // bool, int or float64
}

// flattenJointLimits turns joint_limits.yaml into one parameter per value.
func flattenJointLimits(doc string) ([]limitParam, error) {
	ls, err := sim.ParseJointLimits(doc)
	if err != nil {
		return nil, err
	}
	out := make([]limitParam, len(ls))
	for i, l := range ls {
		out[i] = limitParam{ParamJointLimits + "/" + l.Joint + "/" + l.Key, l.Value}
	}
	return out, nil
}

// setParams publishes the robot's description the way a ros_control robot's
// launch file does. A restarted master has none of them.
func (s *server) setParams(n *goroslib.Node) error {
	cfg := s.r.Config()
	if err := roslink.SetParamString(n, ParamRobotDescription, cfg.URDF); err != nil {
		return fmt.Errorf("set %s: %w", ParamRobotDescription, err)
	}
	for _, p := range s.limits {
		var err error
		switch v := p.value.(type) {
		case bool:
			err = roslink.SetParamBool(n, p.key, v)
		case int:
			err = roslink.SetParamInt(n, p.key, v)
		case float64:
			err = roslink.SetParamFloat64(n, p.key, v)
		}
		if err != nil {
			return fmt.Errorf("set %s: %w", p.key, err)
		}
	}
	floats := map[string]float64{}
	controllers := map[string][]string{"/arm_controller": s.r.ArmJoints()}
	if s.r.Arm2Joints() != nil {
		controllers["/arm2_controller"] = s.r.Arm2Joints()
	}
	for ctrl, joints := range controllers {
		if err := setStringList(s.cfg.Env.MasterAddress, "/"+s.cfg.Name, ctrl+"/joints", joints); err != nil {
			return fmt.Errorf("set %s/joints: %w", ctrl, err)
		}
		floats[ctrl+"/constraints/goal_time"] = cfg.GoalTime.Seconds()
		floats[ctrl+"/constraints/stopped_velocity_tolerance"] = 0
		for _, j := range joints {
			floats[ctrl+"/constraints/"+j+"/trajectory"] = cfg.PathTolerance
			floats[ctrl+"/constraints/"+j+"/goal"] = cfg.GoalTolerance
		}
	}
	for k, v := range floats {
		if err := roslink.SetParamFloat64(n, k, v); err != nil {
			return fmt.Errorf("set %s: %w", k, err)
		}
	}
	return nil
}

// setStringList sets a list parameter, which goroslib's API cannot.
func setStringList(master, caller, key string, vals []string) error {
	req := struct {
		CallerID string
		Key      string
		Value    []string
	}{caller, key, vals}
	var res struct {
		Code          int
		StatusMessage string
		Ignore        int
	}
	c := xmlrpc.NewClient(master, &http.Client{Timeout: 5 * time.Second})
	if err := c.Do("setParam", req, &res); err != nil {
		return err
	}
	if res.Code != 1 {
		return fmt.Errorf("master: code %d: %s", res.Code, res.StatusMessage)
	}
	return nil
}
