package ros2rpc

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/ros2/service"
	"github.com/actbridge/actbridge/ros2/service/servicetest"
	"github.com/actbridge/actbridge/rtps"
	"github.com/actbridge/actbridge/rtps/wire"
	"github.com/actbridge/actbridge/test/ddspeers"
	"github.com/actbridge/actbridge/test/netns"
)

// TestMain runs the test binary inside a namespace it made, where our
// participants and the peers meet; each test takes domains of its own.
func TestMain(m *testing.M) { netns.Main(m) }

// vendor is one node peer: its binary, the name it puts in its Trigger
// replies and the vendor id its participant announces.
type vendor struct {
	name string
	bin  string
	id   wire.VendorID
	env  []string // extra environment for the peer, if any
}

func setup(t *testing.T) (string, *msgs.Set, []vendor) {
	t.Helper()
	ns := netns.Require(t)
	p := ddspeers.BuildNodes(t, msgs.Jazzy)
	set, err := msgs.Load(msgs.Jazzy)
	if err != nil {
		t.Fatal(err)
	}
	return ns, set, []vendor{{"cyclonedds", p.Cyclone, wire.VendorCyclone, nil}, {"fastdds", p.Fast, wire.VendorEProsima, nil}, {"fastdds3", p.Fast3(t), wire.VendorEProsima, nil}}
}

func triggerTypes(t *testing.T, set *msgs.Set) service.Types {
	t.Helper()
	ty, err := service.ResolveTypes(set, "std_srvs/srv/Trigger")
	if err != nil {
		t.Fatal(err)
	}
	return ty
}

// checkNotMalformed fails t if the peer refused one of our frames.
func checkNotMalformed(t *testing.T, p *ddspeers.Proc) {
	t.Helper()
	if line, ok := p.Malformed(); ok {
		t.Fatalf("the peer refused our frame: %s", line)
	}
}

func TestOurClientCallsEachVendorsTriggerServerInItsDialect(t *testing.T) {
	ns, set, vendors := setup(t)
	ty := triggerTypes(t, set)
	for i, v := range vendors {
		t.Run(v.name, func(t *testing.T) {
			ddspeers.SkipMissing(t, v.bin)
			domain := strconv.Itoa(90 + i)
			ctx := servicetest.Timeout(t, 60*time.Second)
			srv := ddspeers.StartTriggerServer(t, ns, v.bin, "/robot/trigger", "--count", "3", "--domain", domain)
			if err := srv.WaitStderr(ctx, "ready"); err != nil {
				t.Fatalf("%v: %s", err, srv.Stderr())
			}
			c, err := service.NewClient(servicetest.Participant(t, 90+i), ty, "/robot/trigger", service.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			for k := 1; k <= 3; k++ {
				rep, peer, err := c.Exchange(servicetest.Timeout(t, 20*time.Second), cdr.Zero(ty.Request))
				checkNotMalformed(t, srv)
				if err != nil {
					t.Fatalf("call %d: %v\npeer: %s", k, err, srv.Stderr())
				}
				if peer.Vendor != v.id || peer.Dialect != service.DialectOf(v.id) {
					t.Fatalf("server seen as vendor %v, dialect %v", peer.Vendor, peer.Dialect)
				}
				if want := fmt.Sprintf("%s call %d", v.name, k); rep.Get("message") != want || rep.Get("success") != true {
					t.Fatalf("call %d: reply %v %v, want %q", k, rep.Get("success"), rep.Get("message"), want)
				}
			}
			if err := srv.Wait(ctx); err != nil {
				t.Fatalf("server: %v: %s", err, srv.Stderr())
			}
			served, err := ddspeers.JSONLines[ddspeers.ServedCall](srv.Stdout())
			if err != nil || len(served) != 3 {
				t.Fatalf("server served %v (%v), want 3 calls: each request sent once", served, err)
			}
			for _, s := range served {
				if !s.Replied {
					t.Errorf("server dropped a reply (our reader unmatched): %+v", s)
				}
			}
		})
	}
}

func TestEachVendorsTriggerClientCallsOurServer(t *testing.T) {
	ns, set, vendors := setup(t)
	ty := triggerTypes(t, set)
	for i, v := range vendors {
		t.Run(v.name, func(t *testing.T) {
			ddspeers.SkipMissing(t, v.bin)
			ctx := servicetest.Timeout(t, 60*time.Second)
			var calls atomic.Int32
			srv, err := service.NewServer(servicetest.Participant(t, 93+i), ty, "/robot/trigger", func(_ context.Context, req *cdr.Message) (*cdr.Message, error) {
				rep := cdr.Zero(ty.Response)
				rep.Set("success", true)
				rep.Set("message", fmt.Sprintf("actbridge call %d", calls.Add(1)))
				return rep, nil
			}, service.Options{Logger: slog.New(slog.NewTextHandler(tlog{t}, nil))})
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			cli := ddspeers.StartTriggerClient(t, ns, v.bin, "/robot/trigger", 3, "--domain", strconv.Itoa(93+i), "--timeout", "20")
			if err := cli.Wait(ctx); err != nil {
				t.Fatalf("client: %v: %s", err, cli.Stderr())
			}
			replies, err := ddspeers.JSONLines[ddspeers.TriggerReply](cli.Stdout())
			if err != nil || len(replies) != 3 {
				t.Fatalf("client took %v (%v), want 3 replies", replies, err)
			}
			for k, r := range replies {
				if want := fmt.Sprintf("actbridge call %d", k+1); !r.Success || r.Message != want {
					t.Errorf("reply %d: %+v, want %q", k, r, want)
				}
			}
			if n := calls.Load(); n != 3 {
				t.Fatalf("our handler ran %d times for 3 calls", n)
			}
		})
	}
}

// TestEachVendorRefusesTheOtherDialectLoudly forces our client into the
// wrong dialect: each peer must end with MALFORMED, which is what makes
// the passing tests above proof that we framed right.
func TestEachVendorRefusesTheOtherDialectLoudly(t *testing.T) {
	ns, set, vendors := setup(t)
	ty := triggerTypes(t, set)
	for i, v := range vendors {
		t.Run(v.name, func(t *testing.T) {
			ddspeers.SkipMissing(t, v.bin)
			ctx := servicetest.Timeout(t, 60*time.Second)
			srv := ddspeers.StartTriggerServer(t, ns, v.bin, "/robot/trigger", "--domain", strconv.Itoa(96+i))
			if err := srv.WaitStderr(ctx, "ready"); err != nil {
				t.Fatalf("%v: %s", err, srv.Stderr())
			}
			wrong := service.Cyclone
			if service.DialectOf(v.id) == service.Cyclone {
				wrong = service.FastDDS
			}
			c, err := service.NewClient(servicetest.Participant(t, 96+i), ty, "/robot/trigger", service.Options{Dialect: wrong})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if _, err := c.Call(servicetest.Timeout(t, 3*time.Second), cdr.Zero(ty.Request)); err == nil {
				t.Fatal("a request in the wrong dialect was answered")
			}
			err = srv.Wait(ctx)
			line, ok := srv.Malformed()
			if !ok {
				t.Fatalf("peer took a %v request without complaint (exit %v): %s", wrong, err, srv.Stderr())
			}
			t.Logf("%s refused: %s", v.name, line)
		})
	}
}

// TestCallRefusedWhileServersOfBothDialectsMatch has a CycloneDDS and a
// Fast DDS server (2.9, then 3.1) on one service: any request we wrote
// would reach both, framed wrongly for one, so none is sent.
func TestCallRefusedWhileServersOfBothDialectsMatch(t *testing.T) {
	ns, set, vendors := setup(t)
	ty := triggerTypes(t, set)
	for i, fast := range vendors[1:] {
		t.Run("cyclonedds and "+fast.name, func(t *testing.T) {
			ddspeers.SkipMissing(t, fast.bin)
			testMixedDialectsRefused(t, ns, ty, []vendor{vendors[0], fast}, []int{99, 89}[i])
		})
	}
}

func testMixedDialectsRefused(t *testing.T, ns string, ty service.Types, servers []vendor, domain int) {
	ctx := servicetest.Timeout(t, 60*time.Second)
	var peers []*ddspeers.Proc
	for _, v := range servers {
		p := ddspeers.StartTriggerServer(t, ns, v.bin, "/robot/trigger", "--domain", strconv.Itoa(domain), "--timeout", "0")
		if err := p.WaitStderr(ctx, "ready"); err != nil {
			t.Fatalf("%v: %s", err, p.Stderr())
		}
		peers = append(peers, p)
	}
	part := servicetest.Participant(t, domain)
	c, err := service.NewClient(part, ty, "/robot/trigger", service.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// Both servers' readers known (and so matched with our writer) before
	// calling, so the refusal does not depend on which came first.
	if _, err := part.WaitEndpoints(ctx, func(es []rtps.EndpointData) bool {
		n := 0
		for _, e := range es {
			if e.Topic == "rq/robot/triggerRequest" && !e.Writer {
				n++
			}
		}
		return n == 2
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Call(servicetest.Timeout(t, 5*time.Second), cdr.Zero(ty.Request)); !errors.Is(err, service.ErrMixedDialects) {
		t.Fatalf("%v, want ErrMixedDialects", err)
	}
	time.Sleep(300 * time.Millisecond)
	for _, p := range peers {
		checkNotMalformed(t, p)
		if served, _ := ddspeers.JSONLines[ddspeers.ServedCall](p.Stdout()); len(served) != 0 {
			t.Fatalf("a server got %d requests", len(served))
		}
	}
}

// tlog writes a server's log lines to the test's log.
type tlog struct{ t *testing.T }

func (l tlog) Write(p []byte) (int, error) { l.t.Log(strings.TrimSpace(string(p))); return len(p), nil }
