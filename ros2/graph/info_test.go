package graph_test

import (
	"errors"
	"reflect"
	"testing"

	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/ros2/graph"
	"github.com/actbridge/actbridge/rtps/wire"
)

func codec(t testing.TB, d msgs.Distro) *graph.Codec {
	t.Helper()
	set, err := msgs.Load(d)
	if err != nil {
		t.Fatal(err)
	}
	s, err := set.Struct(graph.InfoTypeName)
	if err != nil {
		t.Fatal(err)
	}
	c, err := graph.NewCodec(s)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func guid(b byte, entity wire.EntityID) wire.GUID {
	var p wire.GUIDPrefix
	for i := range p {
		p[i] = b + byte(i)
	}
	return wire.GUID{Prefix: p, Entity: entity}
}

func sampleInfo() graph.ParticipantInfo {
	return graph.ParticipantInfo{GID: guid(1, wire.EntityIDParticipant), Nodes: []graph.NodeInfo{
		{Namespace: "/", Name: "talker", Writers: []wire.GUID{guid(1, 0x102)}, Readers: []wire.GUID{guid(1, 0x207), guid(1, 0x307)}},
		{Namespace: "/arm", Name: "driver"},
	}}
}

// TestInfoGidSizeFollowsTheDistro: Humble's Gid is 24 bytes, Jazzy's,
// Kilted's and Lyrical's 16, so the same announcement differs in size by 8 bytes per
// Gid, and each distro reads back exactly what it wrote.
func TestInfoGidSizeFollowsTheDistro(t *testing.T) {
	info := sampleInfo()
	gids := 1 + 3
	sizes := map[msgs.Distro]int{}
	for _, d := range msgs.Distros() {
		c := codec(t, d)
		b, err := c.Encode(info)
		if err != nil {
			t.Fatal(err)
		}
		got, err := c.Decode(b)
		if err != nil {
			t.Fatalf("%s: %v", d, err)
		}
		want := info
		want.Nodes[1].Readers, want.Nodes[1].Writers = []wire.GUID{}, []wire.GUID{}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: read back %+v, wrote %+v", d, got, info)
		}
		sizes[d] = len(b)
		if want := map[msgs.Distro]int{msgs.Humble: 24, msgs.Jazzy: 16, msgs.Kilted: 16, msgs.Lyrical: 16}[d]; c.GIDLen() != want {
			t.Fatalf("%s: Gid of %d bytes", d, c.GIDLen())
		}
	}
	if sizes[msgs.Humble]-sizes[msgs.Jazzy] != 8*gids || sizes[msgs.Kilted] != sizes[msgs.Jazzy] || sizes[msgs.Lyrical] != sizes[msgs.Jazzy] {
		t.Fatalf("sizes %v: want Humble = Jazzy + 8 per Gid (%d Gids), Kilted = Lyrical = Jazzy", sizes, gids)
	}
}

// TestInfoGidIsTheGUIDPaddedWithZeros: the Gid's first 16 bytes are the
// GUID as it goes on the wire, the rest zero, as rmw copies it.
func TestInfoGidIsTheGUIDPaddedWithZeros(t *testing.T) {
	c := codec(t, msgs.Humble)
	g := guid(9, wire.EntityIDParticipant)
	b, err := c.Encode(graph.ParticipantInfo{GID: g})
	if err != nil {
		t.Fatal(err)
	}
	want := g.Bytes()
	if !reflect.DeepEqual(b[4:20], want[:]) || !reflect.DeepEqual(b[20:28], make([]byte, 8)) {
		t.Fatalf("gid bytes % x, want % x then 8 zeros", b[4:28], want)
	}
}

// TestNewCodecRefusesOtherTypes: a struct without Gid and node list is
// not taken for ParticipantEntitiesInfo.
func TestNewCodecRefusesOtherTypes(t *testing.T) {
	set, err := msgs.Load(msgs.Jazzy)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"std_msgs/msg/Header", "rmw_dds_common/msg/NodeEntitiesInfo"} {
		s, err := set.Struct(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := graph.NewCodec(s); !errors.Is(err, graph.ErrInfoType) {
			t.Fatalf("%s: %v, want ErrInfoType", name, err)
		}
	}
}

// TestDecodeRejectsTruncatedInfo: every truncation of a valid sample is an
// error or a shorter valid reading, never a panic.
func TestDecodeRejectsTruncatedInfo(t *testing.T) {
	c := codec(t, msgs.Jazzy)
	b, err := c.Encode(sampleInfo())
	if err != nil {
		t.Fatal(err)
	}
	for n := range len(b) - 1 {
		if _, err := c.Decode(b[:n]); err == nil {
			t.Fatalf("a sample cut to %d of %d bytes decoded", n, len(b))
		} else if !errors.Is(err, graph.ErrInfo) {
			t.Fatalf("cut to %d: %v, want ErrInfo", n, err)
		}
	}
}

func FuzzDecodeInfo(f *testing.F) {
	for _, d := range []msgs.Distro{msgs.Humble, msgs.Jazzy} {
		b, err := codec(f, d).Encode(sampleInfo())
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte{0, 1, 0, 0, 0xff, 0xff, 0xff, 0x7f})
	humble, jazzy := codec(f, msgs.Humble), codec(f, msgs.Jazzy)
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, c := range []*graph.Codec{humble, jazzy} {
			info, err := c.Decode(b)
			if err != nil {
				continue
			}
			// What decodes encodes again to a sample that reads the same.
			again, err := c.Encode(info)
			if err != nil {
				t.Fatalf("re-encoding %+v: %v", info, err)
			}
			back, err := c.Decode(again)
			if err != nil || !reflect.DeepEqual(normal(back), normal(info)) {
				t.Fatalf("round trip changed %+v into %+v (%v)", info, back, err)
			}
		}
	})
}

// normal makes empty and nil GUID lists equal.
func normal(i graph.ParticipantInfo) graph.ParticipantInfo {
	for k := range i.Nodes {
		if len(i.Nodes[k].Readers) == 0 {
			i.Nodes[k].Readers = nil
		}
		if len(i.Nodes[k].Writers) == 0 {
			i.Nodes[k].Writers = nil
		}
	}
	return i
}
