package bench

import (
	"context"
	"fmt"
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
	floorHammer      = "hammer" // a floor-process mode: MCP clients calling ReadTool
	hammerAddrEnv    = "ACTBRIDGE_BENCH_HAMMER_ADDR"
	hammerClientsEnv = "ACTBRIDGE_BENCH_HAMMER_CLIENTS"
)

// hammer is a running load process.
type hammer struct {
	p       *proc
	started time.Time
}

// startHammer starts n planner sessions calling ReadTool in closed loops
// in a process at nice 19, and returns once every session is connected.
func startHammer(w *World, n int) *hammer {
	e := w.env
	e.TB.Helper()
	p := startProc(e.TB, "/usr/bin/nice", "hammer", []string{floorEnv + "=" + floorHammer,
		hammerAddrEnv + "=" + w.Addr, hammerClientsEnv + "=" + strconv.Itoa(n)},
		"-n", "19", e.Self, "-test.run=^$")
	p.WaitOutput(e.TB, "hammering", 60*time.Second)
	return &hammer{p: p, started: time.Now()}
}

// stop ends the load and returns its calls and errors.
func (h *hammer) stop() (calls, errs int64, elapsed time.Duration) {
	elapsed = time.Since(h.started)
	h.p.Stop(syscall.SIGTERM)
	out := h.p.Output()
	if i := strings.LastIndex(out, "calls "); i >= 0 {
		_, _ = fmt.Sscanf(out[i:], "calls %d errors %d", &calls, &errs)
	}
	return calls, errs, elapsed
}

// runHammer is the load process: it prints "hammering" once every session
// is connected and "calls N errors M" when ctx ends.
func runHammer(ctx context.Context) error {
	addr := os.Getenv(hammerAddrEnv)
	n, err := strconv.Atoi(os.Getenv(hammerClientsEnv))
	if addr == "" || err != nil || n < 1 {
		return fmt.Errorf("hammer: %s and %s (a count) are required", hammerAddrEnv, hammerClientsEnv)
	}
	hc := &http.Client{Transport: clientTransport()}
	c := mcp.NewClient(&mcp.Implementation{Name: "actbridge-bench-hammer", Version: "1"}, nil)
	ss := make([]*mcp.ClientSession, n)
	for i := range ss {
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		ss[i], err = c.Connect(cctx, &mcp.StreamableClientTransport{Endpoint: "http://" + addr + "/mcp", HTTPClient: hc}, nil)
		cancel()
		if err != nil {
			return fmt.Errorf("hammer: session %d: %w", i, err)
		}
	}
	var calls, errs atomic.Int64
	var wg sync.WaitGroup
	for _, s := range ss {
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
	fmt.Printf("calls %d errors %d\n", calls.Load(), errs.Load())
	return nil
}
