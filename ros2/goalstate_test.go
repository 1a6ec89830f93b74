package ros2

import (
	"testing"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/ros2/action"
)

func TestPreemptedGoalsAreCanceledOnEveryDistro(t *testing.T) {
	tests := []struct {
		name       string
		status     string
		code       int32
		superseded bool
		want       actuators.GoalState
	}{
		{"succeeded", "SUCCEEDED", 0, false, actuators.GoalSucceeded},
		{"jazzy preempted: aborted, invalid goal, by our newer goal", "ABORTED", -1, true, actuators.GoalCanceled},
		{"humble preempted: canceled", "CANCELED", -1, true, actuators.GoalCanceled},
		{"canceled", "CANCELED", 0, false, actuators.GoalCanceled},
		{"aborted on a path tolerance", "ABORTED", -4, false, actuators.GoalAborted},
		{"aborted on a path tolerance while a newer goal went out", "ABORTED", -4, true, actuators.GoalAborted},
		{"aborted invalid goal with no newer goal of ours", "ABORTED", -1, false, actuators.GoalAborted},
		{"rejected", "REJECTED", 0, false, actuators.GoalRejected},
		{"forgotten or never received", "UNKNOWN", 0, false, actuators.GoalLost},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := endState(tt.status, tt.code, tt.superseded); got != tt.want {
				t.Errorf("endState(%s, %d, %v) = %s, want %s", tt.status, tt.code, tt.superseded, got, tt.want)
			}
		})
	}
}

func TestLiveStatusesMapToTheContractsAndTerminalOnesWaitForTheResult(t *testing.T) {
	tests := []struct {
		status action.Status
		want   actuators.GoalState
		live   bool
	}{
		{action.Status{Name: "PENDING"}, actuators.GoalPending, true},
		{action.Status{Code: 1, Name: "ACCEPTED"}, actuators.GoalPending, true},
		{action.Status{Code: 2, Name: "EXECUTING"}, actuators.GoalActive, true},
		{action.Status{Code: 3, Name: "CANCELING"}, actuators.GoalCanceling, true},
		{action.Status{Code: 2, Name: "EXECUTING", Lost: true}, actuators.GoalLost, true},
		{action.Status{Code: 4, Name: "SUCCEEDED"}, "", false},
		{action.Status{Code: 6, Name: "ABORTED"}, "", false},
		{action.Status{Code: 0, Name: "UNKNOWN"}, "", false},
	}
	for _, tt := range tests {
		got, live := liveState(tt.status)
		if got != tt.want || live != tt.live {
			t.Errorf("liveState(%v) = %s, %v; want %s, %v", tt.status, got, live, tt.want, tt.live)
		}
	}
}

func TestGoalUUIDIsTheMotionIDOrAStableHash(t *testing.T) {
	const motion = "0d7f3c2e-9b1a-5c4d-8e6f-1a2b3c4d5e6f"
	if got := GoalUUID(motion); canonical(got) != motion {
		t.Errorf("GoalUUID(%s) = %s, want the id itself", motion, canonical(got))
	}
	a, b := GoalUUID("actuatorstest-once"), GoalUUID("actuatorstest-once")
	if a != b || a == GoalUUID("actuatorstest-cancel") || a == (action.GoalID{}) {
		t.Errorf("hashed UUIDs: %s, %s", canonical(a), canonical(b))
	}
}
