package node

import (
	"context"
	"fmt"
	"strings"

	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/ros2/graph"
	"github.com/actbridge/actbridge/ros2/names"
	"github.com/actbridge/actbridge/ros2/qos"
	"github.com/actbridge/actbridge/rtps"
	"github.com/actbridge/actbridge/rtps/wire"
)

// endpoint is what publishers and subscriptions share: the ROS topic and
// type, the DDS endpoint that carries them, and the node that owns it.
type endpoint struct {
	n     *Node
	topic string // fully qualified ROS name
	typ   string // "pkg/msg/Type"
	s     *cdr.Struct
	data  rtps.EndpointData
	close func() error // withdraws the DDS endpoint
}

// newEndpoint resolves topic for the node and typ in the distro, and
// returns the DDS endpoint to announce (GUID not yet set).
func (n *Node) newEndpoint(topic, typ string, q qos.Profile, writer bool) (*endpoint, error) {
	fqn, err := n.Resolve(topic, false)
	if err != nil {
		return nil, err
	}
	dds, err := names.TopicDDS(fqn)
	if err != nil {
		return nil, err
	}
	if o, ok := n.c.qos[fqn]; ok {
		if q, err = o.Apply(q); err != nil {
			return nil, fmt.Errorf("QoS override of %s: %w", fqn, err)
		}
	}
	if strings.Count(typ, "/") == 1 {
		pkg, t, _ := strings.Cut(typ, "/")
		typ = pkg + "/msg/" + t
	}
	s, err := n.c.Struct(typ)
	if err != nil {
		return nil, err
	}
	ddsType, err := names.TypeDDS(typ)
	if err != nil {
		return nil, err
	}
	ud, err := n.c.TypeUserData(typ)
	if err != nil {
		return nil, err
	}
	return &endpoint{n: n, topic: fqn, typ: typ, s: s,
		data: rtps.EndpointData{Writer: writer, Topic: dds, Type: ddsType, QoS: q.QoS, UserData: ud}}, nil
}

// register records the endpoint, now announced as g, in its node.
func (e *endpoint) register(g wire.GUID, closeDDS func() error) error {
	e.data.GUID = g
	e.close = closeDDS
	if err := e.n.add(e.data, e.Close); err != nil {
		closeDDS()
		return err
	}
	if err := e.n.c.publishInfo(); err != nil {
		e.Close()
		return err
	}
	return nil
}

// Topic is the fully qualified ROS topic name after remapping.
func (e *endpoint) Topic() string { return e.topic }

// Type is the ROS type ("sensor_msgs/msg/JointState").
func (e *endpoint) Type() string { return e.typ }

// GUID is the DDS endpoint's GUID (its Gid in the graph).
func (e *endpoint) GUID() wire.GUID { return e.data.GUID }

// Matched returns the remote endpoints matched now.
func (e *endpoint) Matched() []rtps.EndpointData {
	m, _ := e.n.c.p.Matched(e.data.GUID)
	return m
}

// Incompatibility is a remote endpoint of the same topic and type that
// cannot match ours, and why.
type Incompatibility struct {
	Remote rtps.EndpointData
	Reason string // "reliability: offered best_effort, requested reliable"
}

func (i Incompatibility) String() string {
	return fmt.Sprintf("%s %v: %s", map[bool]string{true: "publisher", false: "subscription"}[i.Remote.Writer], i.Remote.GUID, i.Reason)
}

// Incompatible lists the remote endpoints on the same topic and type
// that QoS keeps from matching ours (DDS's OFFERED/REQUESTED
// INCOMPATIBLE_QOS), so that no match is never silent.
func (e *endpoint) Incompatible() []Incompatibility {
	var out []Incompatibility
	for _, r := range e.n.c.p.Endpoints() {
		if r.Writer == e.data.Writer || r.Topic != e.data.Topic || r.Type != e.data.Type {
			continue
		}
		w, rd := r, e.data
		if e.data.Writer {
			w, rd = e.data, r
		}
		if reason := QoSIncompatibility(w.QoS, rd.QoS); reason != "" {
			out = append(out, Incompatibility{Remote: r, Reason: reason})
		}
	}
	return out
}

// TypeMismatches lists the matched remote endpoints whose announced type
// hash differs from the one our distro's definition has: same type name,
// another layout (a graph of another distro, most likely), whose samples
// would not decode as ours. Endpoints that announce no hash (Humble's)
// are not listed.
func (e *endpoint) TypeMismatches() []Incompatibility {
	ours, err := e.n.c.TypeHash(e.typ)
	if err != nil {
		return nil
	}
	var out []Incompatibility
	for _, r := range e.Matched() {
		if theirs, ok := graph.UserDataValue(r.UserData, "typehash"); ok && theirs != "" && theirs != ours {
			out = append(out, Incompatibility{Remote: r, Reason: fmt.Sprintf("type hash: theirs %s, %s's %s", theirs, e.n.c.distro, ours)})
		}
	}
	return out
}

// QoSIncompatibility says why a writer offering w cannot serve a reader
// requesting r ("reliability: offered best_effort, requested reliable"), or "" when it can.
func QoSIncompatibility(w, r rtps.QoS) string {
	var why []string
	if w.Reliability < r.Reliability {
		why = append(why, fmt.Sprintf("reliability: offered %s, requested %s", reliability(w.Reliability), reliability(r.Reliability)))
	}
	if w.Durability < r.Durability {
		why = append(why, fmt.Sprintf("durability: offered %s, requested %s", durability(w.Durability), durability(r.Durability)))
	}
	return strings.Join(why, "; ")
}

func reliability(r rtps.Reliability) string {
	if r == rtps.Reliable {
		return "reliable"
	}
	return "best_effort"
}

func durability(d rtps.Durability) string {
	switch d {
	case rtps.Volatile:
		return "volatile"
	case rtps.TransientLocal:
		return "transient_local"
	}
	return fmt.Sprintf("durability %d", d)
}

// WaitMatched waits until at least n remote endpoints match. When ctx
// ends first and QoS keeps some endpoint of the topic from matching, the
// error wraps ErrIncompatibleQoS and says why.
func (e *endpoint) WaitMatched(ctx context.Context, n int) error {
	_, err := e.n.c.p.WaitEndpoints(ctx, func([]rtps.EndpointData) bool { return len(e.Matched()) >= n })
	if err == nil {
		return nil
	}
	if inc := e.Incompatible(); len(inc) > 0 {
		return fmt.Errorf("%w on %s: %s (%w)", ErrIncompatibleQoS, e.topic, inc[0], err)
	}
	return err
}

// Close withdraws the endpoint from DDS and from its node's announcement.
func (e *endpoint) Close() error {
	e.n.remove(e.data.GUID)
	err := e.close()
	if !e.n.c.isClosed() {
		e.n.c.publishInfo()
	}
	return err
}
