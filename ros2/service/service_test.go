package service

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/ros2/msgs"
	"github.com/actbridge/actbridge/ros2/service/servicetest"
	"github.com/actbridge/actbridge/rtps"
	"github.com/actbridge/actbridge/rtps/wire"
	"github.com/actbridge/actbridge/test/netns"
)

// TestMain runs the package's tests inside a network namespace it made,
// so discovery never leaves it.
func TestMain(m *testing.M) { netns.Main(m) }

const trigger = "std_srvs/srv/Trigger"

func triggerTypes(t *testing.T) Types {
	t.Helper()
	set, err := msgs.Load(msgs.Jazzy)
	if err != nil {
		t.Fatal(err)
	}
	ty, err := ResolveTypes(set, trigger)
	if err != nil {
		t.Fatal(err)
	}
	return ty
}

// counting is a Trigger handler that answers "call N" and counts calls.
func counting(ty Types, n *atomic.Int32) Handler {
	return func(ctx context.Context, req *cdr.Message) (*cdr.Message, error) {
		k := n.Add(1)
		rep := cdr.Zero(ty.Response)
		rep.Set("success", true)
		rep.Set("message", fmt.Sprintf("call %d", k))
		return rep, nil
	}
}

func TestGoClientAndServerPairEachRequestWithItsReplyInEachDialect(t *testing.T) {
	netns.Require(t)
	ty := triggerTypes(t)
	for i, d := range []Dialect{Auto, Cyclone, FastDDS} {
		t.Run(d.String(), func(t *testing.T) {
			ps, pc := servicetest.Participant(t, 60+i), servicetest.Participant(t, 60+i)
			var calls atomic.Int32
			srv, err := NewServer(ps, ty, "/robot/trigger", counting(ty, &calls), Options{Dialect: d})
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			// Two clients: the reply writer sends every reply to both, so
			// each must keep only its own.
			var clients []*Client
			for range 2 {
				c, err := NewClient(pc, ty, "/robot/trigger", Options{Dialect: d})
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				clients = append(clients, c)
			}
			var wg sync.WaitGroup
			seen := make(chan string, 6)
			for _, c := range clients {
				wg.Go(func() {
					for range 3 {
						rep, peer, err := c.Exchange(servicetest.Timeout(t, 10*time.Second), cdr.Zero(ty.Request))
						if err != nil {
							t.Error(err)
							return
						}
						if want := d.resolve(rtps.VendorID); peer.Dialect != want {
							t.Errorf("spoke %v, want %v", peer.Dialect, want)
						}
						seen <- rep.Get("message").(string)
					}
				})
			}
			wg.Wait()
			close(seen)
			got := map[string]bool{}
			for m := range seen {
				if got[m] {
					t.Errorf("reply %q reached two calls", m)
				}
				got[m] = true
			}
			if len(got) != 6 || calls.Load() != 6 {
				t.Fatalf("6 calls made %d handler calls and %d distinct replies", calls.Load(), len(got))
			}
		})
	}
}

func TestTimedOutCallSaysHowFarTheRequestGotAndNeverResends(t *testing.T) {
	netns.Require(t)
	ty := triggerTypes(t)
	ps, pc := servicetest.Participant(t, 63), servicetest.Participant(t, 63)
	c, err := NewClient(pc, ty, "/slow", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Call(servicetest.Timeout(t, 300*time.Millisecond), cdr.Zero(ty.Request)); !errors.Is(err, ErrNoServer) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("no server: %v, want ErrNoServer", err)
	}
	var calls atomic.Int32
	release := make(chan struct{})
	srv, err := NewServer(ps, ty, "/slow", func(ctx context.Context, req *cdr.Message) (*cdr.Message, error) {
		calls.Add(1)
		select {
		case <-release:
		case <-ctx.Done():
		}
		return nil, errors.New("too late")
	}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	defer close(release)
	if _, err := c.Call(servicetest.Timeout(t, 3*time.Second), cdr.Zero(ty.Request)); !errors.Is(err, ErrNoReply) {
		t.Fatalf("server holding the request: %v, want ErrNoReply", err)
	}
	time.Sleep(200 * time.Millisecond)
	if n := calls.Load(); n != 1 {
		t.Fatalf("one call reached the handler %d times", n)
	}
}

func TestRequestToAReaderThatNeverAcknowledgesIsUndelivered(t *testing.T) {
	netns.Require(t)
	ty := triggerTypes(t)
	ps, pc := servicetest.Participant(t, 64), servicetest.Participant(t, 64)
	// A server whose request reader is best effort: it matches our
	// reliable writer but never acknowledges.
	rq, err := ps.NewReader(rtps.EndpointData{Topic: "rq/deafRequest", Type: ty.RequestDDS, QoS: rtps.QoS{Reliability: rtps.BestEffort, History: rtps.KeepLast, Depth: 10}})
	if err != nil {
		t.Fatal(err)
	}
	defer rq.Close()
	rr, err := ps.NewWriter(rtps.EndpointData{Topic: "rr/deafReply", Type: ty.ResponseDDS, QoS: Options{}.withDefaults().QoS})
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Close()
	c, err := NewClient(pc, ty, "/deaf", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = c.Call(servicetest.Timeout(t, 3*time.Second), cdr.Zero(ty.Request))
	if !errors.Is(err, ErrUndelivered) {
		t.Fatalf("%v, want ErrUndelivered", err)
	}
	if _, err := rq.Take(servicetest.Timeout(t, time.Second)); err != nil {
		t.Fatalf("the request never reached the reader: %v", err)
	}
}

func TestServerLeavingMidCallEndsTheCallAsLost(t *testing.T) {
	netns.Require(t)
	ty := triggerTypes(t)
	ps, pc := servicetest.Participant(t, 65), servicetest.Participant(t, 65)
	taken := make(chan struct{})
	srv, err := NewServer(ps, ty, "/gone", func(ctx context.Context, req *cdr.Message) (*cdr.Message, error) {
		close(taken)
		<-ctx.Done()
		return nil, ctx.Err()
	}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewClient(pc, ty, "/gone", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	go func() {
		<-taken
		time.Sleep(100 * time.Millisecond)
		srv.Close()
		ps.Close() // goodbye
	}()
	start := time.Now()
	_, err = c.Call(servicetest.Timeout(t, 10*time.Second), cdr.Zero(ty.Request))
	if !errors.Is(err, ErrServerLost) || !errors.Is(err, ErrNoReply) {
		t.Fatalf("%v, want ErrServerLost after delivery", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("loss noticed after %v", d)
	}
}

// syncBuffer is a log destination safe for the server's goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestServerRefusesARequestFramedInTheOtherDialect(t *testing.T) {
	netns.Require(t)
	ty := triggerTypes(t)
	for i, tc := range []struct{ server, client Dialect }{{Cyclone, FastDDS}, {FastDDS, Cyclone}} {
		t.Run(tc.server.String()+" server", func(t *testing.T) {
			ps, pc := servicetest.Participant(t, 66+i), servicetest.Participant(t, 66+i)
			var log syncBuffer
			var calls atomic.Int32
			srv, err := NewServer(ps, ty, "/strict", counting(ty, &calls), Options{Dialect: tc.server, Logger: slog.New(slog.NewTextHandler(&log, nil))})
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			c, err := NewClient(pc, ty, "/strict", Options{Dialect: tc.client})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			_, err = c.Call(servicetest.Timeout(t, 2*time.Second), cdr.Zero(ty.Request))
			if err == nil {
				t.Fatal("a request in the wrong dialect was answered")
			}
			if calls.Load() != 0 || !bytes.Contains([]byte(log.String()), []byte("request")) {
				t.Fatalf("handler calls %d, log %q", calls.Load(), log.String())
			}
		})
	}
}

func TestEndpointsAnnounceTheirIDAndTypeHashAsRmwDoes(t *testing.T) {
	netns.Require(t)
	ty := triggerTypes(t)
	ps, pc := servicetest.Participant(t, 69), servicetest.Participant(t, 69)
	srv, err := NewServer(ps, ty, "/announced", counting(ty, new(atomic.Int32)), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	var seen []wire.GUID
	c, err := NewClient(pc, ty, "/announced", Options{Endpoints: func(e rtps.EndpointData, added bool) error {
		if added {
			seen = append(seen, e.GUID)
		}
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	w, r := c.GUIDs()
	if len(seen) != 2 || !slices.Contains(seen, w) || !slices.Contains(seen, r) {
		t.Fatalf("hook saw %v, endpoints are %v and %v", seen, w, r)
	}
	eps, err := ps.WaitEndpoints(servicetest.Timeout(t, 10*time.Second), func(es []rtps.EndpointData) bool {
		n := 0
		for _, e := range es {
			if e.GUID == w || e.GUID == r {
				n++
			}
		}
		return n == 2
	})
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, e := range eps {
		if e.GUID != w && e.GUID != r {
			continue
		}
		id, ok := userValue(e.UserData, "clientid")
		hash, _ := userValue(e.UserData, "typehash")
		if !ok || !strings.HasPrefix(hash, "RIHS01_") || len(hash) != 7+64 {
			t.Fatalf("%s announces %q", e.Topic, e.UserData)
		}
		ids[id] = true
	}
	if len(ids) != 1 {
		t.Fatalf("writer and reader announce different client ids %v; a Cyclone server pairs them by it", ids)
	}
	refused := errors.New("node closed")
	var withdrawn []wire.GUID
	_, err = NewClient(pc, ty, "/announced", Options{Endpoints: func(e rtps.EndpointData, added bool) error {
		if !added {
			withdrawn = append(withdrawn, e.GUID)
			return nil
		}
		if e.Writer {
			return refused
		}
		return nil
	}})
	if !errors.Is(err, refused) || len(withdrawn) != 1 {
		t.Fatalf("a hook refusing the writer: %v, %d withdrawn (the reader made before it must be)", err, len(withdrawn))
	}
	humble, _ := msgs.Load(msgs.Humble)
	if ud := TypeHashUserData(humble, trigger); ud != nil {
		t.Fatalf("Humble's rmw announces no type hash, we would: %q", ud)
	}
}

// TestCallGivenUpBeforeItsRequestIsWrittenSendsNothing: a call whose ctx
// ended while it waited (a stop) sends nothing, even with the server
// ready: ErrNoServer, and the handler is never called for it.
func TestCallGivenUpBeforeItsRequestIsWrittenSendsNothing(t *testing.T) {
	netns.Require(t)
	ty := triggerTypes(t)
	ps, pc := servicetest.Participant(t, 74), servicetest.Participant(t, 74)
	var calls atomic.Int32
	srv, err := NewServer(ps, ty, "/ready", counting(ty, &calls), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	c, err := NewClient(pc, ty, "/ready", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Call(servicetest.Timeout(t, 10*time.Second), cdr.Zero(ty.Request)); err != nil {
		t.Fatal(err)
	}
	stopped, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Call(stopped, cdr.Zero(ty.Request)); !errors.Is(err, ErrNoServer) || !errors.Is(err, context.Canceled) {
		t.Fatalf("a call given up before it was written: %v, want ErrNoServer (nothing sent)", err)
	}
	time.Sleep(200 * time.Millisecond)
	if n := calls.Load(); n != 1 {
		t.Fatalf("the handler ran %d times, want 1 (the given-up call must not reach it)", n)
	}
}

// TestServerThatMatchesLaterNeverGetsAnEarlierRequest: requests stay in
// the client's writer history (keep-last 10), but a server that matches
// after they were written — a restarted one — is never sent them: a
// goal request must not run again because its server came back.
func TestServerThatMatchesLaterNeverGetsAnEarlierRequest(t *testing.T) {
	netns.Require(t)
	ty := triggerTypes(t)
	ps, pc := servicetest.Participant(t, 75), servicetest.Participant(t, 75)
	var first, second atomic.Int32
	srv, err := NewServer(ps, ty, "/restarted", counting(ty, &first), Options{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewClient(pc, ty, "/restarted", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for range 3 {
		if _, err := c.Call(servicetest.Timeout(t, 10*time.Second), cdr.Zero(ty.Request)); err != nil {
			t.Fatal(err)
		}
	}
	srv.Close()
	again, err := NewServer(ps, ty, "/restarted", counting(ty, &second), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if _, err := c.WaitServer(servicetest.Timeout(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second) // heartbeats announce the history; a NACK for it must get a GAP
	if n := second.Load(); n != 0 {
		t.Fatalf("the new server received %d of the requests written before it matched", n)
	}
	if _, err := c.Call(servicetest.Timeout(t, 10*time.Second), cdr.Zero(ty.Request)); err != nil || second.Load() != 1 {
		t.Fatalf("a new call: %v, handler calls %d, want 1", err, second.Load())
	}
}

// TestExchangeNamesTheServerThatAnswered: a request goes to every matched
// server reader, and the server WaitServer chose may never answer (a
// crashed robot's, its lease not yet ended, next to the restarted one's):
// the peer Exchange returns is the one whose reply came, so a caller
// follows the goal on the live server, not on one about to be dropped.
func TestExchangeNamesTheServerThatAnswered(t *testing.T) {
	netns.Require(t)
	ty := triggerTypes(t)
	const domain = 80
	dead, live, pc := servicetest.Participant(t, domain), servicetest.Participant(t, domain), servicetest.Participant(t, domain)
	silent, err := NewDeferredServer(dead, ty, "/restarted", func(context.Context, *cdr.Message, Replier) {}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	var calls atomic.Int32
	srv, err := NewServer(live, ty, "/restarted", counting(ty, &calls), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	c := newClient(t, pc, ty, "/restarted")
	ctx := servicetest.Timeout(t, 10*time.Second)
	waitMatched(ctx, t, c, 2)
	// WaitServer picks either server; several calls pick the silent one
	// sometimes (the matched readers come in map order).
	for i := range 8 {
		_, peer, err := c.Exchange(ctx, cdr.Zero(ty.Request))
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		if peer.Prefix != live.GUID().Prefix {
			t.Fatalf("call %d: answered by %v, reported as %v (the silent server is %v)", i, live.GUID().Prefix, peer.Prefix, dead.GUID().Prefix)
		}
		if w, _ := srv.GUIDs(); peer.Reader.Prefix != w.Prefix {
			t.Fatalf("call %d: reported reader %v, not the live server's", i, peer.Reader)
		}
	}
}

// TestCallOutlivesAServerThatLeavesWhileAnotherHasTheRequest: the request
// went to two servers; the one WaitServer chose may be the one that leaves
// (a crashed robot's, dropped at its lease end) while the other still
// holds the request (an action's get_result, answered when the goal ends):
// the call waits for the other's reply instead of failing ErrServerLost.
func TestCallOutlivesAServerThatLeavesWhileAnotherHasTheRequest(t *testing.T) {
	netns.Require(t)
	ty := triggerTypes(t)
	const domain = 81
	live, pc := servicetest.Participant(t, domain), servicetest.Participant(t, domain)
	held := make(chan Replier, 1)
	srv, err := NewDeferredServer(live, ty, "/outlived", func(_ context.Context, _ *cdr.Message, reply Replier) { held <- reply }, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	c := newClient(t, pc, ty, "/outlived")
	// WaitServer picks either server (map order): a few rounds call the
	// leaving one sometimes.
	for i := range 6 {
		dead := servicetest.Participant(t, domain)
		silent, err := NewDeferredServer(dead, ty, "/outlived", func(context.Context, *cdr.Message, Replier) {}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		ctx := servicetest.Timeout(t, 10*time.Second)
		waitMatched(ctx, t, c, 2)
		go func() {
			select {
			case reply := <-held:
				silent.Close()
				dead.Close() // goodbye: dropped at once
				if _, err := pc.WaitParticipants(ctx, hasNo(dead.GUID().Prefix)); err != nil {
					t.Error(err)
				}
				rep := cdr.Zero(ty.Response)
				rep.Set("message", "late")
				if err := reply(rep); err != nil {
					t.Error(err)
				}
			case <-ctx.Done():
			}
		}()
		rep, peer, err := c.Exchange(ctx, cdr.Zero(ty.Request))
		if err != nil {
			t.Fatalf("round %d: %v", i, err)
		}
		if rep.Get("message") != "late" || peer.Prefix != live.GUID().Prefix {
			t.Fatalf("round %d: %v from %v", i, rep, peer.Prefix)
		}
	}
}

// newClient is a client of service on p, closed with t.
func newClient(t *testing.T, p *rtps.Participant, ty Types, service string) *Client {
	t.Helper()
	c, err := NewClient(p, ty, service, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// waitMatched waits until c's request writer matches n server readers.
func waitMatched(ctx context.Context, t *testing.T, c *Client, n int) {
	t.Helper()
	if _, err := c.e.p.WaitParticipants(ctx, func([]rtps.ParticipantData) bool { return len(c.e.w.Matched()) == n }); err != nil {
		t.Fatalf("%d server readers never matched: %v", n, err)
	}
}

func hasNo(prefix wire.GUIDPrefix) func([]rtps.ParticipantData) bool {
	return func(ps []rtps.ParticipantData) bool {
		return !slices.ContainsFunc(ps, func(d rtps.ParticipantData) bool { return d.Prefix == prefix })
	}
}
