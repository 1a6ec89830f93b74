package graph

import (
	"fmt"

	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/rtps/wire"
)

// The topic on which every rmw participant announces its nodes: no "rt/"
// prefix (avoid_ros_namespace_conventions), reliable and transient_local,
// the writer keeping the last sample and readers all of them.
const (
	InfoTopic = "ros_discovery_info"
	// InfoType is the DDS type name; InfoTypeName the ROS one, to look up
	// in a distro's definitions.
	InfoType     = "rmw_dds_common::msg::dds_::ParticipantEntitiesInfo_"
	InfoTypeName = "rmw_dds_common/msg/ParticipantEntitiesInfo"
)

// maxInfoNodes bounds the nodes kept from one participant's announcement.
const maxInfoNodes = 1024

// NodeInfo is one node in a participant's announcement: its name and the
// GUIDs of the readers and writers it owns.
type NodeInfo struct {
	Namespace, Name string
	Readers         []wire.GUID
	Writers         []wire.GUID
}

// ParticipantInfo is one ros_discovery_info sample: the participant's GUID
// and its nodes.
type ParticipantInfo struct {
	GID   wire.GUID
	Nodes []NodeInfo
}

// Codec reads and writes ros_discovery_info samples of one distro's
// definition: a Gid is a GUID followed by zeros up to the distro's Gid
// size (24 on Humble, 16 later), as rmw copies it.
type Codec struct {
	info, node, gid *cdr.Struct
	gidLen          int
}

// NewCodec checks that info is rmw_dds_common's ParticipantEntitiesInfo
// (resolved from a distro's definitions) and returns its codec.
func NewCodec(info *cdr.Struct) (*Codec, error) {
	c := &Codec{info: info}
	gid, ok := field(info, "gid", cdr.Single)
	seq, ok2 := field(info, "node_entities_info_seq", cdr.Sequence)
	if !ok || !ok2 {
		return nil, fmt.Errorf("%w: %s", ErrInfoType, info.Name())
	}
	c.gid, c.node = gid.Struct, seq.Struct
	data, ok := field(c.gid, "data", cdr.Array)
	if !ok || data.Len < 16 || (data.Kind != cdr.Char && data.Kind != cdr.Uint8 && data.Kind != cdr.Byte) {
		return nil, fmt.Errorf("%w: Gid of %s", ErrInfoType, info.Name())
	}
	c.gidLen = data.Len
	for _, f := range []struct {
		name string
		col  cdr.Collection
	}{{"node_namespace", cdr.Single}, {"node_name", cdr.Single}, {"reader_gid_seq", cdr.Sequence}, {"writer_gid_seq", cdr.Sequence}} {
		if _, ok := field(c.node, f.name, f.col); !ok {
			return nil, fmt.Errorf("%w: NodeEntitiesInfo has no %s", ErrInfoType, f.name)
		}
	}
	return c, nil
}

// field returns the type of s's field name if it has that collection
// (and a nested struct where one is needed).
func field(s *cdr.Struct, name string, col cdr.Collection) (cdr.Type, bool) {
	i := s.FieldIndex(name)
	if i < 0 {
		return cdr.Type{}, false
	}
	t := s.Field(i).Type
	if t.Collection != col {
		return t, false
	}
	if (name == "gid" || col == cdr.Sequence) && t.Struct == nil {
		return t, false
	}
	return t, true
}

// GIDLen is the size of the distro's Gid.
func (c *Codec) GIDLen() int { return c.gidLen }

// Encode returns info as a sample (encapsulation header first, little endian).
func (c *Codec) Encode(info ParticipantInfo) ([]byte, error) {
	m := cdr.Zero(c.info)
	m.Fields[c.info.FieldIndex("gid")] = c.gidMessage(info.GID)
	nodes := make([]*cdr.Message, len(info.Nodes))
	for i, n := range info.Nodes {
		nm := cdr.Zero(c.node)
		nm.Fields[c.node.FieldIndex("node_namespace")] = n.Namespace
		nm.Fields[c.node.FieldIndex("node_name")] = n.Name
		nm.Fields[c.node.FieldIndex("reader_gid_seq")] = c.gidMessages(n.Readers)
		nm.Fields[c.node.FieldIndex("writer_gid_seq")] = c.gidMessages(n.Writers)
		nodes[i] = nm
	}
	m.Fields[c.info.FieldIndex("node_entities_info_seq")] = nodes
	return cdr.Encode(m, cdr.LittleEndian)
}

func (c *Codec) gidMessage(g wire.GUID) *cdr.Message {
	b := g.Bytes()
	data := make([]uint8, c.gidLen)
	copy(data, b[:])
	m := cdr.Zero(c.gid)
	m.Fields[c.gid.FieldIndex("data")] = data
	return m
}

func (c *Codec) gidMessages(gs []wire.GUID) []*cdr.Message {
	out := make([]*cdr.Message, len(gs))
	for i, g := range gs {
		out[i] = c.gidMessage(g)
	}
	return out
}

// Decode reads a sample. A Gid's bytes past the GUID are ignored (rmw
// leaves them zero); at most 1024 nodes are kept.
func (c *Codec) Decode(payload []byte) (ParticipantInfo, error) {
	var info ParticipantInfo
	m, err := cdr.Decode(c.info, payload)
	if err != nil {
		return info, fmt.Errorf("%w: %v", ErrInfo, err)
	}
	if info.GID, err = gidOf(m.Get("gid")); err != nil {
		return info, err
	}
	nodes, _ := m.Get("node_entities_info_seq").([]*cdr.Message)
	if len(nodes) > maxInfoNodes {
		nodes = nodes[:maxInfoNodes]
	}
	for _, nm := range nodes {
		n := NodeInfo{}
		n.Namespace, _ = nm.Get("node_namespace").(string)
		n.Name, _ = nm.Get("node_name").(string)
		if n.Readers, err = gidsOf(nm.Get("reader_gid_seq")); err != nil {
			return info, err
		}
		if n.Writers, err = gidsOf(nm.Get("writer_gid_seq")); err != nil {
			return info, err
		}
		info.Nodes = append(info.Nodes, n)
	}
	return info, nil
}

func gidOf(v any) (wire.GUID, error) {
	m, ok := v.(*cdr.Message)
	if !ok {
		return wire.GUID{}, fmt.Errorf("%w: no gid", ErrInfo)
	}
	data, _ := m.Get("data").([]uint8)
	if len(data) < 16 {
		return wire.GUID{}, fmt.Errorf("%w: gid of %d bytes", ErrInfo, len(data))
	}
	g, err := wire.GUIDFromBytes(data[:16])
	if err != nil {
		return g, fmt.Errorf("%w: gid: %v", ErrInfo, err)
	}
	return g, nil
}

func gidsOf(v any) ([]wire.GUID, error) {
	ms, _ := v.([]*cdr.Message)
	out := make([]wire.GUID, 0, len(ms))
	for _, m := range ms {
		g, err := gidOf(m)
		if err != nil {
			return nil, err
		}
		out = append(out, g)
	}
	return out, nil
}
