package ros2mission

import (
	"testing"
	"time"

	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/test/bridgetest"
)

// TestLyricalSimMotionsAreSentOnceThroughSIGKILLAndRestart: the bridge
// (distro lyrical) against `simrobot --ros 2 --distro lyrical`, Lyrical's
// definitions and controllers. An arm motion is previewed, confirmed and
// succeeds, and its confirm retried answers a replay; a gripper motion
// (parallel_gripper_controller's ParallelGripperCommand, Lyrical's
// default) is confirmed and the bridge SIGKILLed while the finger moves,
// restarted on the same data dir: the retried confirm replays the same
// motion, which re-attaches and succeeds; a navigation succeeds, its
// progress read from Nav2 1.5's feedback (with the tracking errors) and
// its result Nav2's error_code. The sim's goal log, read
// through CycloneDDS, holds each motion's UUID once and no duplicate.
func TestLyricalSimMotionsAreSentOnceThroughSIGKILLAndRestart(t *testing.T) {
	s := startSimRobot(t, msgs.Lyrical, 52)
	run := newBridgeRun(t, s.config(t))
	cs := run.start(t, "")

	pv := bridgetest.MustCall(t, cs, "arm_move_joints", map[string]any{
		"positions": map[string]any{"shoulder_pan_joint": 0.3, "elbow_joint": -0.2}})
	confirm := map[string]any{"preview_id": pv["preview_id"]}
	arm := bridgetest.MustCall(t, cs, "motion_confirm", confirm)["motion_id"].(string)
	if st := motionEnd(t, cs, arm, 60*time.Second); st["state"] != "succeeded" {
		t.Fatalf("arm motion %s ended %v", arm, st)
	}
	if again := bridgetest.MustCall(t, cs, "motion_confirm", confirm); again["motion_id"] != arm || again["replay"] != true {
		t.Fatalf("the retried confirm answered %v, want a replay of %s", again, arm)
	}

	pv = bridgetest.MustCall(t, cs, "gripper_move", map[string]any{"position": 0.01})
	confirm = map[string]any{"preview_id": pv["preview_id"]}
	gripper := bridgetest.MustCall(t, cs, "motion_confirm", confirm)["motion_id"].(string)
	run.kill()
	cs = run.start(t, "")
	out, isErr := confirmAfterRestart(t, cs, pv["preview_id"])
	if isErr || out["motion_id"] != gripper || out["replay"] != true {
		t.Fatalf("the confirm retried after the SIGKILL answered %v, want a replay of %s", out, gripper)
	}
	if st := motionEnd(t, cs, gripper, 60*time.Second); st["state"] != "succeeded" {
		t.Fatalf("gripper motion %s ended %v after the restart", gripper, st)
	}

	pv = bridgetest.MustCall(t, cs, "base_navigate", map[string]any{"x": 0.3, "y": 0.0, "yaw": 0.0})
	base := bridgetest.MustCall(t, cs, "motion_confirm", map[string]any{"preview_id": pv["preview_id"]})["motion_id"].(string)
	st := motionEnd(t, cs, base, 60*time.Second)
	res, _ := st["result"].(map[string]any)
	if st["state"] != "succeeded" || st["progress"] != 1.0 || res["error_code"] != 0.0 {
		t.Fatalf("base motion %s ended %v, want succeeded, progress 1 (from the feedback) and Nav2's error_code 0", base, st)
	}

	counts := map[string]int{}
	for name, a := range s.goals(t) {
		if a.Duplicates != 0 {
			t.Errorf("the sim's %s counted %d duplicate goal UUIDs: %+v", name, a.Duplicates, a)
		}
		for _, g := range a.Goals {
			counts[g.ID]++
		}
	}
	for _, id := range []string{arm, gripper, base} {
		if counts[id] != 1 {
			t.Errorf("motion %s reached the sim %d times, want once", id, counts[id])
		}
	}
	if len(counts) != 3 {
		t.Errorf("the sim received goals %v, want the three motions", counts)
	}
	if st := bridgetest.MustCall(t, cs, "motion_status", map[string]any{"motion_id": arm}); st["state"] != "succeeded" {
		t.Errorf("arm motion after the restart: %v", st)
	}
}
