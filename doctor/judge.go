package doctor

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/config"
	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/ros2/graph"
	"github.com/actbridge/actbridge/ros2/node"
	"github.com/actbridge/actbridge/ros2/qos"
	"github.com/actbridge/actbridge/urdf"
)

// MaxClockSkew is how far the robot's header stamps may be from this
// machine's clock (transport delay included) before the clock check
// fails, unless Facts.MaxClockSkew says otherwise: previews, status and
// transforms compare them.
const MaxClockSkew = time.Second

// ClockTopic is where a simulator or a bag player publishes simulated time.
const ClockTopic = "/clock"

// Judge turns facts into the report's checks, in a fixed order: the
// graph, each actuator (served, one source), each state topic (present,
// type, QoS, type hashes), the TF topic a fence needs, the robot
// description, the clock.
func Judge(cfg *config.Config, f Facts) Report {
	j := judge{cfg: cfg, f: f, r: Report{Where: f.Where}}
	j.reachable()
	for _, a := range cfg.Actuators {
		j.actuator(a)
	}
	for _, t := range stateTopics(cfg) {
		j.stateTopic(t)
	}
	if f.ROS2 != nil {
		j.cmdVel()
	}
	j.tfTopic()
	j.description()
	j.clock()
	return j.r
}

type judge struct {
	cfg *config.Config
	f   Facts
	r   Report
}

func (j *judge) add(name string, ok bool, detail, fix string) {
	c := Check{Name: name, Status: Pass, Detail: detail}
	if !ok {
		c.Status, c.Fix = Fail, fix
	}
	j.r.Checks = append(j.r.Checks, c)
}

func (j *judge) skip(name, why string) {
	j.r.Checks = append(j.r.Checks, Check{Name: name, Status: Skip, Detail: why})
}

func (j *judge) ros2() bool { return j.f.ROS2 != nil }

func (j *judge) reachable() {
	fix := "check ROS_DOMAIN_ID (domain_id), the discovery range (discovery_range, ROS_AUTOMATIC_DISCOVERY_RANGE) and the network"
	if !j.ros2() {
		fix = "start roscore, or point ROS_MASTER_URI (and ROS_HOSTNAME/ROS_IP) at the robot's master"
	}
	if j.f.Advice != "" {
		fix = j.f.Advice
	}
	j.add("robot graph reachable", j.f.Reachable, j.f.Advice, fix)
}

// actuator checks that the transport found the actuator's server (or a
// drive's subscriber) and, over ROS 2, exactly one of each source.
func (j *judge) actuator(a config.ActuatorConfig) {
	st, ok := statusOf(j.f.Actuators, a.Name)
	what := a.Action
	if what == "" {
		what = a.CmdVelTopic
	}
	fix := fmt.Sprintf("start the controller that serves %s, or correct actuator %s's action in the config", what, a.Name)
	if j.ros2() {
		fix += " (actbridge ros2 actions lists what the robot serves)"
	}
	j.add(fmt.Sprintf("%s: %s served", a.Name, what), ok && st.Connected, st.Detail, fix)
	if !j.ros2() {
		j.ros1Sources(a)
		return
	}
	j.add(a.Name+": one server and one state publisher", st.Ambiguous == "", st.Ambiguous,
		"stop the extra servers or publishers, or name the one to use: server_node (the action's) or state_node (the state topic's) in actuator "+a.Name)
	if a.Action == "" {
		return
	}
	t, ok := j.f.ROS2.Graph.Topic(actionFeedback(a.Action))
	if !ok || len(t.Publishers) == 0 {
		return
	}
	if want, ok := j.f.ROS2.ActionTypes[a.Name]; ok {
		var wrong []string
		for _, p := range t.Publishers {
			if got := strings.TrimSuffix(p.Type, feedbackType); got != want {
				wrong = append(wrong, fmt.Sprintf("%s serves %s", nodeName(p), got))
			}
		}
		fix := fmt.Sprintf("point actuator %s at an action of type %s", a.Name, want)
		if a.Kind == actuators.KindGripper {
			fix += ", or set its action_type to the controller's (" + config.GripperActionCommand + " or " + config.GripperActionParallel + ")"
		}
		j.add(fmt.Sprintf("%s: %s type %s", a.Name, a.Action, want), len(wrong) == 0, strings.Join(wrong, "; "), fix)
	}
	j.typeHashes(a.Name+": "+a.Action+" type hash", t.Publishers)
}

// feedbackType ends the type of an action's feedback topic.
const feedbackType = "_FeedbackMessage"

// ros1Sources counts, from the master, the nodes publishing the action's
// status (its servers) and the actuator's state topic: ROS 1 has no key
// to pick one, so more than one fails.
func (j *judge) ros1Sources(a config.ActuatorConfig) {
	name := a.Name + ": one server and one state publisher"
	switch {
	case j.f.PublishersErr != nil:
		j.skip(name, j.f.PublishersErr.Error())
		return
	case j.f.Publishers == nil:
		j.skip(name, "the master's publishers were not read")
		return
	}
	var topics []string
	if a.Action != "" {
		topics = append(topics, a.Action+"/status")
	}
	for _, t := range []string{a.JointStatesTopic, a.OdomTopic} {
		if t != "" {
			topics = append(topics, t)
		}
	}
	var many []string
	for _, t := range topics {
		if nodes := j.f.Publishers[t]; len(nodes) > 1 {
			many = append(many, fmt.Sprintf("%s is published by %s", t, strings.Join(nodes, ", ")))
		}
	}
	j.add(name, len(many) == 0, strings.Join(many, "; "),
		"stop the extra nodes: over ROS 1 the bridge cannot tell them apart (server_node and state_node are ROS 2 keys)")
}

func statusOf(ss []actuators.ActuatorStatus, name string) (actuators.ActuatorStatus, bool) {
	i := slices.IndexFunc(ss, func(s actuators.ActuatorStatus) bool { return s.Name == name })
	if i < 0 {
		return actuators.ActuatorStatus{}, false
	}
	return ss[i], true
}

// stateTopic is a topic the bridge reads an actuator's state from.
type stateTopic struct {
	name, role string
	typ        string // ROS 2 form: sensor_msgs/msg/JointState
	qos        config.QoSOverride
	actuators  []string
}

// stateTopics are the configured joint states and odometry topics, each
// once, in config order.
func stateTopics(cfg *config.Config) []stateTopic {
	var out []stateTopic
	add := func(a config.ActuatorConfig, topic, role, typ string) {
		if topic == "" {
			return
		}
		i := slices.IndexFunc(out, func(t stateTopic) bool { return t.name == topic })
		if i < 0 {
			out = append(out, stateTopic{name: topic, role: role, typ: typ, qos: a.QoS[role]})
			i = len(out) - 1
		}
		out[i].actuators = append(out[i].actuators, a.Name)
	}
	for _, a := range cfg.Actuators {
		if a.Kind == actuators.KindBase {
			add(a, a.OdomTopic, config.QoSOdom, "nav_msgs/msg/Odometry")
		} else {
			add(a, a.JointStatesTopic, config.QoSJointStates, "sensor_msgs/msg/JointState")
		}
	}
	return out
}

// rosType drops the "msg/" ROS 2 puts in a type name, so ROS 1's and
// ROS 2's forms compare.
func rosType(t string) string { return strings.Replace(t, "/msg/", "/", 1) }

func (j *judge) stateTopic(t stateTopic) {
	users := strings.Join(t.actuators, ", ")
	present := fmt.Sprintf("%s published (%s)", t.name, users)
	fix := fmt.Sprintf("start the node that publishes %s (joint_state_broadcaster, the base controller), or correct %s_topic of %s in the config", t.name, t.role, users)
	if !j.ros2() {
		if j.f.TopicsErr != nil {
			j.skip(present, j.f.TopicsErr.Error())
			return
		}
		i := slices.IndexFunc(j.f.Topics, func(ti actuators.TopicInfo) bool { return ti.Name == t.name })
		j.add(present, i >= 0, "", fix)
		if i >= 0 {
			got := j.f.Topics[i].Type
			j.add(t.name+" type "+rosType(t.typ), rosType(got) == rosType(t.typ), "published as "+got,
				fmt.Sprintf("publish %s on %s, or point the config at the topic that carries it", rosType(t.typ), t.name))
		}
		return
	}
	topic, _ := j.f.ROS2.Graph.Topic(t.name)
	pubs := topic.Publishers
	j.add(present, len(pubs) > 0, "", fix)
	if len(pubs) == 0 {
		return
	}
	var wrong []string
	for _, p := range pubs {
		if p.Type != t.typ {
			wrong = append(wrong, fmt.Sprintf("%s publishes %s", nodeName(p), p.Type))
		}
	}
	j.add(t.name+" type "+t.typ, len(wrong) == 0, strings.Join(wrong, "; "),
		fmt.Sprintf("publish %s on %s, or point the config at the topic that carries it", t.typ, t.name))
	// The transport reads state as sensor data (best effort), changed
	// by the actuator's qos override (ros2/odom.go's takeNewest).
	requested := qos.SensorData
	if t.qos != (config.QoSOverride{}) {
		if p, err := qos.Override(t.qos).Apply(requested); err == nil {
			requested = p
		}
	}
	var why []string
	for _, p := range pubs {
		if r := node.QoSIncompatibility(p.QoS, requested.QoS); r != "" {
			why = append(why, fmt.Sprintf("%s %s", nodeName(p), r))
		}
	}
	j.add(t.name+" QoS compatible", len(why) == 0, strings.Join(why, "; "),
		fmt.Sprintf("change qos.%s of %s in the config to what the publisher offers (actbridge ros2 topics --json shows it), or the publisher's QoS", t.role, users))
	j.typeHashes(t.name+" type hash", pubs)
}

// cmdVel checks that each configured cmd_vel subscriber accepts what the
// bridge offers: the default profile, changed by qos.cmd_vel
// (ros2/drive.go).
func (j *judge) cmdVel() {
	for _, a := range j.cfg.Actuators {
		if a.CmdVelTopic == "" {
			continue
		}
		offered := qos.Default
		if o, ok := a.QoS[config.QoSCmdVel]; ok {
			if p, err := qos.Override(o).Apply(offered); err == nil {
				offered = p
			}
		}
		t, _ := j.f.ROS2.Graph.Topic(a.CmdVelTopic)
		var why []string
		for _, s := range t.Subscribers {
			if r := node.QoSIncompatibility(offered.QoS, s.QoS); r != "" {
				why = append(why, fmt.Sprintf("%s %s", nodeName(s), r))
			}
		}
		j.add(a.CmdVelTopic+" QoS compatible", len(why) == 0, strings.Join(why, "; "),
			fmt.Sprintf("change qos.cmd_vel of %s in the config to what the base controller requests, or the controller's QoS", a.Name))
	}
}

// namespacedTF is the frame tree the fenced bases' own namespace
// publishes: the nearest <ns>/tf published above an odometry topic ("" if
// none), as a namespaced robot remaps /tf into its namespace.
func namespacedTF(bases []config.ActuatorConfig, published []string) string {
	for _, a := range bases {
		ns := a.OdomTopic
		for {
			i := strings.LastIndex(ns, "/")
			if i <= 0 {
				break
			}
			ns = ns[:i]
			if slices.Contains(published, ns+"/tf") {
				return ns + "/tf"
			}
		}
	}
	return ""
}

// tfTopic checks, when a base is fenced outside its odometry's frame, that
// tf_topic is published; when it is not, the detail names the topics that
// look like a frame tree (a namespaced robot's /robot1/tf), and the fix
// says to set tf_topic to it. A base whose odometry is in a namespace that
// publishes its own <ns>/tf fails while tf_topic is another (another
// robot's /tf on a shared domain).
func (j *judge) tfTopic() {
	var fenced []string
	var bases []config.ActuatorConfig
	link := "" // the first fenced base's odom_frame→fence frame
	for _, a := range j.cfg.Actuators {
		if a.Geofence != nil && strings.TrimLeft(a.Geofence.Frame, "/") != strings.TrimLeft(a.OdomFrame, "/") {
			fenced, bases = append(fenced, a.Name), append(bases, a)
			link = cmp.Or(link, a.OdomFrame+"→"+a.Geofence.Frame)
		}
	}
	if len(fenced) == 0 {
		return
	}
	name := fmt.Sprintf("%s published (fence of %s)", j.cfg.TFTopic, strings.Join(fenced, ", "))
	var published []string
	if j.ros2() {
		for _, t := range j.f.ROS2.Graph.Topics {
			if len(t.Publishers) > 0 {
				published = append(published, t.Name)
			}
		}
	} else {
		if j.f.TopicsErr != nil {
			j.skip(name, j.f.TopicsErr.Error())
			return
		}
		for _, t := range j.f.Topics {
			published = append(published, t.Name)
		}
	}
	if own := namespacedTF(bases, published); own != "" && own != j.cfg.TFTopic {
		// The default /tf may be another robot's on a shared domain.
		j.add(name, false, fmt.Sprintf("the base's topics are in %s's namespace, which has its own frame tree: %s published; tf_topic is %s", strings.TrimSuffix(own, "/tf"), own, j.cfg.TFTopic),
			fmt.Sprintf("set tf_topic: %s and tf_static_topic: %s_static: the fence would be checked against another frame tree", own, own))
		return
	}
	if slices.Contains(published, j.cfg.TFTopic) {
		j.add(name, true, "", "")
		return
	}
	var others []string
	for _, t := range published {
		if strings.HasSuffix(t, "/tf") {
			others = append(others, t)
		}
	}
	detail, fix := "", "start the robot's localisation (it publishes "+link+" on "+j.cfg.TFTopic+"), or fence in the odometry's frame"
	if len(others) > 0 {
		detail = strings.Join(others, ", ") + " published"
		fix = fmt.Sprintf("set tf_topic (and tf_static_topic) to the robot's frame tree, e.g. tf_topic: %s and tf_static_topic: %s_static (a namespaced robot publishes them in its namespace)", others[0], others[0])
	}
	j.add(name, false, detail, fix)
}

func nodeName(e graph.Endpoint) string {
	if e.Node == "" {
		return "a participant without a node (" + graph.VendorName(e.Vendor) + ")"
	}
	return e.Node
}

// typeHashes checks the type hashes the endpoints announce against the
// config's distro's definitions, and names the distro they match.
func (j *judge) typeHashes(name string, eps []graph.Endpoint) {
	d := j.f.ROS2.Distro
	name = fmt.Sprintf("%s (%s definitions)", name, d)
	var bad []string
	matches := map[msgs.Distro]bool{}
	announced := 0
	for _, e := range eps {
		if e.TypeHash == "" {
			continue
		}
		announced++
		want, err := hashOf(d, e.Type)
		if err != nil {
			bad = append(bad, fmt.Sprintf("%s: %s is not a %s type", nodeName(e), e.Type, d))
			continue
		}
		if e.TypeHash != want {
			bad = append(bad, fmt.Sprintf("%s announces %s as %s, %s's is %s", nodeName(e), e.Type, e.TypeHash, d, want))
			for _, other := range msgs.Distros() {
				if h, err := hashOf(other, e.Type); err == nil && h == e.TypeHash {
					matches[other] = true
				}
			}
		}
	}
	switch {
	case announced == 0 && d == msgs.Humble:
		j.skip(name, "Humble announces no type hashes")
		return
	case announced == 0:
		j.skip(name, "no endpoint announces a type hash (a Humble robot? then set distro: humble)")
		return
	}
	fix := "build the robot against the same message definitions, or set the config's distro to the robot's ROS_DISTRO"
	var ds []string
	for _, other := range msgs.Distros() {
		if matches[other] {
			ds = append(ds, string(other))
		}
	}
	if len(ds) > 0 {
		fix = fmt.Sprintf("the robot's definitions are %s's: set distro: %s in the config (or run the robot on %s)", strings.Join(ds, " or "), ds[0], d)
	}
	j.add(name, len(bad) == 0, strings.Join(bad, "; "), fix)
}

func hashOf(d msgs.Distro, typ string) (string, error) {
	set, err := msgs.Load(d)
	if err != nil {
		return "", err
	}
	return set.TypeHash(typ)
}

// actionFeedback is where an action's types show: its feedback topic.
func actionFeedback(action string) string { return action + "/_action/feedback" }

func (j *judge) description() {
	const name = "robot description read"
	src := j.cfg.DescriptionParam
	if src == "" {
		src = "/robot_description"
	}
	if j.f.URDFErr != nil {
		j.add(name, false, j.f.URDFErr.Error(), fmt.Sprintf("publish the URDF on %s (robot_state_publisher), or set robot_description_param to where it is", src))
		return
	}
	u, err := urdf.Parse([]byte(j.f.URDF))
	if err != nil {
		j.add(name, false, err.Error(), "fix the robot's URDF (check_urdf reads it)")
		return
	}
	j.add(name, true, "", "")
	var missing []string
	for _, a := range j.cfg.Actuators {
		for _, jn := range a.Joints {
			if jt, ok := u.Joint(jn); !ok || jt.Type == urdf.Fixed {
				missing = append(missing, a.Name+"'s "+jn)
			}
		}
	}
	detail := ""
	if len(missing) > 0 {
		detail = "no movable joint in the URDF for " + strings.Join(missing, ", ")
	}
	j.add("URDF covers the configured joints", len(missing) == 0, detail,
		"name the URDF's joints in the actuators' joints (or publish the robot's own URDF)")
}

// clock checks /clock against use_sim_time, then the state topics'
// stamps against this machine's clock when the robot runs on wall time.
func (j *judge) clock() {
	if !j.ros2() {
		j.skip("clock", "not read over ROS 1")
		return
	}
	f := j.f.ROS2
	t, _ := f.Graph.Topic(ClockTopic)
	clockPubs := len(t.Publishers)
	var simNodes, wallNodes []string
	for _, n := range sortedKeys(f.UseSimTime) {
		if f.UseSimTime[n] {
			simNodes = append(simNodes, n)
		} else {
			wallNodes = append(wallNodes, n)
		}
	}
	const name = "/clock and use_sim_time agree"
	switch {
	case clockPubs > 0 && len(wallNodes) > 0:
		j.add(name, false, fmt.Sprintf("%s is published, and %s use wall time (use_sim_time false)", ClockTopic, strings.Join(wallNodes, ", ")),
			"set use_sim_time true on the robot's nodes, or stop what publishes /clock")
	case clockPubs == 0 && len(simNodes) > 0:
		j.add(name, false, fmt.Sprintf("%s use sim time and nothing publishes %s: their time stands still", strings.Join(simNodes, ", "), ClockTopic),
			"start the simulator or bag player that publishes /clock, or set use_sim_time false")
	case len(simNodes)+len(wallNodes) == 0:
		j.skip(name, "no action server answered for use_sim_time")
	default:
		j.add(name, true, "", "")
	}
	simTime := clockPubs > 0 || len(simNodes) > 0
	maxSkew := j.f.MaxClockSkew
	if maxSkew <= 0 {
		maxSkew = MaxClockSkew
	}
	for _, st := range stateTopics(j.cfg) {
		name := fmt.Sprintf("%s stamps within %v of this machine's clock", st.name, maxSkew)
		s, ok := f.Stamps[st.name]
		switch {
		case simTime:
			j.skip(name, "the robot runs on simulated time")
			continue
		case !ok:
			j.skip(name, "not read")
			continue
		case s.Err != nil:
			j.skip(name, "no message read: "+s.Err.Error())
			continue
		case s.Stamp.IsZero() || s.Stamp.Unix() == 0:
			j.add(name, false, "the header stamps are zero", "the publisher must stamp its messages with the time of the reading")
			continue
		}
		skew := s.Stamp.Sub(s.Received)
		way := "ahead of"
		if skew < 0 {
			way, skew = "behind", -skew
		}
		j.add(name, skew <= maxSkew, fmt.Sprintf("stamps are %v %s this machine's clock", skew.Round(time.Millisecond), way),
			"synchronise the robot's and this machine's clocks (chrony or NTP on both)")
	}
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
