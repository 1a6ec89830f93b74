package ros2

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/config"
	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/ros2/node"
	"github.com/actbridge/actbridge/ros2/service"
	"github.com/actbridge/actbridge/test/netns"
)

// moveGroup serves /plan_kinematic_path on node name of its own
// participant, answering each request with reply (JSON of a
// GetMotionPlan response) and keeping the requests.
type moveGroup struct {
	mu   sync.Mutex
	reqs []*cdr.Message
}

func serveMoveGroup(t *testing.T, domain int, distro msgs.Distro, name, reply string) (*moveGroup, func()) {
	t.Helper()
	set, err := msgs.Load(distro)
	if err != nil {
		t.Fatal(err)
	}
	nc, err := node.NewContext(t.Context(), node.Options{Distro: distro, Discovery: node.Discovery{Domain: domain, Range: node.Localhost}})
	if err != nil {
		t.Fatal(err)
	}
	n, err := nc.NewNode(name, "/")
	if err != nil {
		t.Fatal(err)
	}
	types, err := service.ResolveTypes(set, GetMotionPlan)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := cdr.FromJSON(types.Response, []byte(reply))
	if err != nil {
		t.Fatal(err)
	}
	mg := &moveGroup{}
	srv, err := service.NewServer(nc.Participant(), types, "/plan_kinematic_path", func(_ context.Context, req *cdr.Message) (*cdr.Message, error) {
		mg.mu.Lock()
		mg.reqs = append(mg.reqs, req)
		mg.mu.Unlock()
		return rep, nil
	}, service.Options{Endpoints: n.Announce})
	if err != nil {
		t.Fatal(err)
	}
	stop := func() { srv.Close(); nc.Close() }
	t.Cleanup(stop)
	return mg, stop
}

const planOK = `{"motion_plan_response": {"group_name": "arm", "planning_time": 0.25, "error_code": {"val": 1},
  "trajectory": {"joint_trajectory": {"joint_names": ["shoulder", "elbow"], "points": [
    {"positions": [0, 0], "velocities": [0, 0], "time_from_start": {"sec": 0}},
    {"positions": [0.2, -0.1], "velocities": [0.3, -0.1], "time_from_start": {"sec": 0, "nanosec": 500000000}},
    {"positions": [0.4, -0.2], "velocities": [0, 0], "time_from_start": {"sec": 1}}]}}}}`

func planRobot(t *testing.T, domain int, distro msgs.Distro) *Robot {
	t.Helper()
	return openRobot(t, &config.Config{Transport: config.TransportROS2,
		ROS2:      config.ROS2{Distro: string(distro), DomainID: &domain, DiscoveryRange: config.DiscoveryLocalhost},
		Actuators: []config.ActuatorConfig{{Name: "gripper", Kind: actuators.KindGripper, Action: "/g", Joints: []string{"f"}}}})
}

// planWhenServed retries Plan while the graph has not shown the server yet.
func planWhenServed(t *testing.T, r *Robot, req actuators.PlanRequest, until func(error) bool) (actuators.Plan, error) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		p, err := r.Plan(t.Context(), req)
		if until(err) || time.Now().After(deadline) {
			return p, err
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func notNoPlanner(err error) bool { return !errors.Is(err, actuators.ErrNoPlanner) }

var armStart = []actuators.JointReading{{Name: "shoulder"}, {Name: "elbow"}}

// A pose goal goes to move_group as MoveIt's constraints (a sphere of the
// tolerance around the target, the orientation per axis), and the plan
// comes back as the arm trajectory the bridge would preview and send.
func TestPlanAsksMoveGroupAndReturnsItsTrajectory(t *testing.T) {
	netns.Require(t)
	for _, c := range []struct {
		distro msgs.Distro
		domain int
	}{{msgs.Humble, 201}, {msgs.Jazzy, 202}} {
		t.Run(string(c.distro), func(t *testing.T) {
			mg, _ := serveMoveGroup(t, c.domain, c.distro, "move_group", planOK)
			r := planRobot(t, c.domain, c.distro)
			req := actuators.PlanRequest{Service: "/plan_kinematic_path", Group: "arm", Start: armStart,
				Pose: &actuators.PoseGoal{Link: "tool0", Frame: "base_link", Position: [3]float64{0.4, 0.1, 0.3},
					Orientation: [4]float64{0, 1, 0, 0}, PositionTolerance: 0.001, AngleTolerance: 0.01}}
			p, err := planWhenServed(t, r, req, notNoPlanner)
			if err != nil {
				t.Fatal(err)
			}
			tr := p.Trajectory
			if len(tr.Joints) != 2 || tr.Joints[1] != "elbow" || len(tr.Points) != 3 || tr.Points[1].Time != 0.5 ||
				tr.Points[2].Positions[0] != 0.4 || p.PlanningTime != 250*time.Millisecond || p.Source == "" {
				t.Fatalf("plan %+v", p)
			}
			mg.mu.Lock()
			defer mg.mu.Unlock()
			m := mg.reqs[0].Get("motion_plan_request").(*cdr.Message)
			gc := m.Get("goal_constraints").([]*cdr.Message)[0]
			pc := gc.Get("position_constraints").([]*cdr.Message)[0]
			oc := gc.Get("orientation_constraints").([]*cdr.Message)[0]
			region := pc.Get("constraint_region").(*cdr.Message)
			prim := region.Get("primitives").([]*cdr.Message)[0]
			pose := region.Get("primitive_poses").([]*cdr.Message)[0].Get("position").(*cdr.Message)
			if m.Get("group_name") != "arm" || pc.Get("link_name") != "tool0" || prim.Get("type") != uint8(2) ||
				prim.Get("dimensions").([]float64)[0] != 0.001 || pose.Get("x") != 0.4 ||
				oc.Get("absolute_z_axis_tolerance") != 0.01 || m.Get("max_velocity_scaling_factor") != actuators.DefaultScaling {
				t.Fatalf("request %v", m)
			}
		})
	}
}

// MoveIt's refusal comes back as a PlanError with its constant's name;
// a malformed plan is refused, never returned.
func TestPlannerRefusalsAndMalformedPlansAreErrors(t *testing.T) {
	netns.Require(t)
	for i, c := range []struct {
		name, reply string
		check       func(error) bool
	}{
		{"no IK", `{"motion_plan_response": {"error_code": {"val": -31, "message": "no solution", "source": "ompl"}}}`, func(err error) bool {
			var pe *actuators.PlanError
			return errors.As(err, &pe) && pe.Name == "NO_IK_SOLUTION" && pe.Message == "no solution"
		}},
		{"times go back", `{"motion_plan_response": {"error_code": {"val": 1}, "trajectory": {"joint_trajectory": {"joint_names": ["a"],
			"points": [{"positions": [0], "time_from_start": {"sec": 1}}, {"positions": [1], "time_from_start": {"sec": 1}}]}}}}`,
			says("is not after the previous point's")},
		{"wrong width", `{"motion_plan_response": {"error_code": {"val": 1}, "trajectory": {"joint_trajectory": {"joint_names": ["a", "b"],
			"points": [{"positions": [0], "time_from_start": {"sec": 1}}]}}}}`,
			says("1 positions for 2 joints")},
		{"starts elsewhere", `{"motion_plan_response": {"error_code": {"val": 1}, "trajectory": {"joint_trajectory": {"joint_names": ["shoulder", "elbow"],
			"points": [{"positions": [0.5, 0], "time_from_start": {"sec": 0}}, {"positions": [0.4, -0.2], "time_from_start": {"sec": 1}}]}}}}`,
			says("from where the robot is")},
		{"another group's joint", `{"motion_plan_response": {"error_code": {"val": 1}, "trajectory": {"joint_trajectory": {"joint_names": ["shoulder", "elbow", "wrist"],
			"points": [{"positions": [0, 0, 0], "time_from_start": {"sec": 0}}, {"positions": [0.4, -0.2, 1], "time_from_start": {"sec": 1}}]}}}}`,
			says("not in the start state")},
		{"negative time", `{"motion_plan_response": {"error_code": {"val": 1}, "trajectory": {"joint_trajectory": {"joint_names": ["shoulder", "elbow"],
			"points": [{"positions": [0, 0], "time_from_start": {"sec": -1}}, {"positions": [0.4, -0.2], "time_from_start": {"sec": 1}}]}}}}`,
			says("is not after")},
		{"multi-DOF", `{"motion_plan_response": {"error_code": {"val": 1}, "trajectory": {"joint_trajectory": {"joint_names": ["a"],
			"points": [{"positions": [0], "time_from_start": {"sec": 1}}]}, "multi_dof_joint_trajectory": {"points": [{}]}}}}`,
			says("multi-DOF")},
	} {
		t.Run(c.name, func(t *testing.T) {
			domain := 212 + i
			serveMoveGroup(t, domain, msgs.Jazzy, "move_group", c.reply)
			r := planRobot(t, domain, msgs.Jazzy)
			req := actuators.PlanRequest{Service: "/plan_kinematic_path", Group: "arm", Start: armStart, Joints: []string{"shoulder", "elbow"}, Goal: []float64{0.4, -0.2}}
			if _, err := planWhenServed(t, r, req, notNoPlanner); !c.check(err) {
				t.Fatalf("%v", err)
			}
		})
	}
}

func says(text string) func(error) bool {
	return func(err error) bool { return err != nil && strings.Contains(err.Error(), text) }
}

// No planning service is ErrNoPlanner; two are ambiguous unless the
// request names the node.
func TestPlanNeedsExactlyOneMoveGroup(t *testing.T) {
	netns.Require(t)
	const domain = 208
	r := planRobot(t, domain, msgs.Jazzy)
	req := actuators.PlanRequest{Service: "/plan_kinematic_path", Group: "arm", Start: armStart, Joints: []string{"shoulder", "elbow"}, Goal: []float64{0.4, -0.2}}
	if _, err := r.Plan(t.Context(), req); !errors.Is(err, actuators.ErrNoPlanner) {
		t.Fatalf("%v, want ErrNoPlanner", err)
	}
	serveMoveGroup(t, domain, msgs.Jazzy, "move_group", planOK)
	serveMoveGroup(t, domain, msgs.Jazzy, "rogue_group", planOK)
	if _, err := planWhenServed(t, r, req, func(err error) bool { return errors.Is(err, actuators.ErrAmbiguousServer) }); !errors.Is(err, actuators.ErrAmbiguousServer) {
		t.Fatalf("%v, want ErrAmbiguousServer", err)
	}
	req.Node = "/move_group"
	if _, err := planWhenServed(t, r, req, func(err error) bool { return err == nil }); err != nil {
		t.Fatalf("with the node named: %v", err)
	}
}
