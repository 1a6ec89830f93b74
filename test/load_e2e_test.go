package test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/actbridge/actbridge/ros1/rostest"

	"github.com/actbridge/actbridge/test/bridgetest"
)

// rssKB reads a process's resident set size.
func rssKB(t *testing.T, pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			n, _ := strconv.Atoi(strings.Fields(v)[0])
			return n
		}
	}
	return 0
}

// TestLoadMixedClientsKeepsEveryInvariant runs 64 MCP clients mixing reads,
// previews, confirms and cancels on every actuator for a bounded time
// (ACTBRIDGE_LOAD_SECONDS, default 15; test/load.sh runs 120): no deadlock,
// no goal twice, no motion preempted by another motion on its actuator,
// memory flat.
func TestLoadMixedClientsKeepsEveryInvariant(t *testing.T) {
	eachTransport(t, func(t *testing.T, tr transport) {
		secs := 15
		if v, err := strconv.Atoi(os.Getenv("ACTBRIDGE_LOAD_SECONDS")); err == nil && v > 0 {
			secs = v
		}
		w := newWorld(t, worldOpts{tr: tr})
		pid := w.bridge.Pid()
		warm := w.mcpClient("")
		for i := 0; i < 50; i++ {
			bridgetest.MustCall(t, warm, "joints_read", map[string]any{})
		}
		rss0 := rssKB(t, pid)
		var (
			mu        sync.Mutex
			cancelled = map[string]bool{}
			confirmed = map[string]bool{}
			calls     atomic.Int64
			failures  atomic.Int64
		)
		deadline := time.Now().Add(time.Duration(secs) * time.Second)
		var wg sync.WaitGroup
		for c := 0; c < 64; c++ {
			wg.Add(1)
			go func(c int) {
				defer wg.Done()
				cs := w.mcpClient("")
				rng := rand.New(rand.NewPCG(uint64(c), 7))
				for time.Now().Before(deadline) {
					var tool string
					var args map[string]any
					switch k := rng.IntN(10); {
					case k < 5:
						tool, args = []string{"joints_read", "robot_describe", "motions_list", "topics_list"}[rng.IntN(4)], map[string]any{}
					case k < 7:
						switch rng.IntN(3) {
						case 0:
							tool, args = "arm_move_joints", map[string]any{"positions": map[string]any{"wrist_1_joint": rng.Float64() - 0.5}}
						case 1:
							tool, args = "gripper_move", map[string]any{"position": 0.01 + 0.06*rng.Float64()}
						default:
							tool, args = "base_navigate", map[string]any{"x": rng.Float64() - 0.5, "y": rng.Float64() - 0.5}
						}
					default:
						tool = "preview+confirm"
					}
					calls.Add(1)
					if tool != "preview+confirm" {
						if _, err := callQuiet(cs, tool, args); err != nil {
							failures.Add(1)
						}
						continue
					}
					pv, err := callQuiet(cs, "gripper_move", map[string]any{"position": 0.01 + 0.06*rng.Float64()})
					if rng.IntN(2) == 0 {
						pv, err = callQuiet(cs, "arm_move_joints", map[string]any{"positions": map[string]any{"wrist_2_joint": rng.Float64() - 0.5}})
					}
					if err != nil || pv["preview_id"] == nil {
						continue
					}
					out, err := callQuiet(cs, "motion_confirm", map[string]any{"preview_id": pv["preview_id"]})
					if err != nil {
						failures.Add(1)
						continue
					}
					id, _ := out["motion_id"].(string)
					if id == "" {
						continue // refused (busy, stale): allowed under load
					}
					mu.Lock()
					confirmed[id] = true
					mu.Unlock()
					if rng.IntN(3) == 0 {
						mu.Lock()
						cancelled[id] = true
						mu.Unlock()
						if _, err := callQuiet(cs, "motion_cancel", map[string]any{"motion_id": id}); err != nil {
							failures.Add(1)
						}
					}
				}
			}(c)
		}
		done := make(chan struct{})
		go func() { wg.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(time.Duration(secs)*time.Second + 90*time.Second):
			t.Fatal("clients did not finish: deadlock or a hung call")
		}
		if f := failures.Load(); f > 0 {
			t.Fatalf("%d of %d calls failed at the transport level", f, calls.Load())
		}
		// Let every motion end, then check the invariants.
		cs := w.mcpClient("")
		for id := range confirmed {
			rostest.Eventually(t, 60*time.Second, "motion ends", func() error {
				st := bridgetest.MustCall(t, cs, "motion_status", map[string]any{"motion_id": id, "wait_s": 3})
				if st["terminal"] != true && st["state"] != "unknown" {
					return fmt.Errorf("motion %s (cancelled %v) state %v; on wire %d times; sim says %s", id, cancelled[id], st["state"], w.idsOnWire()[id], w.simGoalState(id))
				}
				if st["state"] == "preempted" && !cancelled[id] {
					t.Errorf("motion %s was preempted without a cancel: two goals overlapped on one actuator", id)
				}
				return nil
			})
		}
		for id, n := range w.idsOnWire() {
			if n > 1 {
				t.Fatalf("goal %s reached the sim %d times", id, n)
			}
		}
		// Every call is audited, even under load (audit writes are batched).
		audited := 0
		rostest.Eventually(t, 30*time.Second, "audit catches up", func() error {
			audited = 0
			cursor := ""
			for {
				args := map[string]any{"limit": 100}
				if cursor != "" {
					args["cursor"] = cursor
				}
				a := bridgetest.MustCall(t, cs, "audit_list", args)
				audited += len(a["items"].([]any))
				cursor, _ = a["next_cursor"].(string)
				if cursor == "" {
					break
				}
			}
			if int64(audited) < calls.Load() {
				return fmt.Errorf("%d audit lines for %d client calls", audited, calls.Load())
			}
			return nil
		})
		rss1 := rssKB(t, pid)
		t.Logf("%d calls from 64 clients in %ds, %d motions confirmed, %d cancelled; bridge RSS %d → %d KB",
			calls.Load(), secs, len(confirmed), len(cancelled), rss0, rss1)
		if rss1 > 2*rss0+100*1024 {
			t.Fatalf("memory grew from %d to %d KB", rss0, rss1)
		}
	})
}
