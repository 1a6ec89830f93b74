package test

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/actbridge/actbridge/ros1/rostest"
	"github.com/actbridge/actbridge/test/bridgetest"
)

// Issue 36 item 4 over ROS 2: with move_group's /plan_kinematic_path on the
// graph (the sim's own planner stands in for MoveIt) and the arm's planning
// group in the config, arm_move_pose's preview carries move_group's plan,
// and the trajectory that reaches the controller is exactly that plan's
// points; the sim's tool ends at the pose.
func TestPoseGoalThroughMoveGroupSendsItsPlan(t *testing.T) {
	c, fk := simToolFK(t)
	eachTransport(t, func(t *testing.T, tr transport) {
		cfg := simConfig(t, tr, map[string]string{
			"    joint_states_topic: /joint_states\n    policy: planner\n": "    joint_states_topic: /joint_states\n    policy: planner\n    planning: {group: arm, time_s: 5}\n",
		})
		w := newWorld(t, worldOpts{tr: tr, config: cfg})
		cs := w.mcpClient("")
		goal := fk([]float64{0.3, 0.5, 1.0, 0.2, 1.1, 0.3})
		var pv map[string]any
		rostest.Eventually(t, 30*time.Second, "move_group planning", func() error {
			pv = bridgetest.MustCall(t, cs, "arm_move_pose", map[string]any{"position": goal.Position[:], "orientation": goal.Orientation[:]})
			if ik, _ := pv["ik"].(map[string]any); ik == nil || ik["group"] != "arm" {
				return errState(map[string]any{"ik": pv["ik"]}) // move_group not discovered yet: the bridge's IK planned
			}
			return nil
		})
		mc := bridgetest.MustCall(t, cs, "motion_confirm", map[string]any{"preview_id": pv["preview_id"]})
		rostest.Eventually(t, 60*time.Second, "the planned motion done", func() error {
			st := bridgetest.MustCall(t, cs, "motion_status", map[string]any{"motion_id": mc["motion_id"], "wait_s": 2})
			if st["state"] != "succeeded" {
				return errState(st)
			}
			return nil
		})
		// The trajectory the controller received, from the sim's goal log.
		var raw map[string]struct {
			Goals []struct {
				ID         string `json:"id"`
				Trajectory *struct {
					Joints []string `json:"joints"`
					Points []struct {
						Positions []float64 `json:"positions"`
						Time      float64   `json:"time_s"`
					} `json:"points"`
				} `json:"trajectory"`
			} `json:"goals"`
		}
		if err := json.Unmarshal([]byte(w.trigger("/simrobot/goals")), &raw); err != nil {
			t.Fatal(err)
		}
		goals := raw["arm"].Goals
		if len(goals) != 1 || goals[0].Trajectory == nil {
			t.Fatalf("the arm received %d goals: %+v", len(goals), goals)
		}
		got := goals[0].Trajectory
		ik := pv["ik"].(map[string]any)
		if n, _ := ik["points"].(float64); int(n) != len(got.Points) || len(got.Points) < 2 {
			t.Fatalf("the preview sends %v of move_group's points, the controller got %d", ik["points"], len(got.Points))
		}
		last := got.Points[len(got.Points)-1]
		q := make([]float64, len(c.Joints()))
		for i, j := range c.Joints() {
			k := slices.Index(got.Joints, j)
			if k < 0 {
				t.Fatalf("the trajectory lacks %s: %v", j, got.Joints)
			}
			q[i] = last.Positions[k]
		}
		end := fk(q)
		if e := dist(end.Position, goal.Position); e > 0.002 {
			t.Fatalf("the plan's last point puts the tool %g m from the goal", e)
		}
		t.Logf("move_group's plan: %d points over %.2f s reached the controller as planned", len(got.Points), last.Time)
	}, ros2)
}
