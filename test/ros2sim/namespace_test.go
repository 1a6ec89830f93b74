package ros2sim

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/ros1/rostest"
	"github.com/actbridge/actbridge/ros2/graph"
	"github.com/actbridge/actbridge/rtps/wire"
)

// rclGlobals are the names rclcpp gives every node absolutely, so that no
// namespace moves them: the parameter events and the log.
var rclGlobals = []string{"/parameter_events", "/rosout"}

// TestNamespacedSimPutsEveryNameUnderItsNamespace: `simrobot --ros 2
// --namespace /robot1` beside an un-namespaced sim on the same domain:
// every node, topic, service and action of the namespaced one is under
// /robot1 (its TF on /robot1/tf and /robot1/tf_static, as a TurtleBot 4
// remaps it), but for rcl's global topics; the other sim keeps the
// root names, /tf among them, and neither publishes the other's.
func TestNamespacedSimPutsEveryNameUnderItsNamespace(t *testing.T) {
	const domain = 140
	startSim(t, domain, "--namespace", "/robot1")
	startSim(t, domain)
	c, _ := clientContext(t, msgs.Jazzy, domain, "observer")
	want := []string{"/robot1/tf", "/robot1/tf_static", "/robot1/joint_states", "/robot1/robot_description",
		"/robot1/diff_drive_controller/odom", "/robot1/diff_drive_controller/cmd_vel", "/robot1/navigate_to_pose/_action/feedback",
		"/robot1/joint_trajectory_controller/follow_joint_trajectory/_action/feedback", "/tf", "/tf_static", "/navigate_to_pose/_action/feedback"}
	wantSrv := []string{"/robot1/simrobot/goals", "/robot1/simrobot/set_led", "/robot1/plan_kinematic_path",
		"/robot1/bt_navigator/get_type_description", "/robot1/joint_trajectory_controller/get_parameters", "/simrobot/goals"}
	var g graph.Graph
	var robot1 wire.GUIDPrefix // the participant of /robot1/simrobot
	rostest.Eventually(t, 30*time.Second, "both sims in the graph", func() error {
		g = c.Graph()
		// Node announcements (ros_discovery_info) come apart from the
		// endpoints: wait for the namespaced sim's node too.
		robot1 = wire.GUIDPrefix{}
		for _, n := range g.Nodes {
			if n.Namespace == "/robot1" && n.Name == "simrobot" {
				robot1 = n.Participant
			}
		}
		if robot1 == (wire.GUIDPrefix{}) {
			return fmt.Errorf("no node /robot1/simrobot: %+v", g.Nodes)
		}
		for _, n := range want {
			if !slices.ContainsFunc(g.Topics, func(tp graph.Topic) bool { return tp.Name == n && len(tp.Publishers)+len(tp.Subscribers) > 0 }) {
				return fmt.Errorf("no topic %s", n)
			}
		}
		for _, n := range wantSrv {
			if !slices.ContainsFunc(g.Services, func(s graph.Service) bool { return s.Name == n && len(s.Servers) > 0 }) {
				return fmt.Errorf("no service %s", n)
			}
		}
		return nil
	})
	for _, n := range g.Nodes {
		if n.Participant == robot1 && n.Namespace != "/robot1" {
			t.Errorf("node %s/%s of the namespaced sim is outside /robot1", n.Namespace, n.Name)
		}
	}
	under := func(name string) bool {
		return strings.HasPrefix(name, "/robot1/") || slices.Contains(rclGlobals, name)
	}
	on := func(es []graph.Endpoint) (mine, others bool) {
		for _, e := range es {
			mine = mine || e.GUID.Prefix == robot1
			others = others || e.GUID.Prefix != robot1
		}
		return mine, others
	}
	for _, tp := range g.Topics {
		mine, others := on(append(slices.Clone(tp.Publishers), tp.Subscribers...))
		switch {
		case mine && !under(tp.Name):
			t.Errorf("the namespaced sim has topic %s outside /robot1", tp.Name)
		case others && strings.HasPrefix(tp.Name, "/robot1/"):
			t.Errorf("another participant has %s", tp.Name)
		}
	}
	for _, s := range g.Services {
		if mine, _ := on(append(slices.Clone(s.Servers), s.Clients...)); mine && !under(s.Name) {
			t.Errorf("the namespaced sim has service %s outside /robot1", s.Name)
		}
	}
}
