package ros2interop

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/ros2/graph"
	"github.com/actbridge/actbridge/ros2/node"
	"github.com/actbridge/actbridge/ros2/qos"
	"github.com/actbridge/actbridge/rtps/wire"
	"github.com/actbridge/actbridge/test/ddspeers"
	"github.com/actbridge/actbridge/test/netns"
)

// TestMain runs the tests inside a namespace it made; each test takes a
// domain of its own.
func TestMain(m *testing.M) { netns.Main(m) }

const jointState = "sensor_msgs/msg/JointState"

type vendor struct {
	name string
	bin  string
	id   wire.VendorID
}

// setup returns the namespace, the peers, and JointStates to send, each
// with its sample line for a pub peer and its JSON as echo prints it.
func setup(t *testing.T) (string, []vendor, []*cdr.Message) {
	t.Helper()
	ns := netns.Require(t)
	p := ddspeers.Build(t)
	// JointState is the same on every distro; the peers know it too.
	set, err := msgs.Load(msgs.Jazzy)
	if err != nil {
		t.Fatal(err)
	}
	js, err := set.Struct(jointState)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(21, 7))
	sent := make([]*cdr.Message, 4)
	for i := range sent {
		sent[i] = ddspeers.RandomMessage(js, rng, 4)
	}
	return ns, []vendor{{"fast", p.Fast, wire.VendorEProsima}, {"cyclone", p.Cyclone, wire.VendorCyclone}, {"fast3", p.Fast3(t), wire.VendorEProsima}}, sent
}

// discovery is SPDP multicast on the namespace's loopback, where the
// peers' default configuration looks.
func discovery(domain int) node.Discovery {
	return node.Discovery{Domain: domain, Range: node.Subnet, Interface: netip.MustParseAddr("127.0.0.1")}
}

func newContext(t *testing.T, d msgs.Distro, domain int) *node.Context {
	t.Helper()
	c, err := node.NewContext(t.Context(), node.Options{Distro: d, Discovery: discovery(domain)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// listener starts a Jazzy Context whose node /listener subscribes to
// /joint_states with profile.
func listener(t *testing.T, domain int, profile qos.Profile) (*node.Context, *node.Subscription) {
	t.Helper()
	c := newContext(t, msgs.Jazzy, domain)
	n, err := c.NewNode("listener", "/")
	if err != nil {
		t.Fatal(err)
	}
	sub, err := n.NewSubscription("joint_states", jointState, profile, node.SubscriptionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return c, sub
}

func lines(t *testing.T, ms []*cdr.Message) string {
	t.Helper()
	var b strings.Builder
	for _, m := range ms {
		l, err := ddspeers.SampleLine(m)
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString(l)
	}
	return b.String()
}

// jsonOf is a message as `ros2 echo` prints it: comparable across the
// peers' and our definitions of the same type.
func jsonOf(ms ...*cdr.Message) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = string(m.AppendJSON(nil))
	}
	return out
}

func peerArgs(mode string, domain int, extra ...string) []string {
	return append([]string{mode, "--type", jointState, "--topic", "rt/joint_states", "--domain", fmt.Sprint(domain), "--timeout", "30"}, extra...)
}

// TestPeerPublisherReachesOurSubscriptionAndGraph: each vendor's writer
// on rt/joint_states (type sensor_msgs::msg::dds_::JointState_) reaches a
// subscription of ours to /joint_states, which decodes every JointState
// as sent; our graph lists /joint_states as sensor_msgs/msg/JointState
// with a publisher of the peer's vendor.
func TestPeerPublisherReachesOurSubscriptionAndGraph(t *testing.T) {
	ns, vs, sent := setup(t)
	for i, v := range vs {
		t.Run(v.name, func(t *testing.T) {
			ddspeers.SkipMissing(t, v.bin)
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			domain := 110 + i
			c, sub := listener(t, domain, qos.Default)
			in, feed := io.Pipe()
			t.Cleanup(func() { feed.Close() })
			pub := ddspeers.StartPeer(t, ns, v.bin, in, peerArgs("pub", domain, "--linger", "5")...)
			if err := sub.WaitMatched(ctx, 1); err != nil {
				t.Fatalf("never matched the peer's writer: %v: %s", err, pub.Stderr())
			}
			go func() {
				io.WriteString(feed, lines(t, sent))
				feed.Close()
			}()
			want := jsonOf(sent...)
			for k := range sent {
				m, info, err := sub.Take(ctx)
				if err != nil {
					t.Fatalf("sample %d: %v: %s", k, err, pub.Stderr())
				}
				if got := jsonOf(m)[0]; got != want[k] {
					t.Fatalf("sample %d from %v decoded as\n%s\nsent\n%s", k, info.Writer, got, want[k])
				}
			}
			g := c.Graph()
			tp, ok := g.Topic("/joint_states")
			if !ok || !slices.Equal(tp.Types, []string{jointState}) || len(tp.Publishers) != 1 || tp.Publishers[0].Vendor != v.id {
				t.Fatalf("graph topic %+v", tp)
			}
			if tp.Subscribers[0].Node != "/listener" {
				t.Fatalf("our own subscriber has node %q", tp.Subscribers[0].Node)
			}
		})
	}
}

// TestOurPublisherReachesPeerSubscription: JointStates from a publisher
// of ours reach each vendor's reader of rt/joint_states, which serializes
// them again with its own generated code; they decode to what was sent,
// in order. Humble and Jazzy both (the distro changes Gid and user data,
// not the topic).
func TestOurPublisherReachesPeerSubscription(t *testing.T) {
	ns, vs, sent := setup(t)
	for i, v := range vs {
		for j, d := range []msgs.Distro{msgs.Humble, msgs.Jazzy} {
			t.Run(v.name+" "+string(d), func(t *testing.T) {
				ddspeers.SkipMissing(t, v.bin)
				ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
				defer cancel()
				domain := 120 + 2*i + j
				sub := ddspeers.StartPeer(t, ns, v.bin, nil, peerArgs("sub", domain, "--count", fmt.Sprint(len(sent)))...)
				c := newContext(t, d, domain)
				n, err := c.NewNode("talker", "/")
				if err != nil {
					t.Fatal(err)
				}
				pub, err := n.NewPublisher("/joint_states", jointState, qos.Default)
				if err != nil {
					t.Fatal(err)
				}
				if err := pub.WaitMatched(ctx, 1); err != nil {
					t.Fatalf("never matched: %v: %s", err, sub.Stderr())
				}
				if err := sub.WaitStderr(ctx, "matched"); err != nil {
					t.Fatalf("the peer never learned our writer: %v: %s", err, sub.Stderr())
				}
				js, err := c.Struct(jointState)
				if err != nil {
					t.Fatal(err)
				}
				for _, m := range sent {
					// Another load of the same definitions is another *cdr.Struct.
					ours, err := cdr.Decode(js, must(cdr.Encode(m, cdr.LittleEndian)))
					if err != nil {
						t.Fatal(err)
					}
					if err := pub.Publish(ours); err != nil {
						t.Fatal(err)
					}
				}
				if err := sub.Wait(ctx); err != nil {
					t.Fatalf("peer sub: %v: %s", err, sub.Stderr())
				}
				got, err := ddspeers.HexLines(sub.Stdout())
				if err != nil {
					t.Fatal(err)
				}
				want := jsonOf(sent...)
				if len(got) != len(sent) {
					t.Fatalf("the peer took %d samples, sent %d", len(got), len(sent))
				}
				for k, b := range got {
					m, err := cdr.Decode(js, b)
					if err != nil {
						t.Fatal(err)
					}
					if jsonOf(m)[0] != want[k] {
						t.Fatalf("sample %d came back as %s, sent %s", k, jsonOf(m)[0], want[k])
					}
				}
			})
		}
	}
}

var buildOnce struct {
	sync.Once
	bin string
	err error
}

// binary builds cmd/actbridge once per test run.
func binary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "ros2interop")
		if err != nil {
			buildOnce.err = err
			return
		}
		buildOnce.bin = filepath.Join(dir, "actbridge")
		out, err := exec.Command("go", "build", "-o", buildOnce.bin, "github.com/actbridge/actbridge/cmd/actbridge").CombinedOutput()
		if err != nil {
			buildOnce.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildOnce.err != nil {
		t.Fatal(buildOnce.err)
	}
	return buildOnce.bin
}

// actbridge runs the built binary with ROS 2's variables set for domain
// and discovery range rng (SUBNET: multicast on the namespace's
// loopback); it returns stdout, stderr and the error.
func actbridge(ctx context.Context, t *testing.T, domain int, rng node.Range, args ...string) (string, string, error) {
	t.Helper()
	cmd := exec.CommandContext(ctx, binary(t), append([]string{"ros2"}, args...)...)
	cmd.Env = append(os.Environ(), "ROS_DOMAIN_ID="+fmt.Sprint(domain), "ROS_AUTOMATIC_DISCOVERY_RANGE="+string(rng),
		"ROS_LOCALHOST_ONLY=", "ROS_STATIC_PEERS=", "ROS_DISTRO=jazzy")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	return out.String(), errOut.String(), err
}

// TestCLITopicsAndEchoAgainstPeers: `actbridge ros2 topics`, run as a
// built binary with localhost-only discovery, lists a peer's
// /joint_states with its ROS type and the peer's vendor; `actbridge ros2 echo /joint_states --count 3` prints
// three of the peer's JointStates as JSON lines and exits 0.
func TestCLITopicsAndEchoAgainstPeers(t *testing.T) {
	ns, vs, sent := setup(t)
	want := jsonOf(sent...)
	for i, v := range vs {
		t.Run(v.name, func(t *testing.T) {
			ddspeers.SkipMissing(t, v.bin)
			ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
			defer cancel()
			domain := 130 + i
			pub := ddspeers.StartPeer(t, ns, v.bin, strings.NewReader(lines(t, sent)),
				peerArgs("pub", domain, "--wait-match", "0", "--count", "100000", "--rate", "50")...)
			// pub says nothing until it has written everything; the CLI's own wait covers discovery.
			// LOCALHOST (the default): unicast SPDP to the vendor's ports on 127.0.0.1.
			out, errOut, err := actbridge(ctx, t, domain, node.Localhost, "topics", "--timeout", "20s")
			line := fmt.Sprintf("/joint_states [%s]\n  publisher  <node not announced> (%s)\n", jointState, graph.VendorName(v.id))
			if err != nil || !strings.Contains(out, line) {
				t.Fatalf("topics: %v: %s\nstdout:\n%s\nwant:\n%s\npub: %s", err, errOut, out, line, pub.Stderr())
			}
			out, errOut, err = actbridge(ctx, t, domain, node.Subnet, "echo", "/joint_states", "--count", "3", "--interface", "127.0.0.1", "--timeout", "20s")
			got := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			if err != nil || len(got) != 3 {
				t.Fatalf("echo: %v: %s\nstdout:\n%s\npub: %s", err, errOut, out, pub.Stderr())
			}
			for _, l := range got {
				if !slices.Contains(want, l) {
					t.Fatalf("echo printed a message never sent:\n%s\nsent:\n%s", l, strings.Join(want, "\n"))
				}
			}
		})
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// TestQoSIncompatibilityWithPeerIsReported: a vendor's best-effort,
// volatile writer never matches a subscription of ours that asks for
// reliable, transient_local samples; the subscription says why, and so
// does `actbridge ros2 echo` (exit status 1, the reason on one line).
func TestQoSIncompatibilityWithPeerIsReported(t *testing.T) {
	ns, vs, sent := setup(t)
	for i, v := range vs {
		t.Run(v.name, func(t *testing.T) {
			ddspeers.SkipMissing(t, v.bin)
			ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
			defer cancel()
			domain := 160 + i
			ddspeers.StartPeer(t, ns, v.bin, strings.NewReader(lines(t, sent)),
				peerArgs("pub", domain, "--best-effort", "--wait-match", "0", "--count", "100000", "--rate", "20")...)
			c, sub := listener(t, domain, qos.Latched)
			if _, err := c.WaitGraph(ctx, func(graph.Graph) bool { return len(sub.Incompatible()) > 0 }); err != nil {
				t.Fatal(err)
			}
			short, cancelShort := context.WithTimeout(ctx, 500*time.Millisecond)
			defer cancelShort()
			err := sub.WaitMatched(short, 1)
			want := "reliability: offered best_effort, requested reliable; durability: offered volatile, requested transient_local"
			if !errors.Is(err, node.ErrIncompatibleQoS) || !strings.Contains(err.Error(), want) || sub.Incompatible()[0].Remote.Vendor != v.id {
				t.Fatalf("WaitMatched: %v (incompatible %v)", err, sub.Incompatible())
			}
			_, errOut, err := actbridge(ctx, t, domain, node.Subnet, "echo", "/joint_states", "--count", "1", "--interface", "127.0.0.1",
				"--timeout", "5s", "--qos-reliability", "reliable")
			if err == nil || !strings.Contains(errOut, "incompatible QoS") || !strings.Contains(errOut, "offered best_effort, requested reliable") ||
				strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
				t.Fatalf("echo: %v, stderr %q", err, errOut)
			}
		})
	}
}
