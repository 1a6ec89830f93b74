package sim

import (
	"encoding/json"
	"testing"
	"time"
)

func TestGoalLogCountsEveryGoalByID(t *testing.T) {
	r := newTestRobot(t)
	g := traj(r, 0.5, uniform(6, 0.2))
	r.ArmGoal(GoalID{ID: "a", Stamp: r.Now()}, g)
	r.Advance(100 * time.Millisecond)
	before := r.ArmPositions()
	r.ArmGoal(GoalID{ID: "a", Stamp: r.Now()}, traj(r, 0.5, uniform(6, -1)))
	_ = r.Cancel(Arm, GoalID{ID: "zzz"})
	r.Advance(time.Millisecond)
	if after := r.ArmPositions(); !near(after, before, 0.01) {
		t.Errorf("duplicate goal changed the motion: %v → %v", before, after)
	}

	b, err := json.Marshal(r.Goals())
	if err != nil {
		t.Fatal(err)
	}
	var log map[string]struct {
		NS         string `json:"ns"`
		Received   int    `json:"received"`
		Duplicates int    `json:"duplicates"`
		Cancels    int    `json:"cancels"`
		Goals      []struct {
			ID        string    `json:"id"`
			Received  time.Time `json:"received"`
			Duplicate bool      `json:"duplicate"`
			State     string    `json:"state"`
		} `json:"goals"`
	}
	if err := json.Unmarshal(b, &log); err != nil {
		t.Fatal(err)
	}
	arm := log["arm"]
	if arm.NS != ArmAction || arm.Received != 2 || arm.Duplicates != 1 || arm.Cancels != 1 || len(arm.Goals) != 2 {
		t.Fatalf("arm log %s", b)
	}
	if arm.Goals[0].Duplicate || arm.Goals[0].State != "ACTIVE" || !arm.Goals[1].Duplicate || arm.Goals[1].State != "" {
		t.Errorf("goal records %+v", arm.Goals)
	}
	if !arm.Goals[0].Received.Equal(time.Unix(1_800_000_000, 0)) {
		t.Errorf("received %s, want the wall clock", arm.Goals[0].Received)
	}
	if _, ok := log["gripper"]; !ok {
		t.Errorf("no gripper entry in %s", b)
	}
	if n := r.Goals()[Arm].Count("a"); n != 2 {
		t.Errorf("Count(a) = %d, want 2", n)
	}
}

// TestDuplicateGoalIsLoggedAndCountedNotRun: a duplicate reported by a
// face is one more goal record, marked duplicate and counted; the goal
// that ran keeps its state and nothing new starts.
func TestDuplicateGoalIsLoggedAndCountedNotRun(t *testing.T) {
	r := newTestRobot(t)
	r.ArmGoal(GoalID{ID: "u1"}, traj(r, 0.2, uniform(6, 0.1)))
	runUntilDone(t, r, Arm, "u1", 2*time.Second)
	if err := r.DuplicateGoal(Arm, GoalID{ID: "u1"}); err != nil {
		t.Fatal(err)
	}
	if err := r.DuplicateGoal("nope", GoalID{ID: "u1"}); err == nil {
		t.Fatal("an unknown action was accepted")
	}
	a := r.Goals()[Arm]
	if a.Received != 2 || a.Duplicates != 1 || a.Count("u1") != 2 || !a.Goals[1].Duplicate || a.Goals[0].State != "SUCCEEDED" {
		t.Fatalf("log %+v", a)
	}
}
