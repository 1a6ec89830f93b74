package graph_test

import (
	"fmt"

	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/ros2/graph"
	"github.com/actbridge/actbridge/rtps"
	"github.com/actbridge/actbridge/rtps/wire"
)

// A Jazzy participant's ros_discovery_info sample, written and read back:
// a Gid there is 16 bytes.
func ExampleCodec() {
	set, _ := msgs.Load(msgs.Jazzy)
	s, _ := set.Struct(graph.InfoTypeName)
	c, _ := graph.NewCodec(s)
	var prefix wire.GUIDPrefix
	prefix[0] = 1
	pub := wire.GUID{Prefix: prefix, Entity: 0x103}
	b, _ := c.Encode(graph.ParticipantInfo{GID: wire.GUID{Prefix: prefix, Entity: wire.EntityIDParticipant},
		Nodes: []graph.NodeInfo{{Namespace: "/", Name: "talker", Writers: []wire.GUID{pub}}}})
	info, _ := c.Decode(b)
	fmt.Println(c.GIDLen(), info.Nodes[0].Name, info.Nodes[0].Writers[0] == pub)
	// Output: 16 talker true
}

// The graph names each publisher's node and vendor, and the topic's type
// as `ros2 topic list -t` prints it.
func ExampleBuild() {
	var prefix wire.GUIDPrefix
	prefix[0] = 7
	pub := wire.GUID{Prefix: prefix, Entity: 0x103}
	g := graph.Build(
		[]rtps.ParticipantData{{Prefix: prefix, Vendor: wire.VendorCyclone, UserData: graph.ParticipantUserData("/")}},
		[]rtps.EndpointData{{GUID: pub, Writer: true, Topic: "rt/chatter", Type: "std_msgs::msg::dds_::String_", Vendor: wire.VendorCyclone}},
		[]graph.ParticipantInfo{{GID: wire.GUID{Prefix: prefix, Entity: wire.EntityIDParticipant},
			Nodes: []graph.NodeInfo{{Namespace: "/", Name: "talker", Writers: []wire.GUID{pub}}}}})
	t := g.Topics[0]
	fmt.Println(t.Name, t.Types, t.Publishers[0].Node, graph.VendorName(t.Publishers[0].Vendor))
	// Output: /chatter [std_msgs/msg/String] /talker Eclipse Cyclone DDS
}
