package graph_test

import (
	"reflect"
	"testing"

	"github.com/actbridge/actbridge/ros2/graph"
	"github.com/actbridge/actbridge/rtps"
	"github.com/actbridge/actbridge/rtps/wire"
)

func participant(b byte, v wire.VendorID, ud string) rtps.ParticipantData {
	return rtps.ParticipantData{Prefix: guid(b, 0).Prefix, Vendor: v, UserData: []byte(ud)}
}

func endpoint(g wire.GUID, writer bool, topic, typ string, v wire.VendorID) rtps.EndpointData {
	return rtps.EndpointData{GUID: g, Writer: writer, Topic: topic, Type: typ, Vendor: v}
}

// TestBuildNamesOwnersTypesAndVendors: topics get ROS names and types,
// endpoints the node their participant announced (or none: another
// participant cannot claim them) and their vendor; services pair servers and clients; ros_discovery_info and
// announcements of unknown participants are left out.
func TestBuildNamesOwnersTypesAndVendors(t *testing.T) {
	const js = "sensor_msgs::msg::dds_::JointState_"
	fast, cyc, gone := byte(1), byte(40), byte(80)
	parts := []rtps.ParticipantData{participant(fast, wire.VendorEProsima, "enclave=/;"), participant(cyc, wire.VendorCyclone, "")}
	pub, sub, anon := guid(fast, 0x103), guid(fast, 0x204), guid(cyc, 0x303)
	srvReq, srvRep := guid(cyc, 0x404), guid(cyc, 0x503)
	eps := []rtps.EndpointData{
		endpoint(pub, true, "rt/joint_states", js, wire.VendorEProsima),
		endpoint(sub, false, "rt/joint_states", js, wire.VendorEProsima),
		endpoint(anon, true, "rt/ns/odd", "PlainDDSType", wire.VendorCyclone),
		endpoint(guid(cyc, 0x603), true, graph.InfoTopic, graph.InfoType, wire.VendorCyclone),
		endpoint(srvReq, false, "rq/triggerRequest", "std_srvs::srv::dds_::Trigger_Request_", wire.VendorCyclone),
		endpoint(srvRep, true, "rr/triggerReply", "std_srvs::srv::dds_::Trigger_Response_", wire.VendorCyclone),
	}
	eps[0].UserData = []byte("typehash=RIHS01_ab;")
	infos := []graph.ParticipantInfo{
		{GID: guid(fast, wire.EntityIDParticipant), Nodes: []graph.NodeInfo{{Namespace: "/", Name: "talker", Writers: []wire.GUID{pub}, Readers: []wire.GUID{sub}}}},
		{GID: guid(cyc, wire.EntityIDParticipant), Nodes: []graph.NodeInfo{{Namespace: "/robot", Name: "server", Readers: []wire.GUID{srvReq}, Writers: []wire.GUID{srvRep}}}},
		{GID: guid(gone, wire.EntityIDParticipant), Nodes: []graph.NodeInfo{{Namespace: "/", Name: "ghost"}}},
	}
	// Cyclone's participant claims Fast DDS's subscriber too; it is not its own.
	infos[1].Nodes[0].Readers = append(infos[1].Nodes[0].Readers, sub)
	infos[0].Nodes[0].Readers = nil
	g := graph.Build(parts, eps, infos)

	if got := []string{g.Nodes[0].FullName(), g.Nodes[1].FullName()}; len(g.Nodes) != 2 || !reflect.DeepEqual(got, []string{"/robot/server", "/talker"}) {
		t.Fatalf("nodes %+v", g.Nodes)
	}
	if g.Nodes[1].Vendor != wire.VendorEProsima || g.Participants[0].Enclave != "/" || g.Participants[1].Enclave != "" {
		t.Fatalf("vendor or enclave lost: %+v %+v", g.Nodes, g.Participants)
	}
	if len(g.Topics) != 2 {
		t.Fatalf("topics %+v, want /joint_states and /ns/odd only", g.Topics)
	}
	jt, ok := g.Topic("/joint_states")
	if !ok || !reflect.DeepEqual(jt.Types, []string{"sensor_msgs/msg/JointState"}) {
		t.Fatalf("/joint_states: %+v", jt)
	}
	p, s := jt.Publishers[0], jt.Subscribers[0]
	if p.Node != "/talker" || s.Node != "" || p.Vendor != wire.VendorEProsima || p.TypeHash != "RIHS01_ab" || p.Type != "sensor_msgs/msg/JointState" {
		t.Fatalf("endpoints %+v %+v", p, s)
	}
	odd, _ := g.Topic("/ns/odd")
	if odd.Types[0] != "PlainDDSType" || odd.Publishers[0].Node != "" {
		t.Fatalf("a plain DDS type keeps its name, an unannounced writer has no node: %+v", odd)
	}
	if len(g.Services) != 1 || g.Services[0].Name != "/trigger" || g.Services[0].Types[0] != "std_srvs/srv/Trigger" ||
		len(g.Services[0].Servers) != 2 || len(g.Services[0].Clients) != 0 || g.Services[0].Servers[0].Node != "/robot/server" {
		t.Fatalf("services %+v", g.Services)
	}
}

// TestUserDataValueReadsRmwPairs: rmw's "k=v;" user data, value found by
// key, other keys and malformed pairs ignored.
func TestUserDataValueReadsRmwPairs(t *testing.T) {
	for _, c := range []struct {
		ud, key, want string
		ok            bool
	}{
		{"enclave=/;", "enclave", "/", true},
		{"typehash=RIHS01_00;clientid=x;", "clientid", "x", true},
		{"enclave", "enclave", "", false},
		{"", "typehash", "", false},
		{"typehash=;", "typehash", "", true},
	} {
		if got, ok := graph.UserDataValue([]byte(c.ud), c.key); got != c.want || ok != c.ok {
			t.Errorf("%q %q: %q %v, want %q %v", c.ud, c.key, got, ok, c.want, c.ok)
		}
	}
	if graph.EndpointUserData("") != nil || string(graph.EndpointUserData("RIHS01_1")) != "typehash=RIHS01_1;" {
		t.Error("EndpointUserData")
	}
}
