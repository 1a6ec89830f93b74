package ros2sim

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/sim"
	"github.com/actbridge/actbridge/test/bridgetest"
)

// TestBridgeChecksTheMapFenceThroughTFWhileOdometryDrifts: `actbridge
// serve` over ROS 2 with the base's geofence declared in map, against the
// sim with odometry drifting along x. Once odom has drifted, a goal inside
// the fence as odom sees it (x 4.95 of ±5) but outside it in map is
// refused with limit_violation and never reaches the sim, and a goal given
// in map is previewed in both frames, sent in map, and ends with the base
// on the map target (where odometry says otherwise). map→odom is pinned
// to the node that publishes it (tf_sources).
func TestBridgeChecksTheMapFenceThroughTFWhileOdometryDrifts(t *testing.T) {
	const domain = 133
	d := msgs.Jazzy
	// Slow drift: a standing base's odometry moves with it, and the
	// confirm's staleness check allows 5 cm (2.5 s here) between preview
	// and confirm.
	// The base starts at x 2 so that the goals below stay within the
	// config's 4 m step cap: only the fence can refuse them.
	rig := newArmRig(t, d, domain, "--odom-drift", "0.02,0,0", "--initial-pose", "2,0,0")
	// The sim's robot_state_publisher publishes map→odom: pinned to it.
	cfg := editConfig(t, domain, "geofence:            # odom frame, metres", "geofence:\n      frame: map",
		"recovery_speed_fraction: 0.1", "recovery_speed_fraction: 0.1\ntf_sources: {odom: /robot_state_publisher}")
	bridge := startBridge(t, cfg)
	cs := bridge.Client(t, "")

	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	buf := watchTF(ctx, t, openRobot(t, d, domain))
	waitDrift(ctx, t, buf, 0.12)

	for _, args := range []map[string]any{{"x": 4.95, "y": 0.0, "frame": "odom"}, {"x": 4.95, "y": 0.0}} {
		out, isErr := bridgetest.Call(t, cs, "base_navigate", args)
		if !isErr || out["code"] != "limit_violation" || !strings.Contains(fmt.Sprint(out["details"]), "geofence") {
			t.Fatalf("base_navigate %v: %v, want limit_violation (odom x 4.95 lies past map's 5)\nbridge:\n%s", args, out, bridge.Output())
		}
	}
	if n := len(rig.goalLog(ctx, t)[sim.MoveBase].Goals); n != 0 {
		t.Fatalf("the sim got %d navigation goals from refused previews", n)
	}

	pv := bridgetest.MustCall(t, cs, "base_navigate", map[string]any{"x": 1.0, "y": 0.0, "frame": "map"})
	frames, _ := pv["frames"].(map[string]any)
	if to, _ := pv["to"].(map[string]any); frames["map"] == nil || frames["odom"] == nil || to["frame"] != "map" {
		t.Fatalf("preview %v: want the goal in map and poses in both frames", pv)
	}
	mo := bridgetest.MustCall(t, cs, "motion_confirm", map[string]any{"preview_id": pv["preview_id"]})
	id, _ := mo["motion_id"].(string)
	waitSucceeded(t, cs, id, bridge, rig.sim)
	got, _, err := buf.Lookup(sim.MapFrame, sim.BaseFrame, time.Time{})
	if err != nil || math.Hypot(got.Translation[0]-1, got.Translation[1]) > 0.05 {
		t.Fatalf("map→base_footprint %v %v, want the goal (1, 0) in map", got, err)
	}
	inOdom, _, err := buf.Lookup(sim.OdomFrame, sim.BaseFrame, time.Time{})
	if err != nil || math.Abs(inOdom.Translation[0]-1) < 0.07 {
		t.Fatalf("odom→base_footprint %v %v: odometry should have drifted from the map target", inOdom, err)
	}
	goals := rig.goalLog(ctx, t)[sim.MoveBase]
	if len(goals.Goals) != 1 || goals.Count(id) != 1 {
		t.Fatalf("the sim's navigation goals: %+v, want motion %s once", goals, id)
	}
}
