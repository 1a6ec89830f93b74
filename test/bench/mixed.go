package bench

import (
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// MixedClients is test/load.sh's client count: each reads, previews,
// confirms and cancels in the same mix as TestLoadMixedClientsKeepsEveryInvariant.
const MixedClients = 64

// MixedResult is the mixed-load row's raw data.
type MixedResult struct {
	Calls, Failures int64
	Peak            rssUse
	// HeapTop is `go tool pprof -top` of the heap profile taken when the
	// bridge's RSS peaked: what held the memory.
	HeapTop []string
	// HeapInuse is the profile's total in-use bytes, in MiB.
	HeapInuse float64
}

// MeasureMixed runs the mixed load of test/load.sh on a world of its own
// (the bridge with --pprof) for dur, samples the bridge's RSS every 200 ms,
// takes a heap profile each time the RSS reaches a new peak, and reports
// the peak with what the last such profile says holds the heap.
func MeasureMixed(e *Env, dur time.Duration) (Row, MixedResult) {
	tb := e.TB
	var res MixedResult
	w := NewWorld(e, WorldOpts{BridgeArgs: []string{"--pprof"}})
	defer w.Close()
	pid := w.Bridge.Pid()

	var profMu sync.Mutex
	var profile []byte
	stopSampling := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		hc := &http.Client{Timeout: 10 * time.Second}
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			if v, err := rss(pid); err == nil && v.total > res.Peak.total {
				res.Peak = v
				if p, err := heapProfile(hc, w.Addr); err == nil {
					profMu.Lock()
					profile = p
					profMu.Unlock()
				}
			}
			select {
			case <-stopSampling:
				return
			case <-t.C:
			}
		}
	}()

	deadline := time.Now().Add(dur)
	var wg sync.WaitGroup
	for c := range MixedClients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cs, err := w.connect("")
			if err != nil {
				atomic.AddInt64(&res.Failures, 1)
				return
			}
			defer cs.Close()
			rng := rand.New(rand.NewPCG(uint64(c), 7))
			for time.Now().Before(deadline) {
				atomic.AddInt64(&res.Calls, 1)
				if err := mixedStep(sdkCaller{cs}, rng); err != nil {
					atomic.AddInt64(&res.Failures, 1)
				}
			}
		}()
	}
	wg.Wait()
	close(stopSampling)
	<-sampled

	profMu.Lock()
	p := profile
	profMu.Unlock()
	if len(p) == 0 {
		tb.Fatalf("no heap profile taken from the bridge's /debug/pprof/heap")
	}
	res.HeapTop, res.HeapInuse = heapTop(tb, p, 3)
	return Row{
		Key: "rss_mixed",
		What: fmt.Sprintf("bridge RSS peak under test/load.sh's mixed load: %d clients reading, previewing, confirming, cancelling for %s (%d calls)",
			MixedClients, dur.Round(time.Second), res.Calls),
		Result: fmt.Sprintf("peak %.1f MB (anonymous %.1f, file-backed %.1f)%s; heap profile at the peak: %.1f MB in use, most in %s",
			res.Peak.total, res.Peak.anon, res.Peak.file, errNote(int(res.Failures)), res.HeapInuse, strings.Join(res.HeapTop, "; ")),
		Target: "≤ 100 MB under load; what holds it reported",
		Met:    yes(res.Peak.total <= 100),
		Values: map[string]float64{"peak_mb": res.Peak.total, "peak_anon_mb": res.Peak.anon, "heap_inuse_mb": res.HeapInuse, "calls": float64(res.Calls)},
	}, res
}

// mixedStep is one call of the load test's mix: half reads, a fifth
// previews alone, the rest a preview confirmed and, one time in three,
// cancelled. Refusals (busy, stale) are part of the load, not failures.
func mixedStep(c toolCaller, rng *rand.Rand) error {
	switch k := rng.IntN(10); {
	case k < 5:
		_, err := c.callTool([]string{"joints_read", "robot_describe", "motions_list", "topics_list"}[rng.IntN(4)], map[string]any{})
		return transportOnly(err)
	case k < 7:
		var err error
		switch rng.IntN(3) {
		case 0:
			_, err = c.callTool("arm_move_joints", map[string]any{"positions": map[string]any{"wrist_1_joint": rng.Float64() - 0.5}})
		case 1:
			_, err = c.callTool("gripper_move", map[string]any{"position": 0.01 + 0.06*rng.Float64()})
		default:
			_, err = c.callTool("base_navigate", map[string]any{"x": rng.Float64() - 0.5, "y": rng.Float64() - 0.5})
		}
		return transportOnly(err)
	}
	pv, err := c.callTool("gripper_move", map[string]any{"position": 0.01 + 0.06*rng.Float64()})
	if rng.IntN(2) == 0 {
		pv, err = c.callTool("arm_move_joints", map[string]any{"positions": map[string]any{"wrist_2_joint": rng.Float64() - 0.5}})
	}
	if err != nil || pv["preview_id"] == nil {
		return transportOnly(err)
	}
	out, err := c.callTool("motion_confirm", map[string]any{"preview_id": pv["preview_id"]})
	id, _ := out["motion_id"].(string)
	if err != nil || id == "" || rng.IntN(3) != 0 {
		return transportOnly(err)
	}
	_, err = c.callTool("motion_cancel", map[string]any{"motion_id": id})
	return transportOnly(err)
}

// transportOnly keeps the errors that are not a tool's refusal: call
// returns a refusal as an error whose text says the tool failed.
func transportOnly(err error) error {
	if err != nil && strings.Contains(err.Error(), " failed: ") {
		return nil
	}
	return err
}

// heapProfile fetches the bridge's heap profile (gzipped protobuf).
func heapProfile(hc *http.Client, addr string) ([]byte, error) {
	resp, err := hc.Get("http://" + addr + "/debug/pprof/heap")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("heap profile: %s", resp.Status)
	}
	return io.ReadAll(resp.Body)
}

// heapTop reads the n functions holding most in-use heap (cumulative to
// their own allocations: flat) from a profile, and the total in MiB.
func heapTop(tb interface{ Fatalf(string, ...any) }, profile []byte, n int) ([]string, float64) {
	dir, err := os.MkdirTemp("", "actbridge-heap")
	if err != nil {
		tb.Fatalf("%v", err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "heap.pb.gz")
	if err := os.WriteFile(path, profile, 0o600); err != nil {
		tb.Fatalf("%v", err)
	}
	out, err := exec.Command(goTool(), "tool", "pprof", "-top", "-sample_index=inuse_space", fmt.Sprintf("-nodecount=%d", n), path).CombinedOutput()
	if err != nil {
		tb.Fatalf("go tool pprof: %v\n%s", err, out)
	}
	return parseTop(out)
}

// parseTop reads `go tool pprof -top` output: the total from its "of N
// total" line, then "flat flat% sum% cum cum% name" rows.
func parseTop(out []byte) (top []string, totalMB float64) {
	for _, l := range strings.Split(string(out), "\n") {
		f := strings.Fields(l)
		if i := strings.Index(l, " total"); strings.Contains(l, "of ") && i > 0 {
			for j, w := range f {
				if w == "of" && j+1 < len(f) {
					totalMB = sizeMB(f[j+1])
				}
			}
			continue
		}
		if len(f) >= 6 && strings.HasSuffix(f[1], "%") && sizeMB(f[0]) >= 0 && f[0] != "flat" {
			top = append(top, fmt.Sprintf("%s %s (%s)", strings.Join(f[5:], " "), f[0], f[1]))
		}
	}
	return top, totalMB
}

// sizeMB parses pprof's sizes ("12.50MB", "512kB", "0") as MiB; -1 if it
// is not one.
func sizeMB(s string) float64 {
	var v float64
	for _, u := range []struct {
		suffix string
		scale  float64
	}{{"GB", 1024}, {"MB", 1}, {"kB", 1.0 / 1024}, {"B", 1.0 / (1 << 20)}} {
		if num, ok := strings.CutSuffix(s, u.suffix); ok {
			if _, err := fmt.Sscanf(num, "%g", &v); err != nil {
				return -1
			}
			return v * u.scale
		}
	}
	if s == "0" {
		return 0
	}
	return -1
}

// pacedResult is what a paced load measured.
type pacedResult struct {
	loadResult
	bridgeCPUPct float64 // bridge CPU over the window, percent of one core
}

// MeasurePacedReads runs reads at a planner's pace: clients MCP sessions
// each calling ReadTool rate times a second for dur, and reports the
// latency and the bridge's CPU over the window.
func MeasurePacedReads(w *World, clients int, rate float64, dur time.Duration) (Row, pacedResult) {
	tb := w.env.TB
	ss := w.sessions(clients)
	defer closeSessions(ss)
	one := func(i int) error {
		_, err := call(ss[i], ReadTool, map[string]any{})
		return err
	}
	runLoad(clients, min(time.Second, dur/4), one) // warm-up
	var res pacedResult
	c0, err0 := cpuSeconds(w.Bridge.Pid())
	res.loadResult = withCPU(w.Bridge.Pid(), func() loadResult { return runLoops(clients, dur, time.Duration(float64(time.Second)/rate), one) })
	c1, err1 := cpuSeconds(w.Bridge.Pid())
	if err0 != nil || err1 != nil || res.calls == 0 {
		tb.Fatalf("paced reads: %d calls, %d errors, cpu %v %v", res.calls, res.errors, err0, err1)
	}
	res.bridgeCPUPct = 100 * (c1 - c0) / res.elapsed.Seconds()
	return Row{
		Key: "reads_paced",
		What: fmt.Sprintf("%s at a planner's pace: %d clients × %.0f calls/s for %s (Go SDK client, streamable HTTP MCP)",
			ReadTool, clients, rate, dur.Round(time.Second)),
		Result: fmt.Sprintf("p50 %s · p99 %s · %.0f calls/s%s; bridge CPU %.1f %% of a core (%s per call)",
			ms(res.lat.P50()), ms(res.lat.P99()), res.perSecond(), errNote(res.errors), res.bridgeCPUPct, ms(res.serverCPU)),
		Target: "p99 ≤ 5 ms; bridge CPU reported",
		Met:    yes(res.lat.P99() <= 5*time.Millisecond),
		Values: map[string]float64{"p50_ms": msf(res.lat.P50()), "p99_ms": msf(res.lat.P99()), "calls_per_s": res.perSecond(),
			"bridge_cpu_pct": res.bridgeCPUPct, "bridge_cpu_us": float64(res.serverCPU) / 1e3},
	}, res
}
