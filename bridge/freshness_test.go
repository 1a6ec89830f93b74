package bridge

import (
	"testing"
	"time"
)

func TestConfirmTakesASampleYoungerThanItsBoundWithoutWaiting(t *testing.T) {
	r := newRig(t)
	id := preview(t, r, "arm_move_joints", `{"positions":{"j1":0.5}}`)
	out, e := r.call(t, RolePlanner, "motion_confirm", `{"preview_id":"`+id+`"}`)
	if e != nil {
		t.Fatal(e)
	}
	if out["state"] != "sent" || r.robot.FreshWaits() != 0 {
		t.Fatalf("confirm %v after %d waits for a new sample, want sent after none: the newest is current", out, r.robot.FreshWaits())
	}
}

func TestConfirmWaitsForANewSampleWhenTheNewestIsOlderThanItsBound(t *testing.T) {
	r := newRig(t)
	id := preview(t, r, "arm_move_joints", `{"positions":{"j1":0.5}}`)
	r.robot.SetJointsAge(200*time.Millisecond, false) // the fake publishes at 100 Hz: bound 30 ms
	out, e := r.call(t, RolePlanner, "motion_confirm", `{"preview_id":"`+id+`"}`)
	if e != nil {
		t.Fatal(e)
	}
	if out["state"] != "sent" || r.robot.FreshWaits() != 1 {
		t.Fatalf("confirm %v after %d waits, want sent after one", out, r.robot.FreshWaits())
	}
}

func TestConfirmOnASilentRobotIsRefusedStaleStateAndThePreviewStands(t *testing.T) {
	r := newRig(t)
	id := preview(t, r, "arm_move_joints", `{"positions":{"j1":0.5}}`)
	r.robot.SetJointsAge(1500*time.Millisecond, true) // past the rig's StaleAfter (1 s), nothing newer
	_, e := r.call(t, RolePlanner, "motion_confirm", `{"preview_id":"`+id+`"}`)
	if e == nil || e.Code != CodeUnavailable || e.Rule != RuleStaleState || !e.Retryable {
		t.Fatalf("confirm on a silent robot: %+v, want unavailable, rule stale_state, retryable", e)
	}
	if r.robot.GoalsSent() != 0 {
		t.Fatal("a goal left on stale state")
	}
	r.robot.SetJointsAge(0, false) // publishing again
	out, e := r.call(t, RolePlanner, "motion_confirm", `{"preview_id":"`+id+`"}`)
	if e != nil || out["state"] != "sent" {
		t.Fatalf("the same confirm once the robot publishes: %v %v, want sent", out, e)
	}
}

func TestPreviewOnASilentRobotIsRefusedStaleState(t *testing.T) {
	r := newRig(t)
	r.robot.SetJointsAge(1500*time.Millisecond, true)
	_, e := r.call(t, RolePlanner, "arm_move_joints", `{"positions":{"j1":0.5}}`)
	if e == nil || e.Code != CodeUnavailable || e.Rule != RuleStaleState {
		t.Fatalf("preview on a silent robot: %+v, want unavailable, rule stale_state", e)
	}
}

// A wait that finds nothing newer on a sample still within StaleAfter is
// no refusal: on a loaded host one batch of joint states can come late
// (CI saw a ROS 1 confirm refused on a 51 ms old sample), and StaleAfter
// is the configured bound of what the checks may act on.
func TestALateSampleWithinStaleAfterIsNoRefusal(t *testing.T) {
	r := newRig(t)
	id := preview(t, r, "arm_move_joints", `{"positions":{"j1":0.5}}`)
	r.robot.SetJointsAge(200*time.Millisecond, true)
	out, e := r.call(t, RolePlanner, "motion_confirm", `{"preview_id":"`+id+`"}`)
	if e != nil || out["state"] != "sent" {
		t.Fatalf("confirm on a 200 ms old sample with nothing newer: %v %+v, want sent", out, e)
	}
}
