package inspect_test

import (
	"slices"
	"testing"

	"github.com/actbridge/actbridge/ros2/graph"
	"github.com/actbridge/actbridge/ros2/inspect"
)

// TestActionsAreFeedbackTopicsAndNoneIsHidden: as rcl_action finds
// actions, every <name>/_action/feedback topic is one, a hidden name
// included (ros2 action list hides none); an action's other topics, and
// a feedback topic with no name before it, are not.
func TestActionsAreFeedbackTopicsAndNoneIsHidden(t *testing.T) {
	pub := []graph.Endpoint{{Node: "/srv"}}
	g := graph.Graph{Topics: []graph.Topic{
		{Name: "/_action/feedback", Types: []string{"x/action/A_FeedbackMessage"}, Publishers: pub},
		{Name: "/_private/move/_action/feedback", Types: []string{"x/action/Move_FeedbackMessage"}, Publishers: pub},
		{Name: "/arm/fjt/_action/feedback", Types: []string{"control_msgs/action/FollowJointTrajectory_FeedbackMessage"}, Publishers: pub},
		{Name: "/arm/fjt/_action/status", Types: []string{"action_msgs/msg/GoalStatusArray"}, Publishers: pub},
	}}
	var got []string
	for _, a := range inspect.Actions(g) {
		got = append(got, a.Name+" "+a.Types[0])
	}
	want := []string{"/_private/move x/action/Move", "/arm/fjt control_msgs/action/FollowJointTrajectory"}
	if !slices.Equal(got, want) {
		t.Fatalf("actions %q, want %q", got, want)
	}
	if n := len(inspect.VisibleTopics(g, inspect.HideHidden)); n != 0 {
		t.Fatalf("%d of the actions' topics are visible; ros2 topic list hides them all", n)
	}
}
