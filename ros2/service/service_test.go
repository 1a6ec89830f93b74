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
	"github.com/actbridge/actbridge/msgs/ros2"
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

// TestCallWithTwoServersIsRefusedNamingBothAndReachesNeither: two
// participants serve one service (two robots on one domain without
// namespaces, a stray test node): a call naming none is refused with
// both named, and neither gets the request.
func TestCallWithTwoServersIsRefusedNamingBothAndReachesNeither(t *testing.T) {
	netns.Require(t)
	ty := triggerTypes(t)
	const domain = 80
	pa, pb, pc := servicetest.Participant(t, domain), servicetest.Participant(t, domain), servicetest.Participant(t, domain)
	var calls [2]atomic.Int32
	for i, p := range []*rtps.Participant{pa, pb} {
		srv, err := NewServer(p, ty, "/twice", counting(ty, &calls[i]), Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
	}
	c := newClient(t, pc, ty, "/twice")
	ctx := servicetest.Timeout(t, 10*time.Second)
	waitMatched(ctx, t, c, 2)
	_, _, err := c.Exchange(ctx, cdr.Zero(ty.Request))
	var amb *AmbiguousError
	if !errors.Is(err, ErrAmbiguousServer) || !errors.As(err, &amb) {
		t.Fatalf("%v, want ErrAmbiguousServer", err)
	}
	if len(amb.Servers) != 2 || !slices.Contains(amb.Servers, pa.GUID().Prefix) || !slices.Contains(amb.Servers, pb.GUID().Prefix) {
		t.Fatalf("refusal names %v, want %v and %v", amb.Servers, pa.GUID().Prefix, pb.GUID().Prefix)
	}
	// A call naming one reaches it alone: the other's reader gets a GAP.
	rep, peer, err := c.ExchangeWith(ctx, cdr.Zero(ty.Request), pb.GUID().Prefix)
	if err != nil || peer.Prefix != pb.GUID().Prefix || rep.Get("message") != "call 1" {
		t.Fatalf("call to %v: %v from %v, %v", pb.GUID().Prefix, rep, peer.Prefix, err)
	}
	time.Sleep(200 * time.Millisecond) // a request to the other would have arrived by now
	if a, b := calls[0].Load(), calls[1].Load(); a != 0 || b != 1 {
		t.Fatalf("servers got %d and %d requests, want 0 and 1", a, b)
	}
}

// TestReplyFromAnotherParticipantThanTheServerCalledIsIgnored: a
// participant that answers a request it never got (it forges the sample
// identity: it reads the requests of our writer from the wire) is never
// believed; the call ends with the called server's reply, or by its
// context, and the forgery is counted.
func TestReplyFromAnotherParticipantThanTheServerCalledIsIgnored(t *testing.T) {
	netns.Require(t)
	ty := triggerTypes(t)
	const domain = 81
	ps, rogue, pc := servicetest.Participant(t, domain), servicetest.Participant(t, domain), servicetest.Participant(t, domain)
	held := make(chan Replier, 1)
	srv, err := NewDeferredServer(ps, ty, "/pinned", func(_ context.Context, _ *cdr.Message, reply Replier) { held <- reply }, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	c := newClient(t, pc, ty, "/pinned")
	// The rogue: a reply writer only, which the client's reader matches.
	rr, err := rogue.NewWriter(rtps.EndpointData{Topic: "rr/pinnedReply", Type: ty.ResponseDDS, QoS: Options{}.withDefaults().QoS})
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Close()
	ctx := servicetest.Timeout(t, 10*time.Second)
	_, reader := c.GUIDs()
	if err := rr.WaitReady(ctx, 1); err != nil {
		t.Fatal(err)
	}
	type result struct {
		rep *cdr.Message
		err error
	}
	done := make(chan result, 1)
	go func() {
		rep, _, err := c.ExchangeWith(ctx, cdr.Zero(ty.Request), ps.GUID().Prefix)
		done <- result{rep, err}
	}()
	var reply Replier
	select {
	case reply = <-held:
	case <-ctx.Done():
		t.Fatal("the request never reached the server")
	}
	// The forgery answers the first request of our writer (SN 1).
	forged := cdr.Zero(ty.Response)
	forged.Set("message", "forged")
	body, err := cdr.Encode(forged, cdr.LittleEndian)
	if err != nil {
		t.Fatal(err)
	}
	w, _ := c.GUIDs()
	id := SampleIdentity{Writer: w, SN: 1}
	if err := rr.Write(cdr.Pad(body), id.InlineQoS()); err != nil {
		t.Fatal(err)
	}
	for c.Foreign() == 0 {
		select {
		case r := <-done:
			t.Fatalf("the call ended with the forgery: %v, %v", r.rep, r.err)
		case <-ctx.Done():
			t.Fatalf("the forged reply to reader %v was not counted", reader)
		case <-time.After(10 * time.Millisecond):
		}
	}
	own := cdr.Zero(ty.Response)
	own.Set("message", "real")
	if err := reply(own); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.err != nil || r.rep.Get("message") != "real" {
		t.Fatalf("call ended with %v, %v; want the server's own reply", r.rep, r.err)
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

// A request encoded once is sent as encoded: the reply pairs with it, and
// an encoding is refused by any other client and for another type.
func TestAnEncodedRequestIsSentByItsClientAlone(t *testing.T) {
	netns.Require(t)
	ty := triggerTypes(t)
	ps, pc := servicetest.Participant(t, 76), servicetest.Participant(t, 76)
	var calls atomic.Int32
	srv, err := NewServer(ps, ty, "/once", counting(ty, &calls), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	c, err := NewClient(pc, ty, "/once", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	other, err := NewClient(pc, ty, "/other", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := c.Encode(cdr.Zero(ty.Response)); err == nil {
		t.Fatal("a response encoded as a request")
	}
	enc, err := c.Encode(cdr.Zero(ty.Request))
	if err != nil {
		t.Fatal(err)
	}
	ctx := servicetest.Timeout(t, 10*time.Second)
	if _, _, err := other.ExchangeEncoded(ctx, enc, wire.GUIDPrefix{}); err == nil || calls.Load() != 0 {
		t.Fatalf("another client sent it: %v, %d calls", err, calls.Load())
	}
	rep, _, err := c.ExchangeEncoded(ctx, enc, wire.GUIDPrefix{})
	if err != nil || rep.Get("message") != "call 1" {
		t.Fatalf("%v %v", rep, err)
	}
}
