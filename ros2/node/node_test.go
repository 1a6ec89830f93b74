package node_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/ros2/graph"
	"github.com/actbridge/actbridge/ros2/names"
	"github.com/actbridge/actbridge/ros2/node"
	"github.com/actbridge/actbridge/ros2/qos"
	"github.com/actbridge/actbridge/rtps"
)

const jointState = "sensor_msgs/msg/JointState"

// newContext starts a localhost-only Context on domain for the test.
func newContext(t *testing.T, d msgs.Distro, domain int, rules ...string) *node.Context {
	t.Helper()
	var remap names.Remap
	for _, r := range rules {
		rule, err := names.ParseRule(r)
		if err != nil {
			t.Fatal(err)
		}
		remap = append(remap, rule)
	}
	c, err := node.NewContext(t.Context(), node.Options{Distro: d, Discovery: node.Discovery{Domain: domain}, Remap: remap})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func newNode(t *testing.T, c *node.Context, name, ns string) *node.Node {
	t.Helper()
	n, err := c.NewNode(name, ns)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func jointStateMsg(t *testing.T, p *node.Publisher, pos float64) *cdr.Message {
	t.Helper()
	m := p.New()
	if err := m.Set("name", []string{"a", "b"}); err != nil {
		t.Fatal(err)
	}
	m.Set("position", []float64{pos, -pos})
	m.Set("velocity", []float64{})
	m.Set("effort", []float64{})
	return m
}

// TestTopicsCarryROSNamesTypesAndTypeHashPerDistro: a publisher and a
// subscription of two Contexts meet on "rt/<remapped name>" with type
// "pkg::msg::dds_::Type_"; the message arrives as sent; the endpoint's
// user data carries the RIHS01 type hash on Jazzy and Kilted and nothing
// on Humble.
func TestTopicsCarryROSNamesTypesAndTypeHashPerDistro(t *testing.T) {
	for i, d := range msgs.Distros() {
		t.Run(string(d), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 15*time.Second)
			defer cancel()
			a := newContext(t, d, 60+i, "states:=/robot/joint_states")
			b := newContext(t, d, 60+i)
			pub, err := newNode(t, a, "talker", "/robot").NewPublisher("states", jointState, qos.Default)
			if err != nil {
				t.Fatal(err)
			}
			sub, err := newNode(t, b, "listener", "").NewSubscription("/robot/joint_states", jointState, qos.Default, node.SubscriptionOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if pub.Topic() != "/robot/joint_states" {
				t.Fatalf("remapped topic %q", pub.Topic())
			}
			if err := pub.WaitMatched(ctx, 1); err != nil {
				t.Fatal(err)
			}
			if err := sub.WaitMatched(ctx, 1); err != nil {
				t.Fatal(err)
			}
			remote := sub.Matched()[0]
			if remote.Topic != "rt/robot/joint_states" || remote.Type != "sensor_msgs::msg::dds_::JointState_" {
				t.Fatalf("announced as %q %q", remote.Topic, remote.Type)
			}
			hash, ok := graph.UserDataValue(remote.UserData, "typehash")
			if d == msgs.Humble && remote.UserData != nil || d != msgs.Humble && (!ok || !strings.HasPrefix(hash, "RIHS01_") || len(hash) != 7+64) {
				t.Fatalf("user data %q on %s", remote.UserData, d)
			}
			sent := jointStateMsg(t, pub, 1.5)
			if err := pub.Publish(sent); err != nil {
				t.Fatal(err)
			}
			got, info, err := sub.Take(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if info.Writer != pub.GUID() || got.Get("position").([]float64)[0] != 1.5 || got.Get("name").([]string)[1] != "b" {
				t.Fatalf("took %v from %v", got, info.Writer)
			}
		})
	}
}

// TestGraphShowsTheOtherContextsNodesAndEndpoints: one Context sees the
// other's node (name, namespace, after remapping), its topic with the ROS
// type, and the node and vendor of its publisher, through
// ros_discovery_info with the distro's Gid size; a closed node leaves.
func TestGraphShowsTheOtherContextsNodesAndEndpoints(t *testing.T) {
	for i, d := range []msgs.Distro{msgs.Humble, msgs.Jazzy} {
		t.Run(string(d), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 15*time.Second)
			defer cancel()
			a := newContext(t, d, 70+i, "__ns:=/arm")
			b := newContext(t, d, 70+i)
			n := newNode(t, a, "driver", "/")
			if _, err := n.NewPublisher("joint_states", jointState, qos.SensorData); err != nil {
				t.Fatal(err)
			}
			g, err := b.WaitGraph(ctx, func(g graph.Graph) bool {
				tp, ok := g.Topic("/arm/joint_states")
				return ok && len(tp.Publishers) == 1 && tp.Publishers[0].Node != ""
			})
			if err != nil {
				t.Fatalf("%v: graph %+v", err, g)
			}
			tp, _ := g.Topic("/arm/joint_states")
			if tp.Types[0] != jointState || tp.Publishers[0].Node != "/arm/driver" || tp.Publishers[0].Vendor != rtps.VendorID {
				t.Fatalf("topic %+v", tp)
			}
			if _, ok := g.Node("/arm/driver"); !ok {
				t.Fatalf("nodes %+v", g.Nodes)
			}
			for _, p := range g.Participants {
				if p.Enclave != "/" {
					t.Fatalf("participant %v announces enclave %q, want rmw's \"/\"", p.Prefix, p.Enclave)
				}
			}
			if err := n.Close(); err != nil {
				t.Fatal(err)
			}
			if _, err := b.WaitGraph(ctx, func(g graph.Graph) bool {
				_, ok := g.Node("/arm/driver")
				_, topic := g.Topic("/arm/joint_states")
				return !ok && !topic
			}); err != nil {
				t.Fatalf("a closed node stays in the graph: %v", err)
			}
		})
	}
}

// TestQoSIncompatibilityIsReported: a best-effort publisher and a
// reliable subscription of the same topic and type never match, and both
// sides say why instead of waiting in silence.
func TestQoSIncompatibilityIsReported(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 15*time.Second)
	defer cancel()
	a, b := newContext(t, msgs.Jazzy, 75), newContext(t, msgs.Jazzy, 75)
	pub, err := newNode(t, a, "talker", "").NewPublisher("chatter", jointState, qos.SensorData)
	if err != nil {
		t.Fatal(err)
	}
	sub, err := newNode(t, b, "listener", "").NewSubscription("chatter", jointState, qos.Default, node.SubscriptionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.WaitGraph(ctx, func(g graph.Graph) bool { return len(sub.Incompatible()) > 0 }); err != nil {
		t.Fatal(err)
	}
	inc := sub.Incompatible()[0]
	if inc.Remote.GUID != pub.GUID() || inc.Reason != "reliability: offered best_effort, requested reliable" {
		t.Fatalf("incompatibility %v", inc)
	}
	short, cancelShort := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancelShort()
	err = sub.WaitMatched(short, 1)
	if !errors.Is(err, node.ErrIncompatibleQoS) || !strings.Contains(err.Error(), "best_effort") {
		t.Fatalf("WaitMatched: %v", err)
	}
	if _, err := a.WaitGraph(ctx, func(graph.Graph) bool { return len(pub.Incompatible()) > 0 }); err != nil {
		t.Fatalf("the publisher's side does not see it: %v", err)
	}
}

// TestLatestOnlySubscriptionHandsOverTheNewest: after five samples, a
// LatestOnly subscription hands over the fifth and then waits.
func TestLatestOnlySubscriptionHandsOverTheNewest(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 15*time.Second)
	defer cancel()
	a, b := newContext(t, msgs.Jazzy, 76), newContext(t, msgs.Jazzy, 76)
	pub, err := newNode(t, a, "talker", "").NewPublisher("joint_states", jointState, qos.Default)
	if err != nil {
		t.Fatal(err)
	}
	sub, err := newNode(t, b, "listener", "").NewSubscription("joint_states", jointState, qos.Default, node.SubscriptionOptions{LatestOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := pub.WaitMatched(ctx, 1); err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		if err := pub.Publish(jointStateMsg(t, pub, float64(i))); err != nil {
			t.Fatal(err)
		}
	}
	if err := pub.WaitAcknowledged(ctx); err != nil {
		t.Fatal(err)
	}
	m, _, err := sub.Take(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Get("position").([]float64)[0]; got != 4 {
		t.Fatalf("took sample %v, want the newest, 4", got)
	}
	short, cancelShort := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancelShort()
	if m, _, err := sub.Take(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a second Take returned %v, %v; want to wait", m, err)
	}
}

// TestTypeTheDistroLacksIsAnErrorAtCreation: no endpoint is announced for
// a type the distro has no definition of.
func TestTypeTheDistroLacksIsAnErrorAtCreation(t *testing.T) {
	c := newContext(t, msgs.Humble, 77)
	n := newNode(t, c, "talker", "")
	_, err := n.NewPublisher("x", "sensor_msgs/msg/NoSuchType", qos.Default)
	if !errors.Is(err, node.ErrType) || !errors.Is(err, msgs.ErrNotInDistro) || !strings.Contains(err.Error(), "humble") {
		t.Fatalf("NewPublisher: %v", err)
	}
	if _, err := n.NewSubscription("x", "std_msgs/Nope", qos.Default, node.SubscriptionOptions{}); !errors.Is(err, node.ErrType) {
		t.Fatalf("NewSubscription: %v", err)
	}
}

// TestRegisteredEndpointAppearsUnderItsNode: an endpoint a service layer
// makes on the participant itself, once told to the node's Announce hook,
// is announced as the node's in ros_discovery_info (the other Context's
// graph names the node), and withdrawing it withdraws that.
func TestRegisteredEndpointAppearsUnderItsNode(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 15*time.Second)
	defer cancel()
	a, b := newContext(t, msgs.Kilted, 78), newContext(t, msgs.Kilted, 78)
	n := newNode(t, a, "server", "/robot")
	req := rtps.EndpointData{Topic: "rq/robot/triggerRequest", Type: "std_srvs::srv::dds_::Trigger_Request_",
		QoS: qos.Services.QoS}
	r, err := a.Participant().NewReader(req)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	req.GUID = r.GUID()
	hook := n.Announce // as a service layer holds it
	if err := hook(req, true); err != nil {
		t.Fatal(err)
	}
	owner := func(g graph.Graph) string {
		if len(g.Services) == 0 || len(g.Services[0].Servers) == 0 {
			return "?"
		}
		return g.Services[0].Servers[0].Node
	}
	if g, err := b.WaitGraph(ctx, func(g graph.Graph) bool { return owner(g) == "/robot/server" }); err != nil {
		t.Fatalf("%v: services %+v", err, g.Services)
	}
	if g := a.Graph(); owner(g) != "/robot/server" || g.Services[0].Types[0] != "std_srvs/srv/Trigger" {
		t.Fatalf("our own graph: %+v", g.Services)
	}
	if err := hook(req, false); err != nil {
		t.Fatal(err)
	}
	if _, err := b.WaitGraph(ctx, func(g graph.Graph) bool { return owner(g) == "" }); err != nil {
		t.Fatalf("still announced after Unregister: %v", err)
	}
}

// TestWatchSendsTheGraphAfterEveryChange: Watch sends the graph at once,
// then again when another Context's node appears, and closes its channel
// when the watching context ends.
func TestWatchSendsTheGraphAfterEveryChange(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 15*time.Second)
	defer cancel()
	a, b := newContext(t, msgs.Jazzy, 79), newContext(t, msgs.Jazzy, 79)
	watch, stop := context.WithCancel(ctx)
	ch := b.Watch(watch)
	first := <-ch
	if _, ok := first.Node("/late"); ok {
		t.Fatal("the first graph has a node not made yet")
	}
	newNode(t, a, "late", "")
	for g := range ch {
		if _, ok := g.Node("/late"); ok {
			stop()
			for range ch {
			}
			return
		}
	}
	t.Fatalf("the channel closed before the node appeared: %v", ctx.Err())
}

// TestQoSOverrideChangesTheTopicsProfile: an override for a topic (by its
// name after remapping) changes what its publisher announces, other
// topics keep the code's profile, and an invalid override is an error at
// creation naming the topic.
func TestQoSOverrideChangesTheTopicsProfile(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 15*time.Second)
	defer cancel()
	rule, _ := names.ParseRule("states:=/robot/joint_states")
	a, err := node.NewContext(ctx, node.Options{Distro: msgs.Jazzy, Discovery: node.Discovery{Domain: 81}, Remap: names.Remap{rule},
		QoS: map[string]qos.Override{
			"/robot/joint_states": {Reliability: "best_effort", Depth: 3},
			"/bad":                {Durability: "forever"},
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b := newContext(t, msgs.Jazzy, 81)
	n := newNode(t, a, "talker", "")
	for _, topic := range []string{"states", "other"} {
		if _, err := n.NewPublisher(topic, jointState, qos.Default); err != nil {
			t.Fatal(err)
		}
	}
	g, err := b.WaitGraph(ctx, func(g graph.Graph) bool {
		_, ok1 := g.Topic("/robot/joint_states")
		_, ok2 := g.Topic("/other")
		return ok1 && ok2
	})
	if err != nil {
		t.Fatal(err)
	}
	js, _ := g.Topic("/robot/joint_states")
	other, _ := g.Topic("/other")
	if q := js.Publishers[0].QoS; q.Reliability != rtps.BestEffort || q.Depth != 3 {
		t.Fatalf("overridden topic announced %+v", q)
	}
	if q := other.Publishers[0].QoS; q != qos.Default.QoS {
		t.Fatalf("other topic announced %+v, want the default profile", q)
	}
	if _, err := n.NewPublisher("/bad", jointState, qos.Default); !errors.Is(err, qos.ErrInvalidOverride) || !strings.Contains(err.Error(), "/bad") {
		t.Fatalf("invalid override: %v", err)
	}
}

// TestClosedNodeWithdrawsItsEndpoints: closing a node closes its
// publishers (Publish says ErrClosed) and a closed Context refuses new
// nodes.
func TestClosedNodeWithdrawsItsEndpoints(t *testing.T) {
	c := newContext(t, msgs.Jazzy, 82)
	n := newNode(t, c, "talker", "")
	pub, err := n.NewPublisher("chatter", "std_msgs/msg/String", qos.Default)
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	if err := pub.Publish(pub.New()); !errors.Is(err, node.ErrClosed) {
		t.Fatalf("Publish after Close: %v", err)
	}
	if _, err := n.NewPublisher("other", "std_msgs/msg/String", qos.Default); !errors.Is(err, node.ErrClosed) {
		t.Fatalf("NewPublisher on a closed node: %v", err)
	}
	if len(c.Graph().Topics) != 0 {
		t.Fatalf("topics left: %+v", c.Graph().Topics)
	}
	c.Close()
	if _, err := c.NewNode("late", ""); !errors.Is(err, node.ErrClosed) {
		t.Fatalf("NewNode after Close: %v", err)
	}
}

// TestTypeMismatchAcrossDistrosIsReported: Kilted's
// FollowJointTrajectory feedback has fields Jazzy's lacks under the same
// DDS type name, so DDS matches a Kilted publisher with a Jazzy
// subscription; the subscription reports the differing type hash. Two
// Jazzy sides report nothing.
func TestTypeMismatchAcrossDistrosIsReported(t *testing.T) {
	const fb = "control_msgs/action/FollowJointTrajectory_FeedbackMessage"
	for i, c := range []struct {
		pub      msgs.Distro
		mismatch bool
	}{{msgs.Kilted, true}, {msgs.Jazzy, false}} {
		t.Run(string(c.pub), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 15*time.Second)
			defer cancel()
			a, b := newContext(t, c.pub, 83+i), newContext(t, msgs.Jazzy, 83+i)
			pub, err := newNode(t, a, "controller", "").NewPublisher("/arm/follow_joint_trajectory/_action/feedback", fb, qos.Default)
			if err != nil {
				t.Fatal(err)
			}
			sub, err := newNode(t, b, "bridge", "").NewSubscription("/arm/follow_joint_trajectory/_action/feedback", fb, qos.Default, node.SubscriptionOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if err := sub.WaitMatched(ctx, 1); err != nil {
				t.Fatal(err)
			}
			mm := sub.TypeMismatches()
			if !c.mismatch {
				if len(mm) != 0 {
					t.Fatalf("same distro reported %v", mm)
				}
				return
			}
			theirs, _ := a.TypeHash(fb)
			ours, _ := b.TypeHash(fb)
			if len(mm) != 1 || mm[0].Remote.GUID != pub.GUID() || mm[0].Reason != "type hash: theirs "+theirs+", jazzy's "+ours || theirs == ours {
				t.Fatalf("mismatches %v (theirs %s, ours %s)", mm, theirs, ours)
			}
		})
	}
}

// TestGraphIsKeptUntilDiscoveryChanges: with nothing changing, Graph
// hands every caller the graph it built last (no rebuild per call); a
// remote publisher that comes or goes shows in the next Graph, and a graph
// handed out before keeps what it showed.
func TestGraphIsKeptUntilDiscoveryChanges(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 15*time.Second)
	defer cancel()
	a, b := newContext(t, msgs.Jazzy, 95), newContext(t, msgs.Jazzy, 95)
	newNode(t, b, "bridge", "")
	talker := newNode(t, a, "talker", "")
	publishers := func(g graph.Graph) int {
		tp, _ := g.Topic("/chatter")
		return len(tp.Publishers)
	}
	pub, err := talker.NewPublisher("chatter", "std_msgs/msg/String", qos.Default)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.WaitGraph(ctx, func(g graph.Graph) bool { return publishers(g) == 1 }); err != nil {
		t.Fatal(err)
	}
	if n := publishers(b.Graph()); n != 1 {
		t.Fatalf("Graph shows %d publishers of /chatter after WaitGraph saw 1", n)
	}
	// Discovery may still be settling (acknowledgements, announcements):
	// some two calls in a row must share one graph.
	shared := func(x, y graph.Graph) bool {
		return len(x.Topics) > 0 && len(y.Topics) > 0 && &x.Topics[0] == &y.Topics[0]
	}
	before := b.Graph()
	for i := 0; ; i++ {
		next := b.Graph()
		if shared(before, next) {
			break
		}
		if i == 1000 {
			t.Fatal("1000 calls of Graph in a row each built a new graph")
		}
		before = next
	}

	if err := pub.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := b.WaitGraph(ctx, func(g graph.Graph) bool { return publishers(g) == 0 }); err != nil {
		t.Fatal(err)
	}
	after := b.Graph()
	if publishers(after) != 0 || shared(before, after) {
		t.Fatalf("Graph still shows the publisher gone: %+v", after.Topics)
	}
	if publishers(before) != 1 {
		t.Fatalf("the graph handed out before changed: %+v", before.Topics)
	}
	if _, err := talker.NewPublisher("chatter", "std_msgs/msg/String", qos.Default); err != nil {
		t.Fatal(err)
	}
	if _, err := b.WaitGraph(ctx, func(g graph.Graph) bool { return publishers(g) == 1 }); err != nil {
		t.Fatal(err)
	}
	if publishers(b.Graph()) != 1 {
		t.Fatal("Graph misses the publisher that came back")
	}
}
