package test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/actbridge/actbridge/ros1/rostest"

	"github.com/actbridge/actbridge/test/bridgetest"
)

// conns remembers every TCP connection a client dials, so a test can cut
// them all: the client's side of a network failure.
type conns struct {
	mu  sync.Mutex
	all []net.Conn
}

func (c *conns) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	conn, err := (&net.Dialer{}).DialContext(ctx, network, addr)
	if err == nil {
		c.mu.Lock()
		c.all = append(c.all, conn)
		c.mu.Unlock()
	}
	return conn, err
}

func (c *conns) cut() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, conn := range c.all {
		_ = conn.Close()
	}
}

func TestACancelledOrDisconnectedStatusWaitLeavesTheMotionRunningAndItsRecordIntact(t *testing.T) {
	eachTransport(t, func(t *testing.T, tr transport) {
		w := newWorld(t, worldOpts{tr: tr})
		watcher := w.mcpClient("")
		cancelCall := func(cancel context.CancelFunc, _ *conns) { cancel() }
		dropConns := func(_ context.CancelFunc, net *conns) { net.cut() }
		for _, c := range []struct {
			name string
			// end ends the wait from the client's side once it is under way.
			end        func(cancel context.CancelFunc, net *conns)
			tool, args string
			reached    func(t *testing.T) // checks the motion went all the way
		}{
			{"the client cancels the call", cancelCall, "arm_move_joints", `{"positions":{"elbow_joint":-0.6},"duration_s":6}`, elbowAt(watcher, -0.6)},
			{"the client's connections drop", dropConns, "arm_move_joints", `{"positions":{"elbow_joint":0.2},"duration_s":6}`, elbowAt(watcher, 0.2)},
			// The deadman of a drive is its session, not its connection.
			{"the connections of a driving client drop", dropConns, "base_drive", `{"linear":0.2,"duration_s":5}`, func(t *testing.T) {
				if x := w.baseX(t, watcher); x < 0.9 {
					t.Fatalf("the base drove to x=%.2f of 1.0: the drive was cut short", x)
				}
			}},
		} {
			t.Run(c.name, func(t *testing.T) {
				net := &conns{}
				hc := &http.Client{Transport: &http.Transport{DialContext: net.dial}}
				cs, err := mcp.NewClient(&mcp.Implementation{Name: "leaver", Version: "1"}, nil).Connect(context.Background(),
					&mcp.StreamableClientTransport{Endpoint: "http://" + w.addr + "/mcp", HTTPClient: hc}, nil)
				if err != nil {
					t.Fatal(err)
				}
				defer cs.Close()
				before := w.goalsReceived()
				var args map[string]any
				_ = json.Unmarshal([]byte(c.args), &args)
				pv := bridgetest.MustCall(t, cs, c.tool, args)
				conf := bridgetest.MustCall(t, cs, "motion_confirm", map[string]any{"preview_id": pv["preview_id"]})
				id := conf["motion_id"].(string)

				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				waited := make(chan error, 1)
				go func() {
					_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "motion_status", Arguments: map[string]any{"motion_id": id, "wait_s": 30, "until": "end"}})
					waited <- err
				}()
				time.Sleep(1500 * time.Millisecond) // the wait is under way, the arm moving
				c.end(cancel, net)
				select {
				case <-waited: // the client's call is over, however it ended
				case <-time.After(10 * time.Second):
					cancel()
					t.Fatal("the ended wait did not return to the client")
				}

				// Seen from another session, the motion runs on: not canceled,
				// not sent again, record unchanged but for its progress.
				mid := bridgetest.MustCall(t, watcher, "motion_status", map[string]any{"motion_id": id})
				if mid["state"] != "active" || mid["created_at"] != conf["created_at"] || mid["tool"] != c.tool {
					t.Fatalf("after the wait ended: %v (confirmed as %v)", mid, conf)
				}
				var end map[string]any
				rostest.Eventually(t, 30*time.Second, "the motion ends on its own", func() error {
					end = bridgetest.MustCall(t, watcher, "motion_status", map[string]any{"motion_id": id, "wait_s": 5, "until": "end"})
					if end["terminal"] != true {
						return errState(end)
					}
					return nil
				})
				if end["state"] != "succeeded" || end["created_at"] != conf["created_at"] || end["progress"] != 1.0 {
					t.Fatalf("the motion did not run to its end: %v", end)
				}
				if n, want := w.goalsReceived()-before, map[bool]int{true: 1}[c.tool != "base_drive"]; n != want {
					t.Fatalf("the sim received %d goals, want %d", n, want) // a drive is cmd_vel, not a goal
				}
				c.reached(t)
			})
		}
	})
}

// elbowAt checks the elbow stands at target.
func elbowAt(cs *mcp.ClientSession, target float64) func(t *testing.T) {
	return func(t *testing.T) {
		js := bridgetest.MustCall(t, cs, "joints_read", map[string]any{"joints": []string{"elbow_joint"}})
		if p := js["joints"].([]any)[0].(map[string]any)["position"].(float64); p < target-0.01 || p > target+0.01 {
			t.Fatalf("elbow at %.3f, want %.3f: the motion was cut short", p, target)
		}
	}
}
