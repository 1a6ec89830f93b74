package ros2

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/config"
	"github.com/actbridge/actbridge/ros2/graph"
	"github.com/actbridge/actbridge/rtps/wire"
)

// source is one server or publisher the graph lists: its node ("" when no
// node announces the endpoint) and its participant.
type source struct {
	node        string
	participant wire.GUIDPrefix
}

func (s source) String() string {
	node := s.node
	if node == "" {
		node = "(no node)"
	}
	return fmt.Sprintf("%s on participant %x", node, s.participant[:])
}

// sources groups endpoints by participant, each with its node.
func sources(eps []graph.Endpoint) []source {
	var out []source
	for _, e := range eps {
		i := slices.IndexFunc(out, func(s source) bool { return s.participant == e.GUID.Prefix })
		switch {
		case i < 0:
			out = append(out, source{node: e.Node, participant: e.GUID.Prefix})
		case out[i].node == "":
			out[i].node = e.Node
		}
	}
	return out
}

// serversOf lists the participants serving service name.
func serversOf(g graph.Graph, name string) []source {
	for _, s := range g.Services {
		if s.Name == name {
			return sources(s.Servers)
		}
	}
	return nil
}

// publishersOf lists the participants publishing topic name.
func publishersOf(g graph.Graph, name string) []source {
	for _, t := range g.Topics {
		if t.Name == name {
			return sources(t.Publishers)
		}
	}
	return nil
}

// pick is the one participant of srcs to believe: the one there is, or
// the one whose node is node when the config names it. More than one
// (with node unset, or several participants carrying that node's name)
// is actuators.ErrAmbiguousServer naming them; none is a zero prefix
// (nothing to pin yet: found is false).
func pick(what string, srcs []source, node string) (p wire.GUIDPrefix, found bool, err error) {
	return pickNamed(what, srcs, node, "name the one to use in the actuator's config")
}

// pickNamed is pick whose refusal says fix, how to name the one to use.
func pickNamed(what string, srcs []source, node, fix string) (p wire.GUIDPrefix, found bool, err error) {
	if node != "" {
		srcs = slices.DeleteFunc(slices.Clone(srcs), func(s source) bool { return s.node != node })
	}
	switch len(srcs) {
	case 0:
		return wire.GUIDPrefix{}, false, nil
	case 1:
		return srcs[0].participant, true, nil
	}
	names := make([]string, len(srcs))
	for i, s := range srcs {
		names[i] = s.String()
	}
	slices.Sort(names)
	how := fix
	if node != "" {
		how = "more than one participant carries node " + node
	}
	return wire.GUIDPrefix{}, false, fmt.Errorf("%w: %s: %s (%s)", actuators.ErrAmbiguousServer, what, strings.Join(names, "; "), how)
}

// goalServer is the participant to send a's goals on lane l to, from the
// graph now: zero when none is listed yet (the client waits for the one
// server).
func (r *Robot) goalServer(g graph.Graph, a *actuator, l *lane) (wire.GUIDPrefix, bool, error) {
	return pick("servers of "+l.action, serversOf(g, l.sendGoal), a.cfg.ServerNode)
}

// stateTopics are the topics a's state comes from: joint states for an
// arm or gripper, odometry for a base.
func stateTopics(a config.ActuatorConfig) []string {
	var out []string
	if a.JointStatesTopic != "" {
		out = append(out, a.JointStatesTopic)
	}
	if a.Kind == actuators.KindBase && a.OdomTopic != "" {
		out = append(out, a.OdomTopic)
	}
	return out
}

// ambiguity is why no motion may go to a now: more than one server of
// its action, or more than one publisher of its state, where the config
// names none (or names a node more than one participant carries).
func (r *Robot) ambiguity(g graph.Graph, a *actuator) error {
	for _, l := range a.lanes {
		if _, _, err := r.goalServer(g, a, l); err != nil {
			return err
		}
	}
	for _, topic := range stateTopics(a.cfg) {
		if _, _, err := pick("publishers of "+topic, publishersOf(g, topic), a.cfg.StateNode); err != nil {
			return err
		}
	}
	return nil
}

// stateFrom reports whether a sample of topic from participant writer
// may be read for the actuators reading topic: each one's pinned node's
// participant when its config names one, and any writer otherwise (a
// second publisher then refuses motion: ambiguity). It reads the config
// alone: subscriptions start while Open still builds the actuators.
func (r *Robot) stateFrom(topic string, writer wire.GUIDPrefix) bool {
	var g graph.Graph
	built := false
	for _, a := range r.cfg.Actuators {
		if a.StateNode == "" || !slices.Contains(stateTopics(a), topic) {
			continue
		}
		if !built {
			g, built = r.rctx.Graph(), true
		}
		p, found, err := pick("publishers of "+topic, publishersOf(g, topic), a.StateNode)
		if err != nil || !found || p != writer {
			return false
		}
	}
	return true
}

// waitServer waits, within ctx, until the graph lists a server of a's
// lane l (the one its server_node names, when set) and returns its
// participant; an ambiguity is returned at once.
func (r *Robot) waitServer(ctx context.Context, a *actuator, l *lane) (wire.GUIDPrefix, error) {
	var p wire.GUIDPrefix
	var perr error
	_, err := r.rctx.WaitGraph(ctx, func(g graph.Graph) bool {
		if perr = r.ambiguity(g, a); perr != nil {
			return true
		}
		var found bool
		p, found, _ = r.goalServer(g, a, l)
		return found || a.cfg.ServerNode == ""
	})
	if perr != nil {
		return wire.GUIDPrefix{}, perr
	}
	return p, err
}

// stateSource is what takeNewest reads of topic: every publisher unless
// an actuator reading it names its publishing node (stateFrom).
func (r *Robot) stateSource(topic string) func(wire.GUIDPrefix) bool {
	for _, ac := range r.cfg.Actuators {
		if ac.StateNode != "" {
			return func(p wire.GUIDPrefix) bool { return r.stateFrom(topic, p) }
		}
	}
	return nil
}
