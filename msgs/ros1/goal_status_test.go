package msgs_test

import (
	"testing"

	"github.com/actbridge/actbridge/msgs/ros1"
)

func TestStatusNamesAreLowerCaseActionlibStates(t *testing.T) {
	tests := []struct {
		status   uint8
		name     string
		terminal bool
	}{
		{0, "pending", false},
		{1, "active", false},
		{2, "preempted", true},
		{3, "succeeded", true},
		{4, "aborted", true},
		{5, "rejected", true},
		{6, "preempting", false},
		{7, "recalling", false},
		{8, "recalled", true},
		{9, "lost", false},
		{10, "status_10", false},
		{255, "status_255", false},
	}
	for _, tt := range tests {
		if got := msgs.StatusName(tt.status); got != tt.name {
			t.Errorf("StatusName(%d) = %q, want %q", tt.status, got, tt.name)
		}
		if got := msgs.StatusTerminal(tt.status); got != tt.terminal {
			t.Errorf("StatusTerminal(%d) = %v, want %v", tt.status, got, tt.terminal)
		}
	}
}

func TestTrajectoryErrorNamesFollowTheConstants(t *testing.T) {
	tests := []struct {
		code int32
		name string
	}{
		{msgs.FollowJointTrajectorySuccessful, "successful"},
		{msgs.FollowJointTrajectoryInvalidGoal, "invalid_goal"},
		{msgs.FollowJointTrajectoryInvalidJoints, "invalid_joints"},
		{msgs.FollowJointTrajectoryOldHeaderTimestamp, "old_header_timestamp"},
		{msgs.FollowJointTrajectoryPathToleranceViolated, "path_tolerance_violated"},
		{msgs.FollowJointTrajectoryGoalToleranceViolated, "goal_tolerance_violated"},
		{-6, "error_-6"},
	}
	for _, tt := range tests {
		if got := msgs.TrajectoryErrorName(tt.code); got != tt.name {
			t.Errorf("TrajectoryErrorName(%d) = %q, want %q", tt.code, got, tt.name)
		}
	}
}

func TestActionTopicsAreTheFiveActionlibTopics(t *testing.T) {
	want := msgs.ActionTopics{
		Goal: "/arm/follow/goal", Cancel: "/arm/follow/cancel", Status: "/arm/follow/status",
		Feedback: "/arm/follow/feedback", Result: "/arm/follow/result",
	}
	for _, ns := range []string{"/arm/follow", "/arm/follow/"} {
		if got := msgs.ActionTopicsOf(ns); got != want {
			t.Errorf("ActionTopicsOf(%q) = %+v, want %+v", ns, got, want)
		}
	}
}
