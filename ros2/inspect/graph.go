package inspect

import (
	"context"
	"slices"
	"strings"

	"github.com/actbridge/actbridge/ros2/graph"
	"github.com/actbridge/actbridge/ros2/names"
)

// Hidden says whether to include hidden names (a part starting with _,
// such as an action's topics and services), which ros2 topic list and
// ros2 service list leave out unless asked.
type Hidden bool

// The two values of Hidden.
const (
	HideHidden    Hidden = false
	IncludeHidden Hidden = true
)

// Topics returns the topics with an endpoint, once there is one and the
// graph has settled.
func (in *Inspector) Topics(ctx context.Context, h Hidden) ([]graph.Topic, error) {
	g, err := in.Graph(ctx, "ROS 2 topic", func(g graph.Graph) bool { return len(VisibleTopics(g, h)) > 0 })
	return VisibleTopics(g, h), err
}

// Nodes returns every node some participant announced, hidden ones
// included, once there is one and the graph has settled.
func (in *Inspector) Nodes(ctx context.Context) ([]graph.Node, error) {
	g, err := in.Graph(ctx, "ROS 2 node", func(g graph.Graph) bool { return len(g.Nodes) > 0 })
	return g.Nodes, err
}

// Services returns the services with a server or a client, once there is
// one and the graph has settled.
func (in *Inspector) Services(ctx context.Context, h Hidden) ([]graph.Service, error) {
	g, err := in.Graph(ctx, "ROS 2 service", func(g graph.Graph) bool { return len(VisibleServices(g, h)) > 0 })
	return VisibleServices(g, h), err
}

// Actions returns the actions of the graph, once there is one and the
// graph has settled.
func (in *Inspector) Actions(ctx context.Context) ([]Action, error) {
	g, err := in.Graph(ctx, "ROS 2 action", func(g graph.Graph) bool { return len(Actions(g)) > 0 })
	return Actions(g), err
}

// VisibleTopics are the topics `ros2 topic list` shows: all with h, else
// those not hidden.
func VisibleTopics(g graph.Graph, h Hidden) []graph.Topic {
	if h {
		return g.Topics
	}
	return slices.DeleteFunc(slices.Clone(g.Topics), func(t graph.Topic) bool { return names.IsHidden(t.Name) })
}

// VisibleServices are the services `ros2 service list` shows: all with
// h (--include-hidden-services), else those not hidden, which leaves out
// every action's services (…/_action/send_goal).
func VisibleServices(g graph.Graph, h Hidden) []graph.Service {
	if h {
		return g.Services
	}
	return slices.DeleteFunc(slices.Clone(g.Services), func(s graph.Service) bool { return names.IsHidden(s.Name) })
}

// Action is an action as `ros2 action list` finds it: by its feedback
// topic. Servers publish the feedback, clients subscribe to it.
type Action struct {
	Name    string
	Types   []string // "control_msgs/action/FollowJointTrajectory"
	Servers []graph.Endpoint
	Clients []graph.Endpoint
}

// feedbackSuffix and feedbackType mark an action's feedback topic and
// type, as rcl_action_get_names_and_types looks for them.
const (
	feedbackSuffix = "/_action/feedback"
	feedbackType   = "_FeedbackMessage"
)

// Actions are the actions of g, sorted by name, as rcl_action finds them:
// each topic named <action>/_action/feedback is one, its types with
// _FeedbackMessage cut off. Hidden names are not left out: ros2 action
// list has no such rule.
func Actions(g graph.Graph) []Action {
	var out []Action
	for _, t := range g.Topics {
		name, ok := strings.CutSuffix(t.Name, feedbackSuffix)
		if !ok || name == "" {
			continue
		}
		a := Action{Name: name, Servers: t.Publishers, Clients: t.Subscribers}
		for _, typ := range t.Types {
			a.Types = append(a.Types, strings.TrimSuffix(typ, feedbackType))
		}
		out = append(out, a)
	}
	return out
}
