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

// The base's geofence is declared in map (±5 m) while the sim's odometry
// drifts along x. Over each transport, once odom has drifted, a goal
// inside the fence as odometry sees it (odom x 4.95) but past it in map is
// refused as a geofence violation and reaches nothing, and a goal given
// in map runs and ends on the map target, where odometry reads another x.
func TestAMapFencedBaseIsCheckedInMapWhileOdometryDrifts(t *testing.T) {
	eachTransport(t, func(t *testing.T, tr transport) {
		cfg := simConfig(t, tr, map[string]string{"geofence:            # odom frame, metres": "geofence:\n      frame: map"})
		// Slow drift: a standing base's odometry moves with it, and a
		// confirm allows 5 cm (2.5 s here) between preview and confirm. The base starts
		// at x 2 so that the goals stay within the 4 m step cap.
		w := newWorld(t, worldOpts{tr: tr, config: cfg, simArgs: []string{"--odom-drift", "0.02,0,0", "--initial-pose", "2,0,0"}})
		planner := w.mcpClient("")
		drift := func(pv map[string]any) float64 {
			frames, _ := pv["frames"].(map[string]any)
			link, _ := frames["transform"].(map[string]any)
			x, _ := link["x"].(float64)
			return x
		}
		rostest.Eventually(t, 30*time.Second, "odom drifts 12 cm from map", func() error {
			out, isErr := bridgetest.Call(t, planner, "base_navigate", map[string]any{"x": 2.0, "y": 0.0, "frame": "map"})
			if isErr || drift(out) < 0.12 {
				return fmt.Errorf("preview %v", out)
			}
			return nil
		})
		goals := w.goalsReceived()
		for _, args := range []map[string]any{{"x": 4.95, "y": 0.0, "frame": "odom"}, {"x": 4.95, "y": 0.0}} {
			out, isErr := bridgetest.Call(t, planner, "base_navigate", args)
			if !isErr || out["code"] != "limit_violation" || !strings.Contains(fmt.Sprint(out["details"]), "geofence") {
				t.Fatalf("base_navigate %v: %v, want a geofence limit_violation (odom x 4.95 lies past map's 5)", args, out)
			}
		}
		if n := w.goalsReceived() - goals; n != 0 {
			t.Fatalf("refused previews sent %d goals", n)
		}

		pv := bridgetest.MustCall(t, planner, "base_navigate", map[string]any{"x": 1.0, "y": 0.0, "frame": "map"})
		mc := bridgetest.MustCall(t, planner, "motion_confirm", map[string]any{"preview_id": pv["preview_id"]})
		rostest.Eventually(t, 40*time.Second, "the map goal is reached", func() error {
			st := bridgetest.MustCall(t, planner, "motion_status", map[string]any{"motion_id": mc["motion_id"], "wait_s": 2})
			if st["terminal"] == true && st["state"] != "succeeded" {
				t.Fatalf("motion %v", st)
			}
			if st["state"] != "succeeded" {
				return errState(st)
			}
			return nil
		})
		// Seen through odometry and TF the base stands on the map goal;
		// odometry alone puts it elsewhere, by the drift.
		at := bridgetest.MustCall(t, planner, "base_navigate", map[string]any{"x": 1.0, "y": 0.0, "frame": "map"})
		if d, _ := at["distance_m"].(float64); d > 0.05 {
			t.Fatalf("after the motion the base is %g m from the map goal: %v", d, at)
		}
		if x := w.baseX(t, planner); math.Abs(x-1) < 0.07 {
			t.Fatalf("odometry x %g: the base went to the goal as odom has it, not as map has it", x)
		}
	})
}
