package doctor

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/config"
	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/ros2/graph"
	"github.com/actbridge/actbridge/ros2/qos"
)

// armConfig is one arm on ROS 2 (or ROS 1) reading /joint_states.
func armConfig(t *testing.T, transport string) *config.Config {
	t.Helper()
	distro := ""
	if transport == config.TransportROS2 {
		distro = "distro: jazzy\n"
	}
	cfg, err := config.Parse([]byte("transport: " + transport + "\n" + distro + `actuators:
  - name: arm
    kind: arm
    action: /arm_controller/follow_joint_trajectory
    joints: [j1, j2]
    joint_states_topic: /joint_states
    policy: planner
`))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

const twoJoints = `<robot name="r"><link name="a"/><link name="b"/><link name="c"/>
<joint name="j1" type="revolute"><parent link="a"/><child link="b"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
<joint name="j2" type="revolute"><parent link="b"/><child link="c"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint></robot>`

// healthyROS2 is an arm's graph as a healthy Jazzy robot shows it, its
// joint states stamped now.
func healthyROS2(t *testing.T, now time.Time) Facts {
	t.Helper()
	set, err := msgs.Load(msgs.Jazzy)
	if err != nil {
		t.Fatal(err)
	}
	hash := func(typ string) string {
		h, err := set.TypeHash(typ)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	js := graph.Endpoint{Node: "/joint_state_broadcaster", Type: "sensor_msgs/msg/JointState", QoS: qos.Default.QoS, TypeHash: hash("sensor_msgs/msg/JointState")}
	const fb = "control_msgs/action/FollowJointTrajectory_FeedbackMessage"
	feedback := graph.Endpoint{Node: "/arm_controller", Type: fb, QoS: qos.Default.QoS, TypeHash: hash(fb)}
	return Facts{Where: "test", Reachable: true,
		Actuators: []actuators.ActuatorStatus{{Name: "arm", Kind: actuators.KindArm, Connected: true}},
		URDF:      twoJoints,
		ROS2: &ROS2Facts{Distro: msgs.Jazzy, Graph: graph.Graph{Topics: []graph.Topic{
			{Name: "/arm_controller/follow_joint_trajectory/_action/feedback", Types: []string{fb}, Publishers: []graph.Endpoint{feedback}},
			{Name: "/joint_states", Types: []string{js.Type}, Publishers: []graph.Endpoint{js}},
		}}, ActionTypes: map[string]string{"arm": "control_msgs/action/FollowJointTrajectory"},
			Stamps: map[string]Stamp{"/joint_states": {Stamp: now, Received: now}}, UseSimTime: map[string]bool{}},
	}
}

// status returns the named check's status and the check, failing the
// test when it did not run.
func check(t *testing.T, r Report, name string) Check {
	t.Helper()
	for _, c := range r.Checks {
		if c.Name == name {
			return c
		}
	}
	var names []string
	for _, c := range r.Checks {
		names = append(names, c.Name)
	}
	t.Fatalf("no check %q among %q", name, names)
	return Check{}
}

func TestAHealthyRobotFailsNoCheck(t *testing.T) {
	r := Judge(armConfig(t, config.TransportROS2), healthyROS2(t, time.Unix(1e9, 0)))
	if r.Failed() != 0 {
		var b strings.Builder
		r.WriteText(&b)
		t.Fatal(b.String())
	}
}

// TestEveryFailureSaysItsFix: a fact turned bad fails its check, with a
// detail saying what was seen and a fix saying what to change.
func TestEveryFailureSaysItsFix(t *testing.T) {
	now := time.Unix(1e9, 0)
	for _, c := range []struct {
		name, check, detail, fix string
		spoil                    func(f *Facts, cfg *config.Config)
	}{
		{"an unreachable graph", "robot graph reachable", "", "domain",
			func(f *Facts, _ *config.Config) { f.Reachable = false }},
		{"discovery's advice is the fix", "robot graph reachable", "set ROS_STATIC_PEERS", "set ROS_STATIC_PEERS",
			func(f *Facts, _ *config.Config) { f.Reachable, f.Advice = false, "set ROS_STATIC_PEERS" }},
		{"two servers", "arm: one server and one state publisher", "two participants", "server_node",
			func(f *Facts, _ *config.Config) { f.Actuators[0].Ambiguous = "two participants" }},
		{"a joint the URDF lacks", "URDF covers the configured joints", "arm's j2", "joints",
			func(f *Facts, _ *config.Config) {
				f.URDF = strings.Replace(twoJoints, `name="j2" type="revolute"`, `name="j2" type="fixed"`, 1)
			}},
		{"no URDF", "robot description read", "timeout", "robot_description",
			func(f *Facts, _ *config.Config) { f.URDFErr = errors.New("timeout") }},
		{"a publisher of another type", "/joint_states type sensor_msgs/msg/JointState", "publishes std_msgs/msg/String", "publish",
			func(f *Facts, _ *config.Config) { f.ROS2.Graph.Topics[1].Publishers[0].Type = "std_msgs/msg/String" }},
		{"an action of another type", "arm: /arm_controller/follow_joint_trajectory type control_msgs/action/GripperCommand", "serves control_msgs/action/FollowJointTrajectory", "action of type",
			func(f *Facts, _ *config.Config) { f.ROS2.ActionTypes["arm"] = "control_msgs/action/GripperCommand" }},
		{"another distro's hash", "/joint_states type hash (jazzy definitions)", "RIHS01_00", "distro",
			func(f *Facts, _ *config.Config) { f.ROS2.Graph.Topics[1].Publishers[0].TypeHash = "RIHS01_00" }},
		{"a best-effort publisher of a topic read reliably", "/joint_states QoS compatible", "reliability: offered best_effort, requested reliable", "qos.joint_states",
			func(f *Facts, cfg *config.Config) {
				f.ROS2.Graph.Topics[1].Publishers[0].QoS = qos.SensorData.QoS
				cfg.Actuators[0].QoS = map[string]config.QoSOverride{config.QoSJointStates: {Reliability: "reliable"}}
			}},
		{"/clock with a wall-time server", "/clock and use_sim_time agree", "/arm_controller use wall time", "use_sim_time true",
			func(f *Facts, _ *config.Config) {
				f.ROS2.Graph.Topics = append(f.ROS2.Graph.Topics, graph.Topic{Name: "/clock", Publishers: []graph.Endpoint{{Node: "/gazebo"}}})
				f.ROS2.UseSimTime["/arm_controller"] = false
			}},
		{"sim time without /clock", "/clock and use_sim_time agree", "time stands still", "publishes /clock",
			func(f *Facts, _ *config.Config) { f.ROS2.UseSimTime["/arm_controller"] = true }},
		{"a clock 3 s ahead", "/joint_states stamps within 1s of this machine's clock", "3s ahead of", "chrony",
			func(f *Facts, _ *config.Config) {
				f.ROS2.Stamps["/joint_states"] = Stamp{Stamp: now.Add(3 * time.Second), Received: now}
			}},
		{"zero stamps", "/joint_states stamps within 1s of this machine's clock", "zero", "stamp",
			func(f *Facts, _ *config.Config) { f.ROS2.Stamps["/joint_states"] = Stamp{Received: now} }},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, cfg := healthyROS2(t, now), armConfig(t, config.TransportROS2)
			c.spoil(&f, cfg)
			r := Judge(cfg, f)
			got := check(t, r, c.check)
			if got.Status != Fail || !strings.Contains(got.Detail, c.detail) || !strings.Contains(got.Fix, c.fix) {
				t.Fatalf("%+v, want a failure with detail %q and fix %q", got, c.detail, c.fix)
			}
			if r.Failed() == 0 {
				t.Fatal("the report counts no failure")
			}
		})
	}
}

// TestRobotOnSimTimeSkipsTheWallClockCheck: with /clock published the
// stamps are simulated time, not compared with this machine's clock.
func TestRobotOnSimTimeSkipsTheWallClockCheck(t *testing.T) {
	now := time.Unix(1e9, 0)
	f := healthyROS2(t, now)
	f.ROS2.Graph.Topics = append(f.ROS2.Graph.Topics, graph.Topic{Name: "/clock", Publishers: []graph.Endpoint{{Node: "/gazebo"}}})
	f.ROS2.UseSimTime["/arm_controller"] = true
	f.ROS2.Stamps["/joint_states"] = Stamp{Stamp: time.Unix(12, 0), Received: now}
	r := Judge(armConfig(t, config.TransportROS2), f)
	if c := check(t, r, "/joint_states stamps within 1s of this machine's clock"); c.Status != Skip || r.Failed() != 0 {
		t.Fatalf("%+v, %d failed", c, r.Failed())
	}
}

// TestROS1ChecksWhatItsGraphTells: over ROS 1 the served, published,
// type and URDF checks run from the transport, and the master's
// publishers are counted (two servers of the arm's action fail); the
// clock says it does not apply.
func TestROS1ChecksWhatItsGraphTells(t *testing.T) {
	f := Facts{Reachable: true, Actuators: []actuators.ActuatorStatus{{Name: "arm", Connected: true}}, URDF: twoJoints,
		Topics: []actuators.TopicInfo{{Name: "/joint_states", Type: "sensor_msgs/JointState"}}}
	r := Judge(armConfig(t, config.TransportROS1), f)
	for name, want := range map[string]Status{"/joint_states published (arm)": Pass, "/joint_states type sensor_msgs/JointState": Pass,
		"clock": Skip, "URDF covers the configured joints": Pass} {
		if c := check(t, r, name); c.Status != want {
			t.Errorf("%+v, want %s", c, want)
		}
	}
	if c := check(t, r, "arm: one server and one state publisher"); c.Status != Skip || !strings.Contains(c.Detail, "not read") {
		t.Errorf("%+v, want a skip: the master's publishers were not read", c)
	}
	f.Publishers = map[string][]string{"/arm_controller/follow_joint_trajectory/status": {"/arm_a", "/arm_b"}, "/joint_states": {"/jsp"}}
	if c := check(t, Judge(armConfig(t, config.TransportROS1), f), "arm: one server and one state publisher"); c.Status != Fail ||
		!strings.Contains(c.Detail, "/arm_controller/follow_joint_trajectory/status is published by /arm_a, /arm_b") {
		t.Errorf("%+v, want a failure naming both servers", c)
	}
	f.Topics[0].Type = "std_msgs/String"
	if c := check(t, Judge(armConfig(t, config.TransportROS1), f), "/joint_states type sensor_msgs/JointState"); c.Status != Fail {
		t.Errorf("%+v, want a failure", c)
	}
}

// A base fenced in map needs its frame tree: tf_topic unpublished fails,
// naming the robot's namespaced /robot1/tf and the tf_topic to set; set
// to it, the check passes; a base fenced in odom needs no TF check.
func TestAFencedBaseNeedsItsTFTopicAndDoctorNamesANamespacedOne(t *testing.T) {
	base := func(frame, extra string) *config.Config {
		cfg, err := config.Parse([]byte("transport: ros2\ndistro: jazzy\n" + extra + `actuators:
  - name: base
    kind: base
    action: /robot1/navigate_to_pose
    odom_topic: /robot1/odom
    geofence: {frame: ` + frame + `, min_x: -3, max_x: 3, min_y: -3, max_y: 3}
`))
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	facts := healthyROS2(t, time.Unix(1e9, 0))
	tfPub := graph.Endpoint{Node: "/robot1/robot_state_publisher", Type: "tf2_msgs/msg/TFMessage", QoS: qos.Default.QoS}
	facts.ROS2.Graph.Topics = append(facts.ROS2.Graph.Topics, graph.Topic{Name: "/robot1/tf", Types: []string{tfPub.Type}, Publishers: []graph.Endpoint{tfPub}})

	c := check(t, Judge(base("map", ""), facts), "/tf published (fence of base)")
	if c.Status != Fail || !strings.Contains(c.Detail, "/robot1/tf published") || !strings.Contains(c.Fix, "tf_topic: /robot1/tf and tf_static_topic: /robot1/tf_static") {
		t.Fatalf("%+v, want a failure naming /robot1/tf and the tf_topic to set", c)
	}
	// Another robot's /tf on the same domain does not make the default
	// right: the base's namespace publishes its own frame tree.
	other := graph.Endpoint{Node: "/robot_state_publisher", Type: "tf2_msgs/msg/TFMessage", QoS: qos.Default.QoS}
	shared := facts
	shared.ROS2.Graph.Topics = append(slices.Clone(facts.ROS2.Graph.Topics), graph.Topic{Name: "/tf", Types: []string{other.Type}, Publishers: []graph.Endpoint{other}})
	if c := check(t, Judge(base("map", ""), shared), "/tf published (fence of base)"); c.Status != Fail || !strings.Contains(c.Detail, "/robot1's namespace") || !strings.Contains(c.Fix, "tf_topic: /robot1/tf") {
		t.Fatalf("%+v, want a failure: the namespaced base would read another robot's /tf", c)
	}
	if c := check(t, Judge(base("map", "tf_topic: /robot1/tf\ntf_static_topic: /robot1/tf_static\n"), facts), "/robot1/tf published (fence of base)"); c.Status != Pass {
		t.Fatalf("%+v, want a pass", c)
	}
	for _, c := range Judge(base("odom", ""), facts).Checks {
		if strings.Contains(c.Name, "fence of") {
			t.Fatalf("a base fenced in its odometry's frame got a TF check: %+v", c)
		}
	}
}
