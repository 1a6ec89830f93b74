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
		preemption bool // the codec read the result as a preemption's
		superseded bool
		want       actuators.GoalState
	}{
		{"succeeded", "SUCCEEDED", false, false, actuators.GoalSucceeded},
		{"jazzy preempted: aborted as a preemption, by our newer goal", "ABORTED", true, true, actuators.GoalCanceled},
		{"humble preempted: canceled", "CANCELED", true, true, actuators.GoalCanceled},
		{"canceled", "CANCELED", false, false, actuators.GoalCanceled},
		{"aborted for its own reason", "ABORTED", false, false, actuators.GoalAborted},
		{"aborted for its own reason while a newer goal went out", "ABORTED", false, true, actuators.GoalAborted},
		{"aborted as a preemption with no newer goal of ours", "ABORTED", true, false, actuators.GoalAborted},
		{"rejected", "REJECTED", false, false, actuators.GoalRejected},
		{"forgotten or never received", "UNKNOWN", false, false, actuators.GoalLost},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := endState(tt.status, tt.preemption, tt.superseded); got != tt.want {
				t.Errorf("endState(%s, %v, %v) = %s, want %s", tt.status, tt.preemption, tt.superseded, got, tt.want)
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
