package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The stop row's load runs in its own process at the lowest CPU priority
// (nice 19): it stands for planners on other machines. In the bench's own
// process its 50 clients starved the bench's cancel observer as much as
// the bridge (a bare goroslib publish took 46 ms at p99 under that load),
// so the row measured the bench, not the bridge.
const (
	floorHammer       = "hammer" // a floor-process mode: MCP clients calling ReadTool
	hammerAddrEnv     = "ACTBRIDGE_BENCH_HAMMER_ADDR"
	hammerClientsEnv  = "ACTBRIDGE_BENCH_HAMMER_CLIENTS"
	hammerPlannersEnv = "ACTBRIDGE_BENCH_HAMMER_PLANNERS"
	hammerMixedEnv    = "ACTBRIDGE_BENCH_HAMMER_MIXED"
)

// hammer is a running load process.
type hammer struct {
	p       *proc
	started time.Time
}

// hammerCounts is what a load process did.
type hammerCounts struct {
	Calls, Errors   int64 // reads, and reads that failed
	PlannerCalls    int64 // the planners' calls, refusals included
	PlannerFailures int64 // the planners' calls (and mix steps) that failed other than by a tool's refusal
	MixSteps        int64 // test/load.sh's mix: steps (one to three calls each) of the mixed sessions
	Elapsed         time.Duration
}

// startHammer starts o.Hammer planner sessions calling ReadTool in closed
// loops, o.Planners more previewing, confirming and cancelling arm motions
// in closed loops (plannerStep) and o.Mixed more running test/load.sh's
// mix (mixedStep), in a process at nice 19, and returns once every
// session is connected.
func startHammer(w *World, o StopOpts) *hammer {
	e := w.env
	e.TB.Helper()
	p := startProc(e.TB, "/usr/bin/nice", "hammer", []string{floorEnv + "=" + floorHammer,
		hammerAddrEnv + "=" + w.Addr, hammerClientsEnv + "=" + strconv.Itoa(o.Hammer), hammerPlannersEnv + "=" + strconv.Itoa(o.Planners),
		hammerMixedEnv + "=" + strconv.Itoa(o.Mixed)},
		"-n", "19", e.Self, "-test.run=^$")
	p.WaitOutput(e.TB, "hammering", 60*time.Second)
	return &hammer{p: p, started: time.Now()}
}

// stop ends the load and returns what it did.
func (h *hammer) stop() hammerCounts {
	c := hammerCounts{Elapsed: time.Since(h.started)}
	h.p.Stop(syscall.SIGTERM)
	out := h.p.Output()
	if i := strings.LastIndex(out, "\ncalls "); i >= 0 {
		_, _ = fmt.Sscanf(out[i+1:], "calls %d errors %d planner_calls %d planner_failures %d mix_steps %d", &c.Calls, &c.Errors, &c.PlannerCalls, &c.PlannerFailures, &c.MixSteps)
	}
	return c
}

// plannerStep is one planner's round: preview a small arm motion, confirm
// it, cancel it. Refusals (estop_latched while the row's stop holds,
// busy, stale) are part of the load; it returns the calls it made and
// the first error that is not a tool's refusal.
func plannerStep(c toolCaller, rng *rand.Rand) (int64, error) {
	pv, err := c.callTool("arm_move_joints", map[string]any{"positions": map[string]any{"wrist_2_joint": 0.4*rng.Float64() - 0.2}, "duration_s": 0.5})
	if err != nil || pv["preview_id"] == nil {
		return 1, transportOnly(err)
	}
	out, err := c.callTool("motion_confirm", map[string]any{"preview_id": pv["preview_id"]})
	id, _ := out["motion_id"].(string)
	if err != nil || id == "" {
		return 2, transportOnly(err)
	}
	_, err = c.callTool("motion_cancel", map[string]any{"motion_id": id})
	return 3, transportOnly(err)
}

// runHammer is the load process: it prints "hammering" once every session
// is connected and "calls N errors M planner_calls P planner_failures F"
// when ctx ends.
func runHammer(ctx context.Context) error {
	addr := os.Getenv(hammerAddrEnv)
	n, err := strconv.Atoi(os.Getenv(hammerClientsEnv))
	planners, _ := strconv.Atoi(os.Getenv(hammerPlannersEnv))
	mixed, _ := strconv.Atoi(os.Getenv(hammerMixedEnv))
	if addr == "" || err != nil || n < 0 || n+max(planners, 0)+max(mixed, 0) < 1 {
		return fmt.Errorf("hammer: %s and %s (a count; with the planners and the mix, one session at least) are required", hammerAddrEnv, hammerClientsEnv)
	}
	planners, mixed = max(planners, 0), max(mixed, 0)
	hc := &http.Client{Transport: clientTransport()}
	c := mcp.NewClient(&mcp.Implementation{Name: "actbridge-bench-hammer", Version: "1"}, nil)
	ss := make([]*mcp.ClientSession, n+planners+mixed)
	for i := range ss {
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		ss[i], err = c.Connect(cctx, &mcp.StreamableClientTransport{Endpoint: "http://" + addr + "/mcp", HTTPClient: hc}, nil)
		cancel()
		if err != nil {
			return fmt.Errorf("hammer: session %d: %w", i, err)
		}
	}
	var calls, errs, pcalls, pfails, msteps atomic.Int64
	var wg sync.WaitGroup
	for i, s := range ss[n:] {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(i), 34))
			for ctx.Err() == nil {
				var err error
				if i < planners {
					var k int64
					k, err = plannerStep(sdkCaller{s}, rng)
					pcalls.Add(k)
				} else {
					err = mixedStep(sdkCaller{s}, rng)
					msteps.Add(1)
				}
				if err != nil && ctx.Err() == nil {
					pfails.Add(1)
					time.Sleep(time.Millisecond)
				}
			}
		})
	}
	for _, s := range ss[:n] {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
				res, err := s.CallTool(cctx, &mcp.CallToolParams{Name: ReadTool, Arguments: map[string]any{}})
				cancel()
				switch {
				case ctx.Err() != nil:
				case err != nil || res.IsError:
					errs.Add(1)
					time.Sleep(time.Millisecond)
				default:
					calls.Add(1)
				}
			}
		}()
	}
	fmt.Println("hammering")
	wg.Wait()
	closeSessions(ss)
	fmt.Printf("calls %d errors %d planner_calls %d planner_failures %d mix_steps %d\n", calls.Load(), errs.Load(), pcalls.Load(), pfails.Load(), msteps.Load())
	return nil
}
