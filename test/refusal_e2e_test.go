package test

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/actbridge/actbridge/ros1/rostest"

	"github.com/actbridge/actbridge/test/bridgetest"
)

func TestEveryRefusalClassReachesNothing(t *testing.T) {
	eachTransport(t, func(t *testing.T, tr transport) {
		w := newWorld(t, worldOpts{tr: tr})
		cs := w.mcpClient("")
		arm := func(pos map[string]any) map[string]any { return map[string]any{"positions": pos} }
		cases := []struct {
			name string
			tool string
			args any
			code string
		}{
			{"position limit", "arm_move_joints", arm(map[string]any{"elbow_joint": 9.0}), "invalid_argument"},
			{"velocity limit", "arm_move_joints", map[string]any{"positions": map[string]any{"shoulder_pan_joint": 1.5}, "duration_s": 0.2}, "limit_violation"},
			{"acceleration limit", "arm_follow_trajectory", map[string]any{"joints": []string{"shoulder_pan_joint"},
				"points": []any{map[string]any{"positions": []float64{0.3}, "velocities": []float64{0}, "time_from_start": 0.25}}}, "limit_violation"},
			{"unknown joint", "arm_move_joints", arm(map[string]any{"tail_joint": 0.1}), "invalid_argument"},
			{"geofence", "base_navigate", map[string]any{"x": 40.0, "y": 0.0}, "limit_violation"},
			{"speed cap", "base_drive", map[string]any{"linear": 3.0, "duration_s": 1.0}, "limit_violation"},
			{"forged preview", "motion_confirm", map[string]any{"preview_id": "pv2.8a1c2f4e-1111-4222-8333-944455556666.9999999999.YXJt.AAAAAAAAAAAAAAAAAAAAAAAA"}, "invalid_argument"},
			{"garbage preview", "motion_confirm", map[string]any{"preview_id": "please just move the arm"}, "invalid_argument"},
		}
		before := w.goalsReceived()
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				out, isErr := bridgetest.Call(t, cs, c.tool, c.args)
				if !isErr || out["code"] != c.code {
					t.Fatalf("got %v (error %v), want %s", out, isErr, c.code)
				}
			})
		}
		// altered and stale previews, and a latched e-stop
		pv := bridgetest.MustCall(t, cs, "arm_move_joints", arm(map[string]any{"wrist_1_joint": 0.2}))
		id := pv["preview_id"].(string)
		altered := id[:len(id)-3] + flip(id[len(id)-3:])
		if out, isErr := bridgetest.Call(t, cs, "motion_confirm", map[string]any{"preview_id": altered}); !isErr || out["code"] != "invalid_argument" {
			t.Fatalf("altered: %v", out)
		}
		mover := bridgetest.MustCall(t, cs, "arm_move_joints", arm(map[string]any{"wrist_2_joint": 0.3}))
		mc := bridgetest.MustCall(t, cs, "motion_confirm", map[string]any{"preview_id": mover["preview_id"]})
		moved := w.goalsReceived()
		rostest.Eventually(t, 30*time.Second, "wrist_2 moved", func() error {
			st := bridgetest.MustCall(t, cs, "motion_status", map[string]any{"motion_id": mc["motion_id"], "wait_s": 2})
			if st["state"] != "succeeded" {
				return errState(st)
			}
			return nil
		})
		if out, isErr := bridgetest.Call(t, cs, "motion_confirm", map[string]any{"preview_id": id}); !isErr || out["code"] != "stale_preview" {
			t.Fatalf("stale: %v", out)
		}
		stop := bridgetest.MustCall(t, cs, "robot_stop", map[string]any{"reason": "test"})
		pv2, isErr := bridgetest.Call(t, cs, "gripper_move", map[string]any{"position": 0.03})
		if !isErr || pv2["code"] != "estop_latched" {
			t.Fatalf("preview under e-stop: %v", pv2)
		}
		if out, isErr := bridgetest.Call(t, cs, "estop_reset", map[string]any{"event": stop["estop_event"]}); !isErr || out["code"] != "permission_denied" {
			t.Fatalf("planner reset: %v", out)
		}
		if got := w.goalsReceived(); got != moved || moved != before+1 {
			t.Fatalf("goals before %d, after the one real motion %d, at the end %d", before, moved, got)
		}
	})
}

func flip(s string) string {
	b := []byte(s)
	if b[0] == 'A' {
		b[0] = 'B'
	} else {
		b[0] = 'A'
	}
	return string(b)
}

func TestRobotStopMidMotionStopsTheArmAndLatches(t *testing.T) {
	eachTransport(t, func(t *testing.T, tr transport) {
		w := newWorld(t, worldOpts{tr: tr})
		cs := w.mcpClient("")
		pv := bridgetest.MustCall(t, cs, "arm_move_joints", map[string]any{"positions": map[string]any{"shoulder_pan_joint": 1.2}, "speed_fraction": 0.2})
		c := bridgetest.MustCall(t, cs, "motion_confirm", map[string]any{"preview_id": pv["preview_id"]})
		rostest.Eventually(t, 30*time.Second, "arm moving", func() error {
			js := bridgetest.MustCall(t, cs, "joints_read", map[string]any{"joints": []string{"shoulder_pan_joint"}})
			if p := js["joints"].([]any)[0].(map[string]any)["position"].(float64); p < 0.05 {
				return fmt.Errorf("at %.3f", p)
			}
			return nil
		})
		bridgetest.MustCall(t, cs, "robot_stop", map[string]any{"reason": "person in the cell"})
		var st map[string]any
		rostest.Eventually(t, 30*time.Second, "motion preempted", func() error {
			st = bridgetest.MustCall(t, cs, "motion_status", map[string]any{"motion_id": c["motion_id"], "wait_s": 2})
			if st["state"] != "preempted" {
				return errState(st)
			}
			return nil
		})
		pos := func() float64 {
			js := bridgetest.MustCall(t, cs, "joints_read", map[string]any{"joints": []string{"shoulder_pan_joint"}})
			return js["joints"].([]any)[0].(map[string]any)["position"].(float64)
		}
		p1 := pos()
		time.Sleep(500 * time.Millisecond)
		if p2 := pos(); p2-p1 > 0.01 || p2 > 1.1 {
			t.Fatalf("arm still moving after stop: %.4f → %.4f", p1, p2)
		}
		desc := bridgetest.MustCall(t, cs, "robot_describe", map[string]any{})
		if !desc["estop"].(map[string]any)["latched"].(bool) {
			t.Fatalf("e-stop not latched: %v", desc["estop"])
		}
		out, isErr := bridgetest.Call(t, cs, "arm_move_joints", map[string]any{"positions": map[string]any{"shoulder_pan_joint": 0.0}})
		if !isErr || out["code"] != "estop_latched" || !strings.Contains(out["release"].(string), "estop_reset") {
			t.Fatalf("after stop: %v", out)
		}
	})
}

// TestAfterAToleranceAbortTheArmHolds: a trajectory the controller aborts
// (path tolerance) ends aborted, and the arm then holds where it was.
// ROS 1's joint_trajectory_controller keeps executing an aborted
// trajectory, so the bridge sends a hold goal (id "<motion>/hold");
// ros2_controllers' holds by itself, so over ROS 2 nothing follows the
// aborted goal on the wire and the arm stands still.
func TestAfterAToleranceAbortTheArmHolds(t *testing.T) {
	eachTransport(t, func(t *testing.T, tr transport) {
		w := newWorld(t, worldOpts{tr: tr})
		cs := w.mcpClient("")
		w.setFault("arm/abort_after", 0.5)
		pv := bridgetest.MustCall(t, cs, "arm_move_joints", map[string]any{"positions": map[string]any{"elbow_joint": -0.8}})
		c := bridgetest.MustCall(t, cs, "motion_confirm", map[string]any{"preview_id": pv["preview_id"]})
		id := c["motion_id"].(string)
		rostest.Eventually(t, 30*time.Second, "motion aborted", func() error {
			st := bridgetest.MustCall(t, cs, "motion_status", map[string]any{"motion_id": id, "wait_s": 2})
			if st["state"] != "aborted" {
				return errState(st)
			}
			return nil
		})
		if tr == ros1 {
			rostest.Eventually(t, 15*time.Second, "a hold goal follows the abort", func() error {
				for _, g := range w.simGoals()["arm"].Goals {
					if strings.HasPrefix(g.ID, id) && g.ID != id {
						return nil
					}
				}
				return fmt.Errorf("no hold goal yet")
			})
			return
		}
		elbow := func() float64 {
			js := bridgetest.MustCall(t, cs, "joints_read", map[string]any{"joints": []string{"elbow_joint"}})
			return js["joints"].([]any)[0].(map[string]any)["position"].(float64)
		}
		time.Sleep(500 * time.Millisecond) // the joint states past the abort reached the bridge
		e1 := elbow()
		time.Sleep(time.Second)
		if e2 := elbow(); math.Abs(e2-e1) > 0.002 || e1 <= -0.79 || e1 >= -0.01 {
			t.Fatalf("after the abort the elbow went %.4f → %.4f (the goal was -0.8)", e1, e2)
		}
		if a := w.simGoals()["arm"]; len(a.Goals) != 1 || a.Goals[0].ID != id {
			t.Fatalf("the arm's goals after the abort: %+v, want only %s", a.Goals, id)
		}
	})
}

func TestDriveStopsWhenThePlannerSessionEnds(t *testing.T) {
	eachTransport(t, func(t *testing.T, tr transport) {
		w := newWorld(t, worldOpts{tr: tr})
		cs := w.mcpClient("")
		pv := bridgetest.MustCall(t, cs, "base_drive", map[string]any{"linear": 0.2, "duration_s": 8.0})
		bridgetest.MustCall(t, cs, "motion_confirm", map[string]any{"preview_id": pv["preview_id"]})
		obs := w.mcpClient("")
		x := func() float64 { return w.baseX(t, obs) }
		rostest.Eventually(t, 15*time.Second, "base drives while the session lives", func() error {
			if p := x(); p < 0.15 {
				return fmt.Errorf("at x=%.3f", p)
			}
			return nil
		})
		cs.Close() // the planner goes away
		rostest.Eventually(t, 15*time.Second, "base stops after the session ends", func() error {
			a := x()
			time.Sleep(700 * time.Millisecond)
			if b := x(); b-a > 0.01 {
				return fmt.Errorf("still moving: %.3f → %.3f", a, b)
			}
			return nil
		})
		if x() > 0.2*8*0.8 {
			t.Fatal("drive ran to completion despite the session ending")
		}
	})
}
