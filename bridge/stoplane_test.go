package bridge

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type stopCounter struct{ stops atomic.Int32 }

func (c *stopCounter) ObserveCall(rec CallRecord) {
	if rec.Tool == "robot_stop" {
		c.stops.Add(1)
	}
}

// With reads holding every admission slot and the arm's lock, robot_stop
// still latches and reaches the transport, and it has done so before the
// SDK sees the request (its receiving middleware looks); the SDK answers
// with that result, so the stop runs and is audited once.
func TestStopLatchesAndReachesTheTransportBeforeTheSDKWhileReadsHoldEverything(t *testing.T) {
	r := newRig(t)
	obs := &stopCounter{}
	r.p.Observer = obs
	read, _ := r.p.Registry.Lookup("joints_read")
	release := make(chan struct{})
	var entered atomic.Int32
	read.Call = func(ctx context.Context, c *Call) (any, error) {
		entered.Add(1)
		<-release
		return map[string]any{}, nil
	}
	holdArm, lerr := r.p.Locks.Acquire(t.Context(), "arm", "a confirm that waits", time.Minute)
	if lerr != nil {
		t.Fatal(lerr)
	}
	defer holdArm()

	front := &Front{Pipeline: r.p, Name: "actbridge", Version: "test"}
	var stopsWhenTheSDKSawIt atomic.Int32
	stopsWhenTheSDKSawIt.Store(-1)
	front.Server().AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok && method == "tools/call" && p.Name == "robot_stop" {
				stopsWhenTheSDKSawIt.Store(int32(r.robot.Stops()))
			}
			return next(ctx, method, req)
		}
	})
	srv := httptest.NewServer(front.HTTPHandler(Tokens{OpenPlanner: true}, 1<<20))
	t.Cleanup(srv.Close)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).
		Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: srv.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })

	slots := readSlots()
	var reads sync.WaitGroup
	for range slots + 4 { // every slot held, four more queued behind them
		reads.Go(func() {
			_, _ = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "joints_read", Arguments: map[string]any{}})
		})
	}
	defer func() { close(release); reads.Wait() }()
	waitUntil(t, "reads holding every admission slot", func() bool { return int(entered.Load()) == slots })

	res, m := toolCall(t, cs, &mcp.CallToolParams{Name: "robot_stop", Arguments: map[string]any{"reason": "a person"}})
	if res.IsError || m["stopped"] != true {
		t.Fatalf("robot_stop: %v", m)
	}
	if latched, _, _ := r.estop.State(); !latched || r.robot.Stops() != 1 {
		t.Fatalf("latched %v, %d stops on the transport; want latched and one", latched, r.robot.Stops())
	}
	if got := stopsWhenTheSDKSawIt.Load(); got != 1 {
		t.Errorf("the SDK saw robot_stop with %d stops on the transport, want 1: the stop runs before the SDK processes the request", got)
	}
	if n := obs.stops.Load(); n != 1 {
		t.Errorf("robot_stop ran %d times through the pipeline, want once", n)
	}
	if int(entered.Load()) != slots {
		t.Errorf("%d reads ran, want %d: the reads were still held", entered.Load(), slots)
	}
}

// Only the lane marks a request as stopped already: a ticket a client
// sends is stripped before anything reads it.
func TestAClientCannotForgeAStopTicket(t *testing.T) {
	var got []string
	a := newAdmission(func(string) bool { return false })
	h := a.wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.Header.Get(stopTicketHeader))
	}), 1<<20)
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"robot_stop","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"joints_read","arguments":{}}}`,
	} {
		req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
		req.Header.Set(stopTicketHeader, "1")
		h.ServeHTTP(httptest.NewRecorder(), req)
	}
	if strings.Join(got, ",") != "," {
		t.Errorf("tickets that reached the server: %q, want none (no lane here)", got)
	}
}
