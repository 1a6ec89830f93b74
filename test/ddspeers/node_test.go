package ddspeers

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/test/netns"
)

type vendor struct{ name, bin string }

// nodeVendors are the node peers: CycloneDDS, Fast DDS 2.9, and Fast DDS
// 3.1 (empty, and skipped, without the Debian 13 root).
func nodeVendors(t testing.TB, p *NodePeers) []vendor {
	return []vendor{{"cyclonedds", p.Cyclone}, {"fastdds", p.Fast}, {"fastdds3", p.Fast3(t)}}
}

// eachVendor runs f for each vendor's node peer in a subtest with a
// deadline.
func eachVendor(t *testing.T, p *NodePeers, f func(t *testing.T, ctx context.Context, v vendor)) {
	for _, v := range nodeVendors(t, p) {
		t.Run(v.name, func(t *testing.T) {
			SkipMissing(t, v.bin)
			ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
			defer cancel()
			f(t, ctx, v)
		})
	}
}

func jsonLines[T any](t *testing.T, p *Proc) []T {
	t.Helper()
	v, err := JSONLines[T](p.Stdout())
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// startReady starts a node peer in a new namespace and waits until it
// says line on stderr.
func startReady(ctx context.Context, t *testing.T, start func(ns string) *Proc, line string) (*Proc, string) {
	t.Helper()
	ns := netns.New(t)
	p := start(ns)
	if err := p.WaitStderr(ctx, line); err != nil {
		t.Fatalf("peer never said %q: %v: %s", line, err, p.Stderr())
	}
	return p, ns
}

func exitStatus(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return -1
}

// TestTriggerCallsEachGetTheirOwnReplyWithinAVendor runs each vendor's
// client against its own server: every call is answered once, in order,
// by the vendor's dialect (the server sees the client's id and the
// request's sequence number).
func TestTriggerCallsEachGetTheirOwnReplyWithinAVendor(t *testing.T) {
	p := BuildNodes(t, msgs.Jazzy)
	eachVendor(t, p, func(t *testing.T, ctx context.Context, v vendor) {
		srv, ns := startReady(ctx, t, func(ns string) *Proc {
			return StartTriggerServer(t, ns, v.bin, "/trigger", "--count", "3", "--timeout", "30")
		}, "ready")
		cli := StartTriggerClient(t, ns, v.bin, "/trigger", 3, "--timeout", "20")
		if err := cli.Wait(ctx); err != nil {
			t.Fatalf("client: %v: %s\nserver: %s", err, cli.Stderr(), srv.Stderr())
		}
		if err := srv.Wait(ctx); err != nil {
			t.Fatalf("server: %v: %s", err, srv.Stderr())
		}
		replies := jsonLines[TriggerReply](t, cli)
		served := jsonLines[ServedCall](t, srv)
		if len(replies) != 3 || len(served) != 3 {
			t.Fatalf("%d replies, %d served, want 3 each:\n%s\n%s", len(replies), len(served), cli.Stdout(), srv.Stdout())
		}
		for i, r := range replies {
			want := fmt.Sprintf("%s call %d", v.name, i+1)
			if !r.Success || r.Message != want || r.Call != i+1 {
				t.Errorf("reply %d: %+v, want success and %q", i, r, want)
			}
			if served[i].Seq != r.Seq || !served[i].Replied || served[i].Client != served[0].Client {
				t.Errorf("call %d served as %+v, client sent seq %d", i+1, served[i], r.Seq)
			}
		}
	})
}

// TestServersRejectTheOtherDialectLoudly: a Cyclone-framed request to the
// Fast DDS server and a plain one to the Cyclone server each end the
// server with a MALFORMED line, which is what lets tests prove our client
// never sends the wrong one.
func TestServersRejectTheOtherDialectLoudly(t *testing.T) {
	p := BuildNodes(t, msgs.Jazzy)
	for _, tc := range []struct {
		name, server, client, why string
	}{
		{"cyclone request to fast server", p.Fast, p.Cyclone, "without related_sample_identity"},
		{"fast request to cyclone server", p.Cyclone, p.Fast, "16-byte header"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
			defer cancel()
			srv, ns := startReady(ctx, t, func(ns string) *Proc {
				return StartTriggerServer(t, ns, tc.server, "/trigger", "--timeout", "30")
			}, "ready")
			cli := StartTriggerClient(t, ns, tc.client, "/trigger", 1, "--timeout", "30")
			err := srv.Wait(ctx)
			line, ok := srv.Malformed()
			if exitStatus(err) != MalformedExit || !ok || !strings.Contains(line, tc.why) {
				t.Fatalf("server ended with %v, stderr %q; want exit %d and a MALFORMED line saying %q", err, srv.Stderr(), MalformedExit, tc.why)
			}
			if len(cli.Stdout()) != 0 {
				t.Errorf("client got a reply: %s", cli.Stdout())
			}
		})
	}
}

// TestGraphListenerSeesAnnouncedNodeAcrossVendors: a node announced by one
// vendor appears, with the Gids of its endpoints, in the other vendor's
// view of ros_discovery_info, for both Gid sizes.
func TestGraphListenerSeesAnnouncedNodeAcrossVendors(t *testing.T) {
	p := BuildNodes(t, msgs.Jazzy)
	vs := nodeVendors(t, p)
	for _, gid := range []int{24, 16} {
		for _, tc := range []struct{ from, to vendor }{
			{vs[0], vs[1]},
			{vs[1], vs[0]},
			{vs[2], vs[0]},
			{vs[0], vs[2]},
		} {
			t.Run(fmt.Sprintf("gid %d %s to %s", gid, tc.from.name, tc.to.name), func(t *testing.T) {
				SkipMissing(t, tc.from.bin)
				SkipMissing(t, tc.to.bin)
				ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
				defer cancel()
				an, ns := startReady(ctx, t, func(ns string) *Proc {
					return StartAnnouncer(t, ns, tc.from.bin, "talker", gid, "--namespace", "/robot", "--pub", "rt/robot/chatter", "--sub", "rt/robot/cmd")
				}, "announced talker")
				g := StartGraphListener(t, ns, tc.to.bin, gid, "--count", "1")
				if err := g.Wait(ctx); err != nil {
					t.Fatalf("graph: %v: %s", err, g.Stderr())
				}
				sent, seen := jsonLines[ParticipantInfo](t, an), jsonLines[ParticipantInfo](t, g)
				if len(sent) != 1 || len(seen) != 1 {
					t.Fatalf("announced %d, seen %d samples", len(sent), len(seen))
				}
				n := sent[0].Nodes[0]
				if len(sent[0].Gid) != 2*gid || n.Name != "talker" || n.Namespace != "/robot" || len(n.Readers) != 1 || len(n.Writers) != 1 {
					t.Fatalf("announced %+v", sent[0])
				}
				if !slices.EqualFunc(sent, seen, func(a, b ParticipantInfo) bool { return fmt.Sprint(a) == fmt.Sprint(b) }) {
					t.Fatalf("announced %+v, seen %+v", sent[0], seen[0])
				}
			})
		}
	}
}

// TestGraphListenerRejectsTheOtherGidSize: Humble's 24-byte Gid and
// Jazzy's 16-byte one are different wire layouts; a listener of one size
// says so loudly on a sample of the other.
func TestGraphListenerRejectsTheOtherGidSize(t *testing.T) {
	p := BuildNodes(t, msgs.Jazzy)
	eachVendor(t, p, func(t *testing.T, ctx context.Context, v vendor) {
		_, ns := startReady(ctx, t, func(ns string) *Proc { return StartAnnouncer(t, ns, v.bin, "jazzy_node", 16) }, "announced")
		g := StartGraphListener(t, ns, v.bin, 24, "--count", "1")
		err := g.Wait(ctx)
		if _, ok := g.Malformed(); exitStatus(err) != MalformedExit || !ok {
			t.Fatalf("a 24-byte listener took a 16-byte sample: %v: %s %s", err, g.Stdout(), g.Stderr())
		}
	})
}

// TestEndpointsCarryTheirRMWsUserData: with --typehash each vendor's
// service endpoints announce the RIHS01 hash of their message type
// (rmw_dds_common's typehash=…;), and Cyclone's also its serviceid or
// clientid as rmw_cyclonedds prints it; Fast DDS's carry nothing else.
func TestEndpointsCarryTheirRMWsUserData(t *testing.T) {
	p := BuildNodes(t, msgs.Jazzy)
	set, err := msgs.Load(msgs.Jazzy)
	if err != nil {
		t.Fatal(err)
	}
	reqHash, err := set.TypeHash("std_srvs/srv/Trigger_Request")
	if err != nil {
		t.Fatal(err)
	}
	repHash, err := set.TypeHash("std_srvs/srv/Trigger_Response")
	if err != nil {
		t.Fatal(err)
	}
	csid := `[ 0-9a-f][0-9a-f](\.[0-9a-f]{1,2}){15}`
	for _, tc := range []struct {
		v      vendor
		prefix string // of the user data, before typehash
	}{
		{nodeVendors(t, p)[0], `serviceid=` + csid + `;`},
		{nodeVendors(t, p)[1], ``},
		{nodeVendors(t, p)[2], ``},
	} {
		t.Run(tc.v.name, func(t *testing.T) {
			SkipMissing(t, tc.v.bin)
			ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
			defer cancel()
			eps, ns := startReady(ctx, t, func(ns string) *Proc { return StartEndpoints(t, ns, p.Cyclone, "--count", "2") }, "ready")
			StartTriggerServer(t, ns, tc.v.bin, "/trigger", append(p.DistroFlags(), "--timeout", "0")...)
			if err := eps.Wait(ctx); err != nil {
				t.Fatalf("endpoints: %v: %s", err, eps.Stderr())
			}
			for _, e := range jsonLines[EndpointInfo](t, eps) {
				hash := map[string]string{"rq/triggerRequest": reqHash, "rr/triggerReply": repHash}[e.Topic]
				want := "^" + tc.prefix + "typehash=" + hash + ";$"
				if hash == "" || !regexp.MustCompile(want).MatchString(e.UserData) {
					t.Errorf("%s %s announces user data %q, want %s", e.Kind, e.Topic, e.UserData, want)
				}
			}
		})
	}
}

// TestLeaseFlagBoundsHowLongAKilledPeerLingers: a node peer killed without
// a goodbye is dropped by discovery within its --lease, so tests of "the
// server died mid-goal" need not wait out the vendors' 10 or 20 s.
func TestLeaseFlagBoundsHowLongAKilledPeerLingers(t *testing.T) {
	p := BuildNodes(t, msgs.Jazzy)
	eachVendor(t, p, func(t *testing.T, ctx context.Context, v vendor) {
		eps, ns := startReady(ctx, t, func(ns string) *Proc { return StartEndpoints(t, ns, p.Cyclone) }, "ready")
		srv := StartTriggerServer(t, ns, v.bin, "/trigger", "--lease", "2", "--timeout", "0")
		if err := eps.WaitStdout(ctx, "rq/triggerRequest"); err != nil {
			t.Fatalf("endpoints: %v: %s", err, eps.Stderr())
		}
		srv.Kill()
		killed := time.Now()
		if err := eps.WaitStdout(ctx, `"gone":true`); err != nil {
			t.Fatal(err)
		}
		if d := time.Since(killed); d > 4*time.Second {
			t.Fatalf("a peer with a 2 s lease was dropped %v after it was killed", d)
		}
	})
}
