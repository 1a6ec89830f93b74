package bench

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// StoreResult is the store row's raw data, parsed from inflight's
// BenchmarkAuditAppendWithRetention.
type StoreResult struct {
	Calls      int
	AppendNs   float64 // per audited call, amortised over concurrent appenders
	ClaimUs    float64 // a motion claim (fsynced commit) after all the calls
	FileBytes  float64
	LinesKept  float64
	AllocsOp   float64
	Elapsed    time.Duration
	FloorFsync time.Duration
}

func goTool() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return filepath.Join(runtime.GOROOT(), "bin", "go")
}

// MeasureStore runs inflight's BenchmarkAuditAppendWithRetention (b.N
// audited calls with fsync, 10,000 per simulated hour, a 24 h retention
// sweep every hour; then 50 claims) for `calls` calls, in its own process,
// and reads its metrics. floorFsync is the bare bbolt commit of the run.
func MeasureStore(e *Env, calls int, floorFsync time.Duration) (Row, StoreResult) {
	tb := e.TB
	res := StoreResult{Calls: calls, FloorFsync: floorFsync}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, goTool(), "test", "-run", "^$", "-bench", "^BenchmarkAuditAppendWithRetention$",
		"-benchtime", fmt.Sprintf("%dx", calls), "-count", "1", "./inflight")
	cmd.Dir = e.Module
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	t0 := time.Now()
	err := cmd.Run()
	res.Elapsed = time.Since(t0)
	if err != nil {
		tb.Fatalf("go test -bench inflight: %v\n%s", err, tail(out.String(), 3000))
	}
	found := false
	for _, l := range strings.Split(out.String(), "\n") {
		if !strings.HasPrefix(l, "BenchmarkAuditAppendWithRetention") {
			continue
		}
		f := strings.Fields(l)
		for i := 2; i+1 < len(f); i += 2 {
			v, perr := strconv.ParseFloat(f[i], 64)
			if perr != nil {
				continue
			}
			switch f[i+1] {
			case "ns/op":
				res.AppendNs = v
			case "claim-µs":
				res.ClaimUs = v
			case "file-bytes":
				res.FileBytes = v
			case "lines-kept":
				res.LinesKept = v
			case "allocs/op":
				res.AllocsOp = v
			}
		}
		found = true
	}
	if !found || res.ClaimUs == 0 {
		tb.Fatalf("no BenchmarkAuditAppendWithRetention result in:\n%s", tail(out.String(), 3000))
	}
	claim := time.Duration(res.ClaimUs * float64(time.Microsecond))
	r := ratio(claim, floorFsync)
	return Row{
		Key:  "store",
		What: fmt.Sprintf("store after %s audited calls with retention on (inflight BenchmarkAuditAppendWithRetention, 24 h window, 10k calls/h)", groupDigits(calls)),
		Result: fmt.Sprintf("motion claim commit %s (mean of 50) · file %.1f MB, %s lines kept · append %.0f µs/call amortised (32 writers, %.0f allocs)",
			ms(claim), res.FileBytes/(1<<20), groupDigits(int(res.LinesKept)), res.AppendNs/1000, res.AllocsOp),
		Floor:  fmt.Sprintf("bare bbolt commit+fsync on a fresh file: p50 %s", ms(floorFsync)),
		Ratio:  fx(r),
		Target: "report (no number in the issue)",
		Met:    "–",
		Values: map[string]float64{"claim_ms": msf(claim), "file_mb": res.FileBytes / (1 << 20), "append_us": res.AppendNs / 1000, "lines_kept": res.LinesKept},
	}, res
}

func groupDigits(n int) string {
	s := strconv.Itoa(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
