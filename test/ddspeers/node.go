package ddspeers

import (
	"fmt"
	"strings"
	"testing"

	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/msgs/ros2"
)

// NodePeers are the peers that play ROS 2 nodes, each in its own RMW's
// dialect: cycnode (CycloneDDS, as rmw_cyclonedds) and fastnode (Fast DDS,
// as rmw_fastrtps). Their modes and JSON lines are in peers/README.md and
// on the Start* helpers.
type NodePeers struct {
	Distro  msgs.Distro
	Cyclone string // path of cycnode
	Fast    string // path of fastnode (Fast DDS 2.9)

	fast recipe // fastnode's, built again against Fast DDS 3 by Fast3
}

// nodeRoots are the types the node peers speak; what they nest comes along.
var nodeRoots = []string{
	"std_msgs/msg/String",
	"std_srvs/srv/Trigger_Request", "std_srvs/srv/Trigger_Response",
	"rcl_interfaces/srv/ListParameters_Request", "rcl_interfaces/srv/ListParameters_Response",
	"rcl_interfaces/srv/GetParameters_Request", "rcl_interfaces/srv/GetParameters_Response",
	"rcl_interfaces/srv/SetParameters_Request", "rcl_interfaces/srv/SetParameters_Response",
	"rcl_interfaces/srv/DescribeParameters_Request", "rcl_interfaces/srv/DescribeParameters_Response",
	"rcl_interfaces/msg/ParameterEvent",
	"control_msgs/action/FollowJointTrajectory_SendGoal_Request", "control_msgs/action/FollowJointTrajectory_SendGoal_Response",
	"control_msgs/action/FollowJointTrajectory_GetResult_Request", "control_msgs/action/FollowJointTrajectory_GetResult_Response",
	"control_msgs/action/FollowJointTrajectory_FeedbackMessage",
	"action_msgs/srv/CancelGoal_Request", "action_msgs/srv/CancelGoal_Response",
	"action_msgs/msg/GoalStatusArray",
}

// BuildNodes returns the node peers of a distro, built once per distinct
// input (Humble's and Jazzy's node types are the same, so they share a
// build; Kilted's FollowJointTrajectory feedback differs). The graph
// types of both Gid sizes are in every build (--gid-size chooses).
func BuildNodes(t testing.TB, d msgs.Distro) *NodePeers {
	t.Helper()
	skipWithout(t, requiredTools())
	set, err := msgs.Load(d)
	if err != nil {
		t.Fatal(err)
	}
	var roots []*cdr.Struct
	for _, n := range nodeRoots {
		s, err := set.Struct(n)
		if err != nil {
			t.Fatal(err)
		}
		roots = append(roots, s)
	}
	graph, err := graphIDL()
	if err != nil {
		t.Fatal(err)
	}
	plain, err := IDL(roots)
	if err != nil {
		t.Fatal(err)
	}
	hashes, err := typeHashes(set, roots)
	if err != nil {
		t.Fatal(err)
	}
	cyc := recipe{
		name: "cycnode", source: "cycnode.c",
		files: map[string]string{"nodetypes.idl": plain + graph + cycloneWrappers(roots), "nodehashes.h": hashes},
		steps: [][]string{
			{"idlc", "-t", "-x", "final", "nodetypes.idl"},
			{"gcc", "-O1", "-Wall", "-o", "cycnode", "cycnode.c", "nodetypes.c", "-I.", "-lddsc"},
		},
	}
	fast := recipe{
		name: "fastnode", source: "fastnode.cpp", includes: []string{"fastcompat.hpp"},
		files: map[string]string{"nodetypes.idl": plain + graph, "nodehashes.h": hashes},
		steps: [][]string{
			{"fastddsgen", "-replace", "-d", ".", "nodetypes.idl"},
			{"g++", "-O1", "-std=c++17", "-o", "fastnode", "fastnode.cpp", "nodetypes.cxx", "nodetypesPubSubTypes.cxx", "-I.", "-lfastrtps", "-lfastcdr"},
		},
		steps3: [][]string{
			{"fastddsgen", "-replace", "-d", ".", "nodetypes.idl"},
			{"g++", "-O1", "-std=c++17", "-o", "fastnode", "fastnode.cpp", "nodetypesPubSubTypes.cxx", "nodetypesTypeObjectSupport.cxx", "-I.", "-lfastdds", "-lfastcdr"},
		},
	}
	ctx := t.Context()
	results := make(chan error, 1)
	p := &NodePeers{Distro: d, fast: fast}
	go func() {
		var err error
		p.Cyclone, err = cyc.build(ctx, peerCache(t))
		results <- err
	}()
	p.Fast, err = fast.build(ctx, peerCache(t))
	if err2 := <-results; err == nil {
		err = err2
	}
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// graphIDL is rmw_dds_common's ParticipantEntitiesInfo with a Gid of 24
// bytes (Humble) and of 16 (Jazzy and later), each under a module of its
// own (rmw_dds_common_gid24, rmw_dds_common_gid16) so that one peer holds
// both; the peers register them under rmw's type name.
func graphIDL() (string, error) {
	var b strings.Builder
	for _, g := range []struct {
		distro msgs.Distro
		size   int
	}{{msgs.Humble, 24}, {msgs.Jazzy, 16}} {
		set, err := msgs.Load(g.distro)
		if err != nil {
			return "", err
		}
		s, err := set.Struct("rmw_dds_common/msg/ParticipantEntitiesInfo")
		if err != nil {
			return "", err
		}
		gid, err := set.Struct("rmw_dds_common/msg/Gid")
		if err != nil {
			return "", err
		}
		if got := gid.Field(0).Type.Len; got != g.size {
			return "", fmt.Errorf("ddspeers: %s's Gid holds %d bytes, want %d", g.distro, got, g.size)
		}
		idl, err := IDL([]*cdr.Struct{s})
		if err != nil {
			return "", err
		}
		b.WriteString(strings.ReplaceAll(idl, "rmw_dds_common", fmt.Sprintf("rmw_dds_common_gid%d", g.size)))
	}
	return b.String(), nil
}

// cycloneWrappers declares, for each request and reply type, the struct
// rmw_cyclonedds puts on the wire: its 16-byte header {uint64 guid; int64
// seq} before the message. The header keeps the message 8-aligned, so the
// nested message serializes as the flat fields would.
func cycloneWrappers(roots []*cdr.Struct) string {
	var b strings.Builder
	b.WriteString("module cycwrap {\n")
	for _, s := range roots {
		if n := s.Name(); strings.HasSuffix(n, "_Request") || strings.HasSuffix(n, "_Response") {
			fmt.Fprintf(&b, "struct %s { uint64 guid; int64 seq; %s data; };\n", cName(n), DDSTypeName(n))
		}
	}
	b.WriteString("};\n")
	return b.String()
}

// typeHashes writes the table the peers' --typehash takes endpoints' user
// data from: each type's RIHS01 hash by its DDS name, and Jazzy's for the
// graph type (Humble, the one Gid of 24 bytes, sends no hashes).
func typeHashes(set *msgs.Set, roots []*cdr.Struct) (string, error) {
	jazzy, err := msgs.Load(msgs.Jazzy)
	if err != nil {
		return "", err
	}
	graph, err := jazzy.TypeHash("rmw_dds_common/msg/ParticipantEntitiesInfo")
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("static const char *const type_hashes[][2] = {\n")
	fmt.Fprintf(&b, "  { %q, %q },\n", DDSTypeName("rmw_dds_common/msg/ParticipantEntitiesInfo"), graph)
	for _, s := range roots {
		h, err := set.TypeHash(s.Name())
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "  { %q, %q },\n", DDSTypeName(s.Name()), h)
	}
	b.WriteString("};\n")
	return b.String(), nil
}
