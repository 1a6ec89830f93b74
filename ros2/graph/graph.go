package graph

import (
	"cmp"
	"slices"

	"github.com/actbridge/actbridge/ros2/names"
	"github.com/actbridge/actbridge/rtps"
	"github.com/actbridge/actbridge/rtps/wire"
)

// Graph is what ROS 2 tools list: nodes, topics and services, each
// sorted by name.
type Graph struct {
	Participants []Participant
	Nodes        []Node
	Topics       []Topic
	Services     []Service
}

// Participant is a DDS participant of the graph.
type Participant struct {
	Prefix wire.GUIDPrefix
	Vendor wire.VendorID
	// Enclave is from its user data; "" when it announces none (a plain
	// DDS application, which CycloneDDS's rmw leaves out of its graph).
	Enclave string
}

// Node is a node some participant announced on ros_discovery_info.
type Node struct {
	Name, Namespace string
	Participant     wire.GUIDPrefix
	Vendor          wire.VendorID
}

// FullName is the node's name as `ros2 node list` prints it.
func (n Node) FullName() string {
	full, err := names.NodeFullName(n.Name, n.Namespace)
	if err != nil {
		// Another participant's announcement is not checked; print it as it came.
		if n.Namespace == "/" {
			return "/" + n.Name
		}
		return n.Namespace + "/" + n.Name
	}
	return full
}

// Endpoint is one publisher, subscriber, server or client.
type Endpoint struct {
	GUID wire.GUID
	// Node is the full name of the node that owns it, "" when no
	// participant announced one.
	Node   string
	Vendor wire.VendorID
	// Type is the ROS type ("sensor_msgs/msg/JointState"; a request or
	// reply type for services), or the DDS type name when it has no ROS form.
	Type     string
	QoS      rtps.QoS
	TypeHash string // from its user data; "" when none (Humble)
}

// Topic is a ROS topic: its name, the types its endpoints use (more than
// one is a misconfiguration ROS tools show too), and its endpoints.
type Topic struct {
	Name        string
	Types       []string
	Publishers  []Endpoint
	Subscribers []Endpoint
}

// PublisherQoS is the QoS each publisher offers, for qos.Adapted.
func (t Topic) PublisherQoS() []rtps.QoS {
	out := make([]rtps.QoS, len(t.Publishers))
	for i, e := range t.Publishers {
		out[i] = e.QoS
	}
	return out
}

// Service is a ROS service: servers own its request reader and reply
// writer, clients the other two. Types are service types
// ("std_srvs/srv/Trigger").
type Service struct {
	Name    string
	Types   []string
	Servers []Endpoint
	Clients []Endpoint
}

// Build makes the graph from what discovery learned: participants (ours
// included), endpoints (ours included) and the ros_discovery_info
// samples of each participant. Announcements of participants no longer
// known are ignored, as are Gids a participant lists of another's endpoints; endpoints on DDS topics outside ROS's naming
// (ros_discovery_info itself) are left out.
func Build(parts []rtps.ParticipantData, eps []rtps.EndpointData, infos []ParticipantInfo) Graph {
	var g Graph
	vendor := map[wire.GUIDPrefix]wire.VendorID{}
	for _, p := range parts {
		vendor[p.Prefix] = p.Vendor
		enclave, _ := UserDataValue(p.UserData, "enclave")
		g.Participants = append(g.Participants, Participant{Prefix: p.Prefix, Vendor: p.Vendor, Enclave: enclave})
	}
	owner := map[wire.GUID]string{}
	for _, info := range infos {
		v, ok := vendor[info.GID.Prefix]
		if !ok {
			continue
		}
		for _, n := range info.Nodes {
			node := Node{Name: n.Name, Namespace: n.Namespace, Participant: info.GID.Prefix, Vendor: v}
			g.Nodes = append(g.Nodes, node)
			for _, e := range slices.Concat(n.Readers, n.Writers) {
				// A participant speaks for its own endpoints only.
				if e.Prefix == info.GID.Prefix {
					owner[e] = node.FullName()
				}
			}
		}
	}
	topics := map[string]*Topic{}
	services := map[string]*Service{}
	for _, e := range eps {
		name, kind, err := names.FromDDSTopic(e.Topic)
		if err != nil {
			continue
		}
		ep := Endpoint{GUID: e.GUID, Node: owner[e.GUID], Vendor: e.Vendor, Type: e.Type, QoS: e.QoS}
		ep.TypeHash, _ = UserDataValue(e.UserData, "typehash")
		if kind == names.KindTopic {
			if t, err := names.TypeFromDDS(e.Type); err == nil {
				ep.Type = t
			}
			t := topics[name]
			if t == nil {
				t = &Topic{Name: name}
				topics[name] = t
			}
			t.Types = addType(t.Types, ep.Type)
			if e.Writer {
				t.Publishers = append(t.Publishers, ep)
			} else {
				t.Subscribers = append(t.Subscribers, ep)
			}
			continue
		}
		srv := e.Type
		if t, err := names.ServiceTypeFromDDS(e.Type); err == nil {
			srv = t
		}
		if t, err := names.TypeFromDDS(e.Type); err == nil {
			ep.Type = t
		}
		s := services[name]
		if s == nil {
			s = &Service{Name: name}
			services[name] = s
		}
		s.Types = addType(s.Types, srv)
		// A server reads requests and writes replies.
		if (kind == names.KindRequest) != e.Writer {
			s.Servers = append(s.Servers, ep)
		} else {
			s.Clients = append(s.Clients, ep)
		}
	}
	g.Topics = sortedValues(topics, func(t *Topic) string { return t.Name })
	g.Services = sortedValues(services, func(s *Service) string { return s.Name })
	slices.SortFunc(g.Nodes, func(a, b Node) int { return cmp.Compare(a.FullName(), b.FullName()) })
	return g
}

func addType(ts []string, t string) []string {
	if slices.Contains(ts, t) {
		return ts
	}
	ts = append(ts, t)
	slices.Sort(ts)
	return ts
}

func sortedValues[T any](m map[string]*T, key func(*T) string) []T {
	out := make([]T, 0, len(m))
	for _, v := range m {
		out = append(out, *v)
	}
	slices.SortFunc(out, func(a, b T) int { return cmp.Compare(key(&a), key(&b)) })
	return out
}

// Topic returns the topic of that fully qualified name.
func (g Graph) Topic(name string) (Topic, bool) {
	i := slices.IndexFunc(g.Topics, func(t Topic) bool { return t.Name == name })
	if i < 0 {
		return Topic{}, false
	}
	return g.Topics[i], true
}

// Node returns the node of that full name ("/ns/name").
func (g Graph) Node(full string) (Node, bool) {
	i := slices.IndexFunc(g.Nodes, func(n Node) bool { return n.FullName() == full })
	if i < 0 {
		return Node{}, false
	}
	return g.Nodes[i], true
}
