package dserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/ros2/action"
	"github.com/actbridge/actbridge/ros2/node"
	"github.com/actbridge/actbridge/ros2/service"
	"github.com/actbridge/actbridge/rtps"
	"github.com/actbridge/actbridge/test/ddspeers"
	"github.com/actbridge/actbridge/test/gobin"
	"github.com/actbridge/actbridge/test/netns"
)

const fjt = "control_msgs/action/FollowJointTrajectory"

// serverBin is eProsima's discovery server; the test skips without it
// (fails under ACTBRIDGE_REQUIRE_DDS_PEERS=1).
func serverBin(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("fast-discovery-server")
	if err != nil {
		if os.Getenv(netns.EnvRequire) == "1" {
			t.Fatalf("fast-discovery-server (fastdds-tools) required: %v", err)
		}
		t.Skipf("no fast-discovery-server (fastdds-tools): %v", err)
	}
	return bin
}

// startServer runs a discovery server with id 0 on 127.0.0.1:port until
// the test ends (or Kill).
func startServer(t *testing.T, ns string, port int) *ddspeers.Proc {
	t.Helper()
	return startServerID(t, ns, 0, port)
}

// startServerID is startServer for server id (its prefix 44.53.<id>…).
func startServerID(t *testing.T, ns string, id, port int) *ddspeers.Proc {
	t.Helper()
	s := ddspeers.StartPeer(t, ns, serverBin(t), nil, "-i", strconv.Itoa(id), "-l", "127.0.0.1", "-p", strconv.Itoa(port))
	if err := s.WaitStdout(timeout(t, 20*time.Second), "Server is running"); err != nil {
		t.Fatalf("discovery server: %v: %s %s", err, s.Stdout(), s.Stderr())
	}
	return s
}

func timeout(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), d)
	t.Cleanup(cancel)
	return ctx
}

// noMulticast fails the test unless loopback, the namespace's only
// interface, has no multicast (TestMain took it away).
func noMulticast(t *testing.T) {
	t.Helper()
	ifs, err := net.Interfaces()
	if err != nil {
		t.Fatal(err)
	}
	for _, fi := range ifs {
		if fi.Flags&net.FlagMulticast != 0 {
			t.Fatalf("interface %s has multicast: discovery could bypass the server", fi.Name)
		}
	}
}

// rig is a namespace with a discovery server, Fast DDS node peers as its
// clients, and our Context as another client.
type rig struct {
	ns     string
	port   int
	peers  *ddspeers.NodePeers
	set    *msgs.Set
	server *ddspeers.Proc
}

func newRig(t *testing.T, port int) *rig {
	t.Helper()
	ns := netns.Require(t)
	noMulticast(t)
	trace(t, ns)
	r := &rig{ns: ns, port: port, peers: ddspeers.BuildNodes(t, msgs.Jazzy)}
	set, err := msgs.Load(msgs.Jazzy)
	if err != nil {
		t.Fatal(err)
	}
	r.set = set
	r.server = startServer(t, ns, port)
	return r
}

// env makes a Fast DDS peer a client of the rig's server: Fast DDS reads
// ROS_DISCOVERY_SERVER itself and turns a simple participant into one.
func (r *rig) env() []string {
	return []string{node.EnvDiscoveryServer + "=127.0.0.1:" + strconv.Itoa(r.port)}
}

// actionServer starts a fastnode FollowJointTrajectory server on action,
// a client of the discovery server.
func (r *rig) actionServer(t *testing.T, action string, domain int) *ddspeers.Proc {
	t.Helper()
	p := r.peers.StartActionServerEnv(t, r.ns, r.peers.Fast, r.env(), action, "--outcome", "succeed", "--feedback", "1", "--domain", strconv.Itoa(domain))
	if err := p.WaitStderr(timeout(t, 30*time.Second), "ready"); err != nil {
		t.Fatalf("%v: %s", err, p.Stderr())
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("action server %s:\n%s\n%s", action, p.Stdout(), p.Stderr())
		}
	})
	return p
}

// context is the bridge's ROS 2 Context, a client of the rig's server.
func (r *rig) context(t *testing.T, domain int, super bool) *node.Context {
	t.Helper()
	d := node.Discovery{Domain: domain, Servers: []node.DiscoveryServer{{Host: "127.0.0.1", Port: uint16(r.port)}}, SuperClient: super}
	c, err := node.NewContext(t.Context(), node.Options{Distro: msgs.Jazzy, Discovery: d, Logger: debugLog(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// drive sends one goal to action through a client of its own and waits
// for its success.
func (r *rig) drive(t *testing.T, c *node.Context, name string, id action.GoalID) {
	t.Helper()
	cl := r.client(t, c, name)
	defer cl.Close()
	r.driveWith(t, c, cl, name, id)
}

// client is an action client of name through c.
func (r *rig) client(t *testing.T, c *node.Context, name string) *action.Client {
	t.Helper()
	cl, err := action.NewClient(c.Participant(), r.set, name, fjt, service.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return cl
}

// driveWith sends one goal through cl and waits for its success; a
// failure says what discovery knew (debugLog prints how it got there).
func (r *rig) driveWith(t *testing.T, c *node.Context, cl *action.Client, name string, id action.GoalID) {
	t.Helper()
	ctx := timeout(t, 40*time.Second)
	if _, err := cl.SendGoal(ctx, id, r.goal(t)); err != nil {
		t.Fatalf("send goal to %s: %v\n%s", name, err, discoveryState(c.Participant(), name, cl))
	}
	res, err := cl.Result(ctx, id)
	if err != nil || res.Status.Name != "SUCCEEDED" {
		t.Fatalf("result of %s: %+v, %v\n%s", name, res, err, discoveryState(c.Participant(), name, cl))
	}
}

// discoveryState is what a failed drive needs to be diagnosed: each
// participant known (its type, whether our endpoint announcements count
// as acknowledged by it), the action's goal request readers known and
// whose, the participants our client matched, and the counters.
func discoveryState(p *rtps.Participant, name string, cl *action.Client) string {
	var b strings.Builder
	ps := p.Participants()
	fmt.Fprintf(&b, "participants %d, endpoints %d:\n", len(ps), len(p.Endpoints()))
	for _, d := range ps {
		typ, _ := d.Property(rtps.PropertyParticipantType)
		fmt.Fprintf(&b, "  %v vendor %v type %q acknowledged %v\n", d.Prefix, d.Vendor, typ, p.Acknowledged(d.Prefix))
	}
	for _, e := range p.Endpoints() {
		switch {
		case e.Topic == "rq"+name+"/_action/send_goalRequest" && !e.Writer:
			fmt.Fprintf(&b, "  goal request reader %v\n", e.GUID)
		case e.Topic == "rr"+name+"/_action/send_goalReply" && e.Writer:
			fmt.Fprintf(&b, "  goal reply writer %v\n", e.GUID)
		}
	}
	fmt.Fprintf(&b, "  client matched servers %v\n  stats %+v\n", cl.Servers(), p.Stats())
	b.WriteString("  (matched, acknowledged, both endpoints known and not ready: its request reader never acknowledged our request writer, it does not know it)")
	return b.String()
}

// goal is ddspeers.RestGoal.
func (r *rig) goal(t *testing.T) *cdr.Message {
	t.Helper()
	g, err := ddspeers.RestGoal(r.set)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func goalID(n byte) action.GoalID {
	return action.GoalID{0xd5, 0x5e, 0, n, 0, 0, 0x40, 0, 0x80, 0, 0, 0, 0, 0, 0, n}
}

// TestBridgeDrivesAnActionServerFoundOnlyThroughTheDiscoveryServer: with
// no multicast and every participant a client, the robot's action server
// is known to the bridge only from what the server relays; the goal runs.
func TestBridgeDrivesAnActionServerFoundOnlyThroughTheDiscoveryServer(t *testing.T) {
	r := newRig(t, 11811)
	r.actionServer(t, "/arm/follow_joint_trajectory", 40)
	c := r.context(t, 40, false)
	r.drive(t, c, "/arm/follow_joint_trajectory", goalID(1))
	if n := c.Participant().Stats().ServerRestarts; n != 0 {
		t.Errorf("%d server restarts seen, the server never restarted", n)
	}
}

// armThroughARestart is a rig whose arm was driven through client arm
// of c (goal 1) before its server was killed and started again.
func armThroughARestart(t *testing.T, port, domain int) (r *rig, c *node.Context, arm *action.Client) {
	t.Helper()
	r = newRig(t, port)
	r.actionServer(t, "/arm/follow_joint_trajectory", domain)
	c = r.context(t, domain, false)
	arm = r.client(t, c, "/arm/follow_joint_trajectory")
	t.Cleanup(func() { arm.Close() })
	r.driveWith(t, c, arm, "/arm/follow_joint_trajectory", goalID(1))
	r.server.Kill()
	r.server = startServer(t, r.ns, r.port)
	return r, c, arm
}

// TestDiscoveryRecoversAfterTheServerRestarts: the server is killed and
// started again on its address; an action server that joins afterwards
// is found and driven through a new client, and the one found before is
// driven again through the client that found it (the bridge keeps one
// client per actuator). A new client of the server found before is not
// asked for: a Fast DDS 2.9 client keeps its discovery readers' state
// across its server's restart and drops every relay the new server
// numbers at or below what the old one had sent it (docs/discovery-server.md).
func TestDiscoveryRecoversAfterTheServerRestarts(t *testing.T) {
	r, c, arm := armThroughARestart(t, 11812, 41)
	r.actionServer(t, "/gripper/follow_joint_trajectory", 41)
	r.drive(t, c, "/gripper/follow_joint_trajectory", goalID(2))
	r.driveWith(t, c, arm, "/arm/follow_joint_trajectory", goalID(3))
	if n := c.Participant().Stats().ServerRestarts; n == 0 {
		t.Errorf("the restart was not noticed (Stats.ServerRestarts 0)")
	}
}

// TestArmFoundBeforeTheRestartIsDrivenFirst: right after the server
// restarts, before anything else joins, the client that found the arm
// drives it again (its endpoints were known to the arm before).
func TestArmFoundBeforeTheRestartIsDrivenFirst(t *testing.T) {
	r, c, arm := armThroughARestart(t, 11819, 48)
	r.driveWith(t, c, arm, "/arm/follow_joint_trajectory", goalID(3))
}

// TestSuperClientSeesEndpointsOnTopicsItDoesNotUse: the server relays to a
// super client the action server's endpoints, though it has none on their
// topics; a plain client beside it hears of none of them.
func TestSuperClientSeesEndpointsOnTopicsItDoesNotUse(t *testing.T) {
	r := newRig(t, 11813)
	r.actionServer(t, "/arm/follow_joint_trajectory", 42)
	super := r.context(t, 42, true)
	plain := r.context(t, 42, false)
	status := func(es []rtps.EndpointData) bool {
		return slices.ContainsFunc(es, func(e rtps.EndpointData) bool { return e.Topic == "rt/arm/follow_joint_trajectory/_action/status" })
	}
	if _, err := super.Participant().WaitEndpoints(timeout(t, 20*time.Second), status); err != nil {
		t.Fatalf("super client never heard of the status writer: %v", err)
	}
	// The plain client has had as long, and the server's relays to it
	// went with the super client's.
	if status(plain.Participant().Endpoints()) {
		t.Errorf("a plain client heard of endpoints on topics it does not use")
	}
}

var builds gobin.Builds

// TestCLIListsTheWholeGraphThroughTheServer: `actbridge ros2 topics` under
// ROS_DISCOVERY_SERVER is a super client, so it lists the action server's
// topics though it has no endpoint on them, as `ros2 topic list` does
// with ROS_SUPER_CLIENT=TRUE.
func TestCLIListsTheWholeGraphThroughTheServer(t *testing.T) {
	r := newRig(t, 11814)
	r.actionServer(t, "/arm/follow_joint_trajectory", 43)
	bin := builds.Build(t, "github.com/actbridge/actbridge/cmd/actbridge")
	ctx := timeout(t, 60*time.Second)
	cmd := exec.CommandContext(ctx, bin, "ros2", "topics", "--include-hidden", "--timeout", "20s")
	cmd.Env = append(os.Environ(), "ROS_DOMAIN_ID=43", "ROS_DISTRO=jazzy", "ROS_AUTOMATIC_DISCOVERY_RANGE=", "ROS_LOCALHOST_ONLY=", "ROS_STATIC_PEERS=",
		"ROS_SUPER_CLIENT=", r.env()[0])
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("topics: %v: %s\n%s", err, errOut.String(), out.String())
	}
	for _, topic := range []string{"/arm/follow_joint_trajectory/_action/status", "/arm/follow_joint_trajectory/_action/feedback"} {
		if !strings.Contains(out.String(), topic+" [") {
			t.Errorf("topics does not list %s:\n%s", topic, out.String())
		}
	}
}

// TestTwoActionServersThroughTheServerAreRefusedAsAmbiguous: the
// one-server rule holds for endpoints a discovery server relayed: two
// participants serving the action, no goal sent to either.
func TestTwoActionServersThroughTheServerAreRefusedAsAmbiguous(t *testing.T) {
	r := newRig(t, 11815)
	a := r.actionServer(t, "/arm/follow_joint_trajectory", 44)
	b := r.actionServer(t, "/arm/follow_joint_trajectory", 44)
	c := r.context(t, 44, false)
	cl, err := action.NewClient(c.Participant(), r.set, "/arm/follow_joint_trajectory", fjt, service.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	requestReaders := func(es []rtps.EndpointData) bool {
		n := 0
		for _, e := range es {
			if !e.Writer && e.Topic == "rq/arm/follow_joint_trajectory/_action/send_goalRequest" {
				n++
			}
		}
		return n == 2
	}
	if _, err := c.Participant().WaitEndpoints(timeout(t, 20*time.Second), requestReaders); err != nil {
		t.Fatalf("the two servers' request readers never both relayed: %v", err)
	}
	_, err = cl.SendGoal(timeout(t, 20*time.Second), goalID(1), r.goal(t))
	var amb *service.AmbiguousError
	if !errors.As(err, &amb) || len(amb.Servers) != 2 {
		t.Fatalf("send goal to two servers: %v, want an AmbiguousError naming both", err)
	}
	for _, p := range []*ddspeers.Proc{a, b} {
		if strings.Contains(string(p.Stdout()), `"event":"goal"`) {
			t.Errorf("a server got the goal: %s", p.Stdout())
		}
	}
}

// TestParticipantIsForgottenWhenTheServerRelaysItsGoodbye: relayed
// participants keep no lease of their own while their server lives; one
// that leaves is forgotten when the server relays its goodbye.
func TestParticipantIsForgottenWhenTheServerRelaysItsGoodbye(t *testing.T) {
	r := newRig(t, 11816)
	c := r.context(t, 45, false)
	peer := r.actionServer(t, "/arm/follow_joint_trajectory", 45)
	// A plain client hears of participants it shares a topic with.
	cl, err := action.NewClient(c.Participant(), r.set, "/arm/follow_joint_trajectory", fjt, service.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	client := func(ps []rtps.ParticipantData) bool {
		return slices.ContainsFunc(ps, func(p rtps.ParticipantData) bool {
			typ, _ := p.Property(rtps.PropertyParticipantType)
			return typ == "CLIENT"
		})
	}
	if _, err := c.Participant().WaitParticipants(timeout(t, 20*time.Second), client); err != nil {
		t.Fatalf("the peer was never relayed: %v", err)
	}
	if err := peer.Stop(timeout(t, 10*time.Second)); err != nil {
		t.Fatalf("stop peer: %v", err)
	}
	// Well within the peer's 20 s lease, which the client does not keep.
	gone := func(ps []rtps.ParticipantData) bool { return !client(ps) }
	if _, err := c.Participant().WaitParticipants(timeout(t, 10*time.Second), gone); err != nil {
		t.Fatalf("the peer that left is still known: %v", err)
	}
}

// TestIndexSyntaxNamesTheServerAsFastDDSReadsIt: ROS_DISCOVERY_SERVER
// ";127.0.0.1:P" is server 1, whose prefix a Fast DDS 2.9 client derives
// from the index: the peer reaches `fast-discovery-server -i 1` only so,
// and the bridge, reading the same variable, drives its action server.
func TestIndexSyntaxNamesTheServerAsFastDDSReadsIt(t *testing.T) {
	r := serverlessRig(t, 11818)
	r.server = startServerID(t, r.ns, 1, r.port)
	c, d := r.armAndBridge(t, ";127.0.0.1:"+strconv.Itoa(r.port), 47)
	r.drive(t, c, "/arm/follow_joint_trajectory", goalID(1))
	server := slices.IndexFunc(c.Participant().Participants(), func(p rtps.ParticipantData) bool { return p.Prefix == d.Servers[0].DefaultPrefix() })
	if server < 0 {
		t.Errorf("no participant with server 1's prefix %x", d.Servers[0].DefaultPrefix())
	}
}

// serverlessRig is a rig whose test starts its servers itself.
func serverlessRig(t *testing.T, port int) *rig {
	t.Helper()
	ns := netns.Require(t)
	noMulticast(t)
	trace(t, ns)
	set, err := msgs.Load(msgs.Jazzy)
	if err != nil {
		t.Fatal(err)
	}
	return &rig{ns: ns, port: port, peers: ddspeers.BuildNodes(t, msgs.Jazzy), set: set}
}

// armAndBridge starts a Fast DDS FollowJointTrajectory server on
// /arm/follow_joint_trajectory and the bridge's Context, both reading
// ROS_DISCOVERY_SERVER=list, and returns the Context and the discovery
// it read.
func (r *rig) armAndBridge(t *testing.T, list string, domain int) (*node.Context, node.Discovery) {
	t.Helper()
	p := r.peers.StartActionServerEnv(t, r.ns, r.peers.Fast, []string{node.EnvDiscoveryServer + "=" + list}, "/arm/follow_joint_trajectory",
		"--outcome", "succeed", "--feedback", "1", "--domain", strconv.Itoa(domain))
	if err := p.WaitStderr(timeout(t, 30*time.Second), "ready"); err != nil {
		t.Fatalf("%v: %s", err, p.Stderr())
	}
	d, err := node.DiscoveryFromEnv(func(k string) (string, bool) {
		if k == node.EnvDiscoveryServer {
			return list, true
		}
		return "", false
	})
	if err != nil {
		t.Fatal(err)
	}
	d.Domain = domain
	c, err := node.NewContext(t.Context(), node.Options{Distro: msgs.Jazzy, Discovery: d, Logger: debugLog(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, d
}

// TestTwoServersOneKilledTheOtherKeepsTheGraph: Fast DDS redundancy,
// ROS_DISCOVERY_SERVER naming two servers (ids 0 and 1) for the robot
// and the bridge alike: with either killed, the action server is still
// known through the other, and a client made afterwards, its endpoints
// passed on by the other alone, drives it.
func TestTwoServersOneKilledTheOtherKeepsTheGraph(t *testing.T) {
	for killed, port := range []int{11820, 11822} {
		t.Run("kill server "+strconv.Itoa(killed), func(t *testing.T) {
			r := serverlessRig(t, port)
			servers := []*ddspeers.Proc{startServerID(t, r.ns, 0, port), startServerID(t, r.ns, 1, port+1)}
			c, _ := r.armAndBridge(t, "127.0.0.1:"+strconv.Itoa(port)+";127.0.0.1:"+strconv.Itoa(port+1), 49+killed)
			r.drive(t, c, "/arm/follow_joint_trajectory", goalID(1))
			servers[killed].Kill()
			r.drive(t, c, "/arm/follow_joint_trajectory", goalID(2))
		})
	}
}
