package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ReadTool is the read tool the load calls: the latest joint states, what a
// planner reads before and after every motion.
const ReadTool = "joints_read"

// loadResult is what a closed-loop load measured.
type loadResult struct {
	calls   int
	errors  int
	elapsed time.Duration
	lat     Sample
	// CPU time per call of the server and of the client (the bench
	// process), from /proc/<pid>/stat.
	serverCPU, clientCPU time.Duration
}

func (l loadResult) perSecond() float64 { return float64(l.calls) / l.elapsed.Seconds() }

// runLoad runs `clients` closed loops of do until dur has passed (each loop
// finishes its call in flight) and collects every call's latency.
func runLoad(clients int, dur time.Duration, do func(client int) error) loadResult {
	return runLoops(clients, dur, 0, do)
}

// runLoops runs `clients` loops of do until dur has passed. With a period,
// each loop starts a call every period (one that overruns its slot is
// followed at once; the clients are spread over one period, as independent
// planners are); without, each calls again as soon as a call returns.
func runLoops(clients int, dur, period time.Duration, do func(client int) error) loadResult {
	var wg sync.WaitGroup
	lats := make([]Sample, clients)
	var errs atomic.Int64
	start := time.Now()
	deadline := start.Add(dur)
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			next := start.Add(period * time.Duration(c) / time.Duration(clients))
			for time.Now().Before(deadline) && next.Before(deadline) {
				time.Sleep(time.Until(next))
				next = next.Add(period)
				t0 := time.Now()
				if err := do(c); err != nil {
					errs.Add(1)
					if period == 0 {
						time.Sleep(time.Millisecond)
					}
					continue
				}
				lats[c] = append(lats[c], time.Since(t0))
			}
		}()
	}
	wg.Wait()
	out := loadResult{elapsed: time.Since(start), errors: int(errs.Load())}
	for _, l := range lats {
		out.lat = append(out.lat, l...)
	}
	out.calls = len(out.lat)
	return out
}

// sampleRSS records the peak VmRSS of pid (with its split at that
// moment) until stop is called.
func sampleRSS(pid int) (stop func() rssUse) {
	var peak rssUse
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			if v, err := rss(pid); err == nil && v.total > peak.total {
				peak = v
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() rssUse {
		close(done)
		<-finished
		return peak
	}
}

// sessions opens n planner sessions.
func (w *World) sessions(n int) []*mcp.ClientSession {
	tb := w.env.TB
	out := make([]*mcp.ClientSession, n)
	for i := range out {
		cs, err := w.connect("")
		if err != nil {
			tb.Fatalf("session %d: %v", i, err)
		}
		out[i] = cs
	}
	return out
}

func closeSessions(ss []*mcp.ClientSession) {
	var wg sync.WaitGroup
	for _, s := range ss {
		wg.Add(1)
		go func() { defer wg.Done(); _ = s.Close() }()
	}
	wg.Wait()
}

// ReadsResult is the read rows' raw data, by client count.
type ReadsResult struct {
	// Bridge is measured with the Go SDK's client, Lean with leanClient.
	Bridge, Lean, Floor map[int]loadResult
	// RSS in MiB: the bridge idle (before any load) and its peak under the
	// largest load; the same for the bare HTTP server.
	IdleRSS, LoadRSS, FloorIdleRSS, FloorLoadRSS float64
	// LoadAnon and LoadFile split LoadRSS: anonymous memory (heap, stacks)
	// and file-backed pages (the binary, the store's memory map).
	LoadAnon, LoadFile float64
}

// MeasureIdleRSS reads the bridge's VmRSS after a short settle and a few
// reads: call it on a fresh world, before any load.
func MeasureIdleRSS(w *World) float64 {
	cs := w.Client("")
	for range 5 {
		if _, err := call(cs, ReadTool, map[string]any{}); err != nil {
			w.env.TB.Fatal(err)
		}
	}
	time.Sleep(2 * time.Second)
	v, err := rssMB(w.Bridge.Pid())
	if err != nil {
		w.env.TB.Fatal(err)
	}
	return v
}

// MeasureReads runs closed-loop read tool calls over streamable HTTP MCP,
// one session per client, for each client count, and the same load against
// a bare net/http server in its own process (the floor). The bridge's peak
// RSS is sampled during the loads.
func MeasureReads(w *World, clients []int, dur time.Duration, idleRSS float64) ([]Row, ReadsResult) {
	e := w.env
	tb := e.TB
	res := ReadsResult{Bridge: map[int]loadResult{}, Lean: map[int]loadResult{}, Floor: map[int]loadResult{}, IdleRSS: idleRSS}

	fp, faddr := floorHTTPServer(e)
	defer fp.Stop(syscall.SIGTERM)
	time.Sleep(500 * time.Millisecond)
	res.FloorIdleRSS, _ = rssMB(fp.Pid())
	hc := &http.Client{Transport: clientTransport(), Timeout: 30 * time.Second}
	body := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"joints_read","arguments":{}}}`)
	post := func(int) error {
		resp, err := hc.Post("http://"+faddr+"/", "application/json", bytes.NewReader(body))
		if err != nil {
			return err
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		return resp.Body.Close()
	}

	stopRSS := sampleRSS(w.Bridge.Pid())
	for _, c := range clients {
		ss := w.sessions(c)
		callOne := func(i int) error {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			r, err := ss[i].CallTool(ctx, &mcp.CallToolParams{Name: ReadTool, Arguments: map[string]any{}})
			if err == nil && r.IsError {
				err = fmt.Errorf("%s: tool error", ReadTool)
			}
			return err
		}
		runLoad(c, min(time.Second, dur/4), callOne) // warm-up
		res.Bridge[c] = withCPU(w.Bridge.Pid(), func() loadResult { return runLoad(c, dur, callOne) })
		closeSessions(ss)
		e.logf("reads: %d clients: %.0f calls/s, p99 %s, %d errors", c, res.Bridge[c].perSecond(), ms(res.Bridge[c].lat.P99()), res.Bridge[c].errors)

		lean := make([]*leanClient, c)
		for i := range lean {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			lc, err := dialLean(ctx, hc, "http://"+w.Addr+"/mcp")
			cancel()
			if err != nil {
				tb.Fatalf("lean client %d: %v", i, err)
			}
			lean[i] = lc
		}
		leanOne := func(i int) error {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			_, err := lean[i].call(ctx, ReadTool, "{}")
			return err
		}
		runLoad(c, min(time.Second, dur/4), leanOne) // warm-up
		res.Lean[c] = withCPU(w.Bridge.Pid(), func() loadResult { return runLoad(c, dur, leanOne) })
		for _, lc := range lean {
			lc.close()
		}
		e.logf("reads (lean client): %d clients: %.0f calls/s, p99 %s, %d errors", c, res.Lean[c].perSecond(), ms(res.Lean[c].lat.P99()), res.Lean[c].errors)

		stopFloorRSS := sampleRSS(fp.Pid())
		runLoad(c, min(time.Second, dur/4), post)
		res.Floor[c] = withCPU(fp.Pid(), func() loadResult { return runLoad(c, dur/2, post) })
		res.FloorLoadRSS = max(res.FloorLoadRSS, stopFloorRSS().total)
	}
	peak := stopRSS()
	res.LoadRSS, res.LoadAnon, res.LoadFile = peak.total, peak.anon, peak.file
	hc.CloseIdleConnections()

	var rows []Row
	for _, client := range []struct {
		name, key string
		got       map[int]loadResult
	}{{"Go SDK client", "reads", res.Bridge}, {leanName, "reads_lean", res.Lean}} {
		for _, c := range clients {
			b, f := client.got[c], res.Floor[c]
			if b.calls == 0 {
				tb.Fatalf("reads with %d clients (%s): no call succeeded (%d errors)", c, client.name, b.errors)
			}
			tput := b.perSecond()
			rows = append(rows, Row{
				Key:    fmt.Sprintf("%s/%d", client.key, c),
				What:   fmt.Sprintf("%s over streamable HTTP MCP, %d client(s), %s", ReadTool, c, client.name),
				Result: fmt.Sprintf("%.0f calls/s · p50 %s · p99 %s%s; CPU per call: bridge %s, client %s", tput, ms(b.lat.P50()), ms(b.lat.P99()), errNote(b.errors), ms(b.serverCPU), ms(b.clientCPU)),
				Floor:  fmt.Sprintf("bare net/http POST, same clients: %.0f calls/s · p99 %s; server CPU %s per call", f.perSecond(), ms(f.lat.P99()), ms(f.serverCPU)),
				Ratio:  fmt.Sprintf("throughput %.2f× · p99 %s", tput/f.perSecond(), fx(ratio(b.lat.P99(), f.lat.P99()))),
				Target: "report (throughput is no target; the paced row holds the latency target)",
				Met:    "–",
				Values: map[string]float64{"calls_per_s": tput, "p50_ms": msf(b.lat.P50()), "p99_ms": msf(b.lat.P99()),
					"floor_calls_per_s": f.perSecond(), "floor_p99_ms": msf(f.lat.P99()),
					"bridge_cpu_us": float64(b.serverCPU) / 1e3, "client_cpu_us": float64(b.clientCPU) / 1e3},
			})
		}
	}
	rows = append(rows, Row{
		Key:    "rss",
		What:   fmt.Sprintf("bridge RSS (VmRSS) idle / peak under the read loads (up to %d clients)", clients[len(clients)-1]),
		Result: fmt.Sprintf("idle %.1f MB · load %.1f MB (anonymous %.1f, file-backed %.1f: the binary and the store's memory map)", res.IdleRSS, res.LoadRSS, res.LoadAnon, res.LoadFile),
		Floor:  fmt.Sprintf("bare net/http server: idle %.1f MB · load %.1f MB", res.FloorIdleRSS, res.FloorLoadRSS),
		Ratio:  fmt.Sprintf("idle %.2f× · load %.2f×", res.IdleRSS/res.FloorIdleRSS, res.LoadRSS/res.FloorLoadRSS),
		Target: "≤ 40 MB idle, ≤ 100 MB under load",
		Met:    fmt.Sprintf("%s · %s", yes(res.IdleRSS <= 40), yes(res.LoadRSS <= 100)),
		Values: map[string]float64{"idle_mb": res.IdleRSS, "load_mb": res.LoadRSS, "load_anon_mb": res.LoadAnon, "load_file_mb": res.LoadFile,
			"floor_idle_mb": res.FloorIdleRSS, "floor_load_mb": res.FloorLoadRSS},
	})
	return rows, res
}

// withCPU runs a load and adds the server's and the bench's CPU per call.
func withCPU(server int, load func() loadResult) loadResult {
	self := os.Getpid()
	s0, err1 := cpuSeconds(server)
	c0, err2 := cpuSeconds(self)
	r := load()
	s1, err3 := cpuSeconds(server)
	c1, err4 := cpuSeconds(self)
	if err1 != nil || err2 != nil || err3 != nil || err4 != nil || r.calls == 0 {
		return r
	}
	per := func(d float64) time.Duration { return time.Duration(d / float64(r.calls) * float64(time.Second)) }
	r.serverCPU, r.clientCPU = per(s1-s0), per(c1-c0)
	return r
}

func errNote(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d errors)", n)
}
