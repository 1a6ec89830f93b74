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

// goBench runs `go test -bench pattern -benchtime benchtime pkg` in its own
// process and returns each result line's metrics (ns/op, allocs/op and the
// benchmark's own) by benchmark name, without the -GOMAXPROCS suffix.
func goBench(e *Env, pkg, pattern, benchtime string, timeout time.Duration) (map[string]map[string]float64, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, goTool(), "test", "-run", "^$", "-bench", pattern, "-benchtime", benchtime, "-count", "1", pkg)
	cmd.Dir = e.Module
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("go test -bench %s %s: %v\n%s", pattern, pkg, err, tail(out.String(), 3000))
	}
	res := map[string]map[string]float64{}
	for _, l := range strings.Split(out.String(), "\n") {
		f := strings.Fields(l)
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		name := f[0]
		if i := strings.LastIndexByte(name, '-'); i > 0 {
			if _, err := strconv.Atoi(name[i+1:]); err == nil {
				name = name[:i]
			}
		}
		m := map[string]float64{}
		for i := 2; i+1 < len(f); i += 2 {
			if v, err := strconv.ParseFloat(f[i], 64); err == nil {
				m[f[i+1]] = v
			}
		}
		res[name] = m
	}
	if len(res) == 0 {
		return nil, fmt.Errorf("go test -bench %s %s: no results in\n%s", pattern, pkg, tail(out.String(), 3000))
	}
	return res, nil
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
	t0 := time.Now()
	all, err := goBench(e, "./inflight", "^BenchmarkAuditAppendWithRetention$", fmt.Sprintf("%dx", calls), 15*time.Minute)
	res.Elapsed = time.Since(t0)
	if err != nil {
		tb.Fatal(err)
	}
	m := all["BenchmarkAuditAppendWithRetention"]
	res.AppendNs, res.ConfirmUs, res.FileBytes = m["ns/op"], m["confirm-µs"], m["file-bytes"]
	res.LinesKept, res.AllocsOp = m["lines-kept"], m["allocs/op"]
	if res.ConfirmUs == 0 {
		tb.Fatalf("no BenchmarkAuditAppendWithRetention confirm-µs in %v", all)
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
