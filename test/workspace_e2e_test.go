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

// Issue 36: a joint-space trajectory whose waypoints keep the tool above
// the table but whose spline dips into it between them is refused with the
// link, point and time, and nothing reaches the sim (the tool's collision
// box counts, not only its origin); the tool pose that
// joints_read reports is the URDF's FK of the joints it reads, and
// robot_describe shows the workspace.
func TestTrajectoryDippingIntoTheTableBetweenWaypointsReachesNothing(t *testing.T) {
	c, _ := simToolFK(t)
	joints := c.Joints()
	qa := []float64{0.3, -0.6, 1.2, -0.4, 0.5, 0.1} // from rest (all 0) the tool only descends to here
	d := c.NewData()
	if err := c.Jacobian(d, qa); err != nil {
		t.Fatal(err)
	}
	za := d.ToolPose().Position
	// The table: 1 cm below the tool's collision box (0.05 × 0.1 × 0.04 m,
	// whose corners lie within 6 cm of the tool's origin) at qa.
	top := za[2] - 0.07
	// The joint that moves the tool most vertically at qa, moving it down.
	k := 0
	for j := range joints {
		if math.Abs(d.JacobianColumn(j)[2]) > math.Abs(d.JacobianColumn(k)[2]) {
			k = j
		}
	}
	down := make([]float64, len(joints))
	down[k] = -math.Copysign(1.2, d.JacobianColumn(k)[2])
	zero := make([]float64, len(joints))

	table := fmt.Sprintf("\n    workspace:\n      forbidden:\n        - {name: table, min: [-2, -2, %g], max: [2, 2, %g], links: [gripper_base_link]}\n      tool_speed_max: 1.0\n", top-1, top)
	eachTransport(t, func(t *testing.T, tr transport) {
		w := newWorld(t, worldOpts{tr: tr, config: simConfig(t, tr, map[string]string{
			"    joint_states_topic: /joint_states\n": "    joint_states_topic: /joint_states\n    base_link: base_link\n    tool_link: gripper_base_link" + table,
		})})
		cs := w.mcpClient("")

		desc := bridgetest.MustCall(t, cs, "robot_describe", map[string]any{})
		arm, _ := desc["arm"].(map[string]any)
		ws, _ := arm["workspace"].(map[string]any)
		if arm["tool_link"] != "gripper_base_link" || arm["base_link"] != "base_link" || ws == nil || ws["tool_speed_max"] != 1.0 ||
			!strings.Contains(fmt.Sprint(ws["forbidden"]), "table") {
			t.Fatalf("robot_describe arm: %v", arm)
		}

		// To qa for real: the approach stays above the table.
		pos := map[string]any{}
		for i, j := range joints {
			pos[j] = qa[i]
		}
		pv := bridgetest.MustCall(t, cs, "arm_move_joints", map[string]any{"positions": pos, "duration_s": 4.0})
		if tp, _ := pv["tool_path"].(map[string]any); tp == nil || tp["link"] != "gripper_base_link" || pv["tool_plot"] != nil {
			t.Fatalf("preview without the tool's path, or with the console's drawing data: %v", pv)
		}
		mc := bridgetest.MustCall(t, cs, "motion_confirm", map[string]any{"preview_id": pv["preview_id"]})
		rostest.Eventually(t, 30*time.Second, "arm at qa", func() error {
			st := bridgetest.MustCall(t, cs, "motion_status", map[string]any{"motion_id": mc["motion_id"], "wait_s": 2})
			if st["state"] != "succeeded" {
				return errState(st)
			}
			return nil
		})
		// joints_read's tool pose is the FK of the joints it reports.
		jr := bridgetest.MustCall(t, cs, "joints_read", map[string]any{})
		q := make([]float64, len(joints))
		for _, r := range jr["joints"].([]any) {
			r := r.(map[string]any)
			for i, j := range joints {
				if r["name"] == j {
					q[i] = r["position"].(float64)
				}
			}
		}
		if err := c.FK(d, q); err != nil {
			t.Fatal(err)
		}
		tps, _ := jr["tool_poses"].([]any)
		if len(tps) != 1 {
			t.Fatalf("joints_read tool_poses: %v", jr)
		}
		got := tps[0].(map[string]any)
		p := got["position"].([]any)
		want := d.ToolPose().Position
		for i := range 3 {
			if math.Abs(p[i].(float64)-want[i]) > 1e-5 {
				t.Fatalf("tool pose %v, FK of the joints read %v", got, want)
			}
		}
		if got["frame"] != "base_link" || got["link"] != "gripper_base_link" || len(got["orientation"].([]any)) != 4 {
			t.Fatalf("tool pose %v", got)
		}

		// Every waypoint is qa, the tool's shape above the table; the spline
		// between them dips about 10 cm.
		before := w.goalsReceived()
		pts := []any{
			map[string]any{"positions": qa, "velocities": down, "time_from_start": 2.0},
			map[string]any{"positions": qa, "velocities": zero, "time_from_start": 4.0},
		}
		out, isErr := bridgetest.Call(t, cs, "arm_follow_trajectory", map[string]any{"joints": joints, "points": pts})
		if !isErr || out["code"] != "limit_violation" {
			t.Fatalf("dipping trajectory: %v (error %v), want limit_violation", out, isErr)
		}
		details, _ := out["details"].(map[string]any)
		vs, _ := details["violations"].([]any)
		if len(vs) != 1 {
			t.Fatalf("violations %v", out)
		}
		v := vs[0].(map[string]any)
		pt, _ := v["point"].([]any)
		ts, _ := v["time_s"].(float64)
		if v["kind"] != "forbidden_zone" || v["link"] != "gripper_base_link" || v["zone"] != "table" || v["limit"] != top ||
			len(pt) != 3 || !(pt[2].(float64) < top) || !(ts > 2 && ts < 4) {
			t.Fatalf("violation %v, want the tool inside the table (top %g) between t=2 and t=4", v, top)
		}
		if msg, _ := out["message"].(string); !strings.Contains(msg, "gripper_base_link") || !strings.Contains(msg, "table") {
			t.Fatalf("message %q names neither link nor box", msg)
		}
		if got := w.goalsReceived(); got != before {
			t.Fatalf("the sim received %d goals after the refusal", got-before)
		}
	})
}
