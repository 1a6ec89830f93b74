package ros2interop

import (
	"context"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/ros2/graph"
	"github.com/actbridge/actbridge/ros2/node"
	"github.com/actbridge/actbridge/ros2/qos"
	"github.com/actbridge/actbridge/rtps/wire"
	"github.com/actbridge/actbridge/test/ddspeers"
	"github.com/actbridge/actbridge/test/netns"
)

// nodeVendors are the peers that play ROS 2 nodes (cycnode, fastnode on
// Fast DDS 2.9 and on Fast DDS 3.1, the last skipped without its root).
func nodeVendors(t *testing.T) (string, []vendor) {
	t.Helper()
	ns := netns.Require(t)
	p := ddspeers.BuildNodes(t, msgs.Jazzy) // Humble's node types are the same build
	return ns, []vendor{{"fast", p.Fast, wire.VendorEProsima}, {"cyclone", p.Cyclone, wire.VendorCyclone}, {"fast3", p.Fast3(t), wire.VendorEProsima}}
}

// gidSize is a distro and the size of its Gid.
type gidSize struct {
	distro msgs.Distro
	size   int
}

// eachNodePeer runs f for each node peer and each Gid size (Humble 24,
// Jazzy 16), each in a domain of its own from base on.
func eachNodePeer(t *testing.T, base int, f func(t *testing.T, ctx context.Context, ns string, v vendor, gs gidSize, domain int)) {
	ns, vs := nodeVendors(t)
	for i, v := range vs {
		for j, gs := range []gidSize{{msgs.Humble, 24}, {msgs.Jazzy, 16}} {
			t.Run(fmt.Sprintf("%s %s", v.name, gs.distro), func(t *testing.T) {
				ddspeers.SkipMissing(t, v.bin)
				ctx, cancel := context.WithTimeout(t.Context(), 40*time.Second)
				defer cancel()
				f(t, ctx, ns, v, gs, base+2*i+j)
			})
		}
	}
}

// TestPeerNodesAppearInOurGraph: a node each vendor's peer announces on
// ros_discovery_info (Humble's 24-byte and Jazzy's 16-byte Gids) is in
// our graph with the peer's vendor, and owns the publisher and
// subscriber of its topics, whose type hashes (Jazzy) are read as
// announced; `actbridge ros2 nodes` and `topics` list them.
func TestPeerNodesAppearInOurGraph(t *testing.T) {
	eachNodePeer(t, 140, func(t *testing.T, ctx context.Context, ns string, v vendor, gs gidSize, domain int) {
		args := []string{"--namespace", "/robot", "--pub", "rt/chatter", "--sub", "rt/listen", "--domain", fmt.Sprint(domain)}
		if gs.distro != msgs.Humble {
			args = append(args, "--typehash")
		}
		peer := ddspeers.StartAnnouncer(t, ns, v.bin, "talker", gs.size, args...)
		c := newContext(t, gs.distro, domain)
		// The writer's and the reader's announcements arrive apart: wait
		// for both, each with its node.
		g, err := c.WaitGraph(ctx, func(g graph.Graph) bool {
			t, ok := g.Topic("/chatter")
			l, lok := g.Topic("/listen")
			return ok && len(t.Publishers) == 1 && t.Publishers[0].Node != "" && lok && len(l.Subscribers) == 1 && l.Subscribers[0].Node != ""
		})
		if err != nil {
			t.Fatalf("%v: graph %+v: %s", err, g, peer.Stderr())
		}
		n, ok := g.Node("/robot/talker")
		if !ok || n.Vendor != v.id {
			t.Fatalf("nodes %+v", g.Nodes)
		}
		chatter, _ := g.Topic("/chatter")
		listen, _ := g.Topic("/listen")
		if chatter.Publishers[0].Node != "/robot/talker" || chatter.Types[0] != "std_msgs/msg/String" ||
			len(listen.Subscribers) != 1 || listen.Subscribers[0].Node != "/robot/talker" || listen.Subscribers[0].Vendor != v.id {
			t.Fatalf("topics %+v %+v", chatter, listen)
		}
		wantHash := ""
		if gs.distro != msgs.Humble {
			wantHash, _ = c.TypeHash("std_msgs/msg/String")
		}
		if chatter.Publishers[0].TypeHash != wantHash || listen.Subscribers[0].TypeHash != wantHash {
			t.Fatalf("type hashes %q %q, want %q", chatter.Publishers[0].TypeHash, listen.Subscribers[0].TypeHash, wantHash)
		}
		for _, p := range g.Participants {
			if p.Vendor == v.id && p.Enclave != "/" {
				t.Fatalf("the peer's enclave read as %q", p.Enclave)
			}
		}
		if gs.distro != msgs.Jazzy {
			return
		}
		out, errOut, err := actbridge(ctx, t, domain, node.Subnet, "nodes", "--interface", "127.0.0.1", "--timeout", "20s")
		if want := fmt.Sprintf("/robot/talker (%s)\n", graph.VendorName(v.id)); err != nil || !strings.Contains(out, want) {
			t.Fatalf("nodes: %v: %s\nstdout:\n%s\nwant %q", err, errOut, out, want)
		}
		out, errOut, err = actbridge(ctx, t, domain, node.Subnet, "topics", "--interface", "127.0.0.1", "--timeout", "20s")
		want := fmt.Sprintf("/chatter [std_msgs/msg/String]\n  publisher  /robot/talker (%[1]s)\n/listen [std_msgs/msg/String]\n  subscriber /robot/talker (%[1]s)\n", graph.VendorName(v.id))
		if err != nil || !strings.Contains(out, want) {
			t.Fatalf("topics: %v: %s\nstdout:\n%s\nwant:\n%s", err, errOut, out, want)
		}
	})
}

// TestPeerServiceServersAppearInOurGraph: a Trigger server each vendor's
// peer runs as a node is a service of our graph with its ROS type, and
// its request reader and reply writer are the node's, with the vendor.
func TestPeerServiceServersAppearInOurGraph(t *testing.T) {
	eachNodePeer(t, 170, func(t *testing.T, ctx context.Context, ns string, v vendor, gs gidSize, domain int) {
		peer := ddspeers.StartTriggerServer(t, ns, v.bin, "/trigger", "--node", "server", "--namespace", "/robot",
			"--gid-size", fmt.Sprint(gs.size), "--timeout", "0", "--domain", fmt.Sprint(domain))
		c := newContext(t, gs.distro, domain)
		g, err := c.WaitGraph(ctx, func(g graph.Graph) bool {
			return len(g.Services) == 1 && len(g.Services[0].Servers) == 2 &&
				g.Services[0].Servers[0].Node != "" && g.Services[0].Servers[1].Node != ""
		})
		if err != nil {
			t.Fatalf("%v: services %+v: %s", err, g.Services, peer.Stderr())
		}
		s := g.Services[0]
		if s.Name != "/trigger" || !slices.Equal(s.Types, []string{"std_srvs/srv/Trigger"}) || len(s.Clients) != 0 {
			t.Fatalf("service %+v", s)
		}
		for _, e := range s.Servers {
			if e.Node != "/robot/server" || e.Vendor != v.id {
				t.Fatalf("server endpoint %+v", e)
			}
		}
	})
}

// TestOurNodeAppearsInPeersGraph: each vendor's graph listener, reading
// ros_discovery_info with the distro's Gid size (and failing loudly on
// any other), sees our node with its namespace, our participant's Gid,
// and our publisher's and subscription's Gids.
func TestOurNodeAppearsInPeersGraph(t *testing.T) {
	eachNodePeer(t, 150, func(t *testing.T, ctx context.Context, ns string, v vendor, gs gidSize, domain int) {
		peer := ddspeers.StartGraphListener(t, ns, v.bin, gs.size, "--domain", fmt.Sprint(domain))
		if err := peer.WaitStderr(ctx, "ready"); err != nil {
			t.Fatalf("graph listener: %v: %s", err, peer.Stderr())
		}
		c := newContext(t, gs.distro, domain)
		n, err := c.NewNode("bridge", "/arm")
		if err != nil {
			t.Fatal(err)
		}
		pub, err := n.NewPublisher("chatter", "std_msgs/msg/String", qos.Default)
		if err != nil {
			t.Fatal(err)
		}
		sub, err := n.NewSubscription("listen", "std_msgs/msg/String", qos.Default, node.SubscriptionOptions{})
		if err != nil {
			t.Fatal(err)
		}
		gid := func(g wire.GUID) string {
			b := g.Bytes()
			return hex.EncodeToString(append(b[:], make([]byte, gs.size-16)...))
		}
		want := ddspeers.NodeInfo{Namespace: "/arm", Name: "bridge", Readers: []string{gid(sub.GUID())}, Writers: []string{gid(pub.GUID())}}
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			infos, err := ddspeers.JSONLines[ddspeers.ParticipantInfo](peer.Stdout())
			if err != nil {
				t.Fatal(err)
			}
			if slices.ContainsFunc(infos, func(p ddspeers.ParticipantInfo) bool {
				return p.Gid == gid(c.Participant().GUID()) && slices.ContainsFunc(p.Nodes, func(n ddspeers.NodeInfo) bool {
					return n.Namespace == want.Namespace && n.Name == want.Name && slices.Equal(n.Readers, want.Readers) && slices.Equal(n.Writers, want.Writers)
				})
			}) {
				return
			}
			if why, bad := peer.Malformed(); bad {
				t.Fatalf("the peer refused our sample: %s", why)
			}
			select {
			case <-ctx.Done():
				t.Fatalf("the peer never saw %+v; it printed:\n%s\n%s", want, peer.Stdout(), peer.Stderr())
			case <-tick.C:
			}
		}
	})
}

// TestOurEndpointsAsCycloneDiscoverySeesThem: CycloneDDS's own discovery
// (DCPSPublication, DCPSSubscription) reports our publisher and
// subscription with rmw's topic and type names, and user data
// "typehash=RIHS01_…;" equal to the distro's hash on Jazzy and Kilted,
// none on Humble; our ros_discovery_info writer is there, unprefixed.
func TestOurEndpointsAsCycloneDiscoverySeesThem(t *testing.T) {
	ns := netns.Require(t)
	cyc := ddspeers.BuildNodes(t, msgs.Jazzy).Cyclone
	for i, d := range msgs.Distros() {
		t.Run(string(d), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			domain := 190 + i
			peer := ddspeers.StartEndpoints(t, ns, cyc, "--domain", fmt.Sprint(domain))
			if err := peer.WaitStderr(ctx, "ready"); err != nil {
				t.Fatalf("endpoints: %v: %s", err, peer.Stderr())
			}
			c := newContext(t, d, domain)
			n, err := c.NewNode("bridge", "/")
			if err != nil {
				t.Fatal(err)
			}
			pub, err := n.NewPublisher("joint_states", jointState, qos.Default)
			if err != nil {
				t.Fatal(err)
			}
			sub, err := n.NewSubscription("chatter", "std_msgs/msg/String", qos.Default, node.SubscriptionOptions{})
			if err != nil {
				t.Fatal(err)
			}
			userData := func(typ string) string {
				if d == msgs.Humble {
					return ""
				}
				h, err := c.TypeHash(typ)
				if err != nil {
					t.Fatal(err)
				}
				return "typehash=" + h + ";"
			}
			hexGUID := func(g wire.GUID) string { b := g.Bytes(); return hex.EncodeToString(b[:]) }
			want := []ddspeers.EndpointInfo{
				{Kind: "writer", GUID: hexGUID(pub.GUID()), Topic: "rt/joint_states", Type: "sensor_msgs::msg::dds_::JointState_", UserData: userData(jointState)},
				{Kind: "reader", GUID: hexGUID(sub.GUID()), Topic: "rt/chatter", Type: "std_msgs::msg::dds_::String_", UserData: userData("std_msgs/msg/String")},
				{Kind: "writer", Topic: graph.InfoTopic, Type: graph.InfoType, UserData: userData(graph.InfoTypeName)},
			}
			tick := time.NewTicker(50 * time.Millisecond)
			defer tick.Stop()
			for {
				seen, err := ddspeers.JSONLines[ddspeers.EndpointInfo](peer.Stdout())
				if err != nil {
					t.Fatal(err)
				}
				missing := slices.DeleteFunc(slices.Clone(want), func(w ddspeers.EndpointInfo) bool {
					return slices.ContainsFunc(seen, func(s ddspeers.EndpointInfo) bool {
						return s.Kind == w.Kind && (w.GUID == "" || s.GUID == w.GUID) && s.Topic == w.Topic && s.Type == w.Type && s.UserData == w.UserData
					})
				})
				if len(missing) == 0 {
					return
				}
				select {
				case <-ctx.Done():
					t.Fatalf("Cyclone never reported %+v; it reported:\n%s", missing, peer.Stdout())
				case <-tick.C:
				}
			}
		})
	}
}

// TestCLICallAgainstPeerTriggerServers: `actbridge ros2 call /trigger`,
// run as a built binary, finds each vendor's Trigger server and its type
// in the graph, calls it once in that vendor's dialect (the peer exits
// MALFORMED on the other) and prints the reply as JSON; the server saw
// exactly one request. A request that is not a Trigger request is refused
// before anything is sent. With --config, the robot config's domain_id
// and distro are used over ROS 2's variables.
func TestCLICallAgainstPeerTriggerServers(t *testing.T) {
	eachNodePeer(t, 190, func(t *testing.T, ctx context.Context, ns string, v vendor, gs gidSize, domain int) {
		peer := ddspeers.StartTriggerServer(t, ns, v.bin, "/trigger", "--node", "server", "--gid-size", fmt.Sprint(gs.size),
			"--timeout", "0", "--domain", fmt.Sprint(domain))
		out, errOut, err := actbridge(ctx, t, domain, node.Localhost, "call", "/trigger", "{}", "--timeout", "20s")
		want := fmt.Sprintf(`{"success":true,"message":"%s call 1"}`, map[string]string{"fast": "fastdds", "cyclone": "cyclonedds", "fast3": "fastdds3"}[v.name])
		if err != nil || strings.TrimSpace(out) != want {
			t.Fatalf("call: %v: %s\nstdout: %s\nwant: %s\npeer: %s", err, errOut, out, want, peer.Stderr())
		}
		_, errOut, err = actbridge(ctx, t, domain, node.Localhost, "call", "/trigger", `{"data":1}`, "--timeout", "20s")
		if err == nil || !strings.Contains(errOut, `"data"`) {
			t.Fatalf("a request with a field Trigger has not: %v: %s", err, errOut)
		}
		// --config: the config's domain_id wins over ROS_DOMAIN_ID (set here
		// to a domain nobody is on), as serve reads it.
		cfg := filepath.Join(t.TempDir(), "robot.yaml")
		shipped, err := os.ReadFile(filepath.Join("..", "..", "launch", "robots", "sim-ros2.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		text := strings.Replace(string(shipped), "distro: jazzy", fmt.Sprintf("distro: %s\ndomain_id: %d", gs.distro, domain), 1)
		if err := os.WriteFile(cfg, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		out, errOut, err = actbridge(ctx, t, domain+20, node.Localhost, "call", "/trigger", "--config", cfg, "--timeout", "20s")
		want = fmt.Sprintf(`{"success":true,"message":"%s call 2"}`, map[string]string{"fast": "fastdds", "cyclone": "cyclonedds", "fast3": "fastdds3"}[v.name])
		if err != nil || strings.TrimSpace(out) != want {
			t.Fatalf("call --config: %v: %s\nstdout: %s\nwant: %s\npeer: %s", err, errOut, out, want, peer.Stderr())
		}
		if m, bad := peer.Malformed(); bad {
			t.Fatalf("peer refused our frame: %s", m)
		}
		if n := strings.Count(string(peer.Stdout()), `"call":`); n != 2 {
			t.Fatalf("the server saw %d requests, want 2 (one per call):\n%s", n, peer.Stdout())
		}
	})
}
