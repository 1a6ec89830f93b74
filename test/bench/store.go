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
	ConfirmUs  float64 // a confirm's commit (one bbolt commit, fsync) after all the calls
	FileBytes  float64
	LinesKept  float64
	AllocsOp   float64
	Elapsed    time.Duration
	FloorFsync time.Duration // mean of 50 bare commits
}

func goTool() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return filepath.Join(runtime.GOROOT(), "bin", "go")
}

// MeasureStore runs inflight's BenchmarkAuditAppendWithRetention (b.N
// audited calls with fsync, 10,000 per simulated hour, a 24 h retention
// sweep every hour; then 50 confirms, each one bbolt commit) for
// `calls` calls, in its own process, and reads its metrics; the floor is 50
// bare bbolt commits with fsync on a fresh file, right after it, on the
// same file system.
func MeasureStore(e *Env, calls int) (Row, StoreResult) {
	tb := e.TB
	res := StoreResult{Calls: calls}
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
			case "confirm-µs":
				res.ConfirmUs = v
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
	if !found || res.ConfirmUs == 0 {
		tb.Fatalf("no BenchmarkAuditAppendWithRetention result in:\n%s", tail(out.String(), 3000))
	}
	floor := newCommitFloor(tb)
	var commits Sample
	for range 50 {
		t0 := time.Now()
		if err := floor.commit(); err != nil {
			tb.Fatal(err)
		}
		commits = append(commits, time.Since(t0))
	}
	res.FloorFsync = mean(commits) // the confirm figure is a mean too
	confirm := time.Duration(res.ConfirmUs * float64(time.Microsecond))
	r := ratio(confirm, res.FloorFsync)
	return Row{
		Key:  "store",
		What: fmt.Sprintf("store after %s audited calls with retention on (inflight BenchmarkAuditAppendWithRetention, 24 h window, 10k calls/h)", groupDigits(calls)),
		Result: fmt.Sprintf("confirm's commit (one bbolt commit, fsync) %s (mean of 50) · file %.1f MB, %s lines kept · append %.0f µs/call amortised (32 writers, %.0f allocs)",
			ms(confirm), res.FileBytes/(1<<20), groupDigits(int(res.LinesKept)), res.AppendNs/1000, res.AllocsOp),
		Floor:  fmt.Sprintf("bare bbolt commit+fsync of 1 KB on a fresh file, right after: mean of 50 %s (p50 %s)", ms(res.FloorFsync), ms(commits.P50())),
		Ratio:  fx(r),
		Target: "report (no number in the issue)",
		Met:    "–",
		Values: map[string]float64{"confirm_ms": msf(confirm), "file_mb": res.FileBytes / (1 << 20), "append_us": res.AppendNs / 1000, "lines_kept": res.LinesKept},
	}, res
}

func mean(s Sample) time.Duration {
	if len(s) == 0 {
		return 0
	}
	var sum time.Duration
	for _, d := range s {
		sum += d
	}
	return sum / time.Duration(len(s))
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
