package bench

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Sample is a set of latencies.
type Sample []time.Duration

// Quantile is the nearest-rank quantile q (0..1); zero for an empty sample.
func (s Sample) Quantile(q float64) time.Duration {
	if len(s) == 0 {
		return 0
	}
	c := slices.Clone(s)
	slices.Sort(c)
	i := int(math.Ceil(q*float64(len(c)))) - 1
	return c[min(max(i, 0), len(c)-1)]
}

// P50 is the median.
func (s Sample) P50() time.Duration { return s.Quantile(0.5) }

// P99 is the 99th percentile.
func (s Sample) P99() time.Duration { return s.Quantile(0.99) }

// ms renders a duration in milliseconds with three significant digits.
func ms(d time.Duration) string {
	v := float64(d) / float64(time.Millisecond)
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f ms", v)
	case v >= 10:
		return fmt.Sprintf("%.1f ms", v)
	case v >= 1:
		return fmt.Sprintf("%.2f ms", v)
	}
	return fmt.Sprintf("%.0f µs", float64(d)/float64(time.Microsecond))
}

func msf(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func ratio(a, b time.Duration) float64 {
	if b <= 0 {
		return math.NaN()
	}
	return float64(a) / float64(b)
}

func fx(r float64) string {
	if math.IsNaN(r) || math.IsInf(r, 0) {
		return "–"
	}
	return fmt.Sprintf("%.2f×", r)
}

func yes(ok bool) string {
	if ok {
		return "yes"
	}
	return "**no**"
}

// clkTck is USER_HZ, the unit of /proc/<pid>/stat times; 100 on every
// Linux architecture Go supports.
const clkTck = 100

// cpuSeconds is a process's user+system CPU time from /proc/<pid>/stat.
func cpuSeconds(pid int) (float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name may hold spaces; fields resume after the last ')'.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: no ')'", pid)
	}
	f := strings.Fields(s[i+1:])
	// f[0] is field 3 (state); utime and stime are fields 14 and 15.
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f))
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc/%d/stat: utime %q stime %q", pid, f[11], f[12])
	}
	return float64(ut+st) / clkTck, nil
}

// rssMB is a process's VmRSS from /proc/<pid>/status, in MiB.
func rssMB(pid int) (float64, error) {
	m, err := rss(pid)
	return m.total, err
}

// rssUse is VmRSS split into anonymous memory (the Go heap, stacks) and
// file-backed pages (the binary, the store's memory map), in MiB.
type rssUse struct{ total, anon, file float64 }

func rss(pid int) (rssUse, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return rssUse{}, err
	}
	var u rssUse
	found := false
	for _, l := range strings.Split(string(b), "\n") {
		name, v, ok := strings.Cut(l, ":")
		if !ok {
			continue
		}
		var dst *float64
		switch name {
		case "VmRSS":
			dst, found = &u.total, true
		case "RssAnon":
			dst = &u.anon
		case "RssFile":
			dst = &u.file
		default:
			continue
		}
		f := strings.Fields(v)
		if len(f) == 0 {
			continue
		}
		kb, err := strconv.Atoi(f[0])
		if err != nil {
			return rssUse{}, fmt.Errorf("/proc/%d/status: %s: %w", pid, name, err)
		}
		*dst = float64(kb) / 1024
	}
	if !found {
		return rssUse{}, fmt.Errorf("/proc/%d/status: no VmRSS", pid)
	}
	return u, nil
}

// procUse is a process's CPU time and its threads' total wait on a run
// queue (the second field of /proc/<pid>/task/*/schedstat: runnable, no
// CPU given), at one moment, with the host's load average.
type procUse struct {
	cpu     float64 // seconds
	runWait time.Duration
	at      time.Time
	load    string // /proc/loadavg's first three fields
}

func sampleUse(pid int) procUse {
	u := procUse{at: time.Now()}
	u.cpu, _ = cpuSeconds(pid)
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if f := strings.Fields(string(b)); err == nil && len(f) >= 2 {
			if ns, err := strconv.ParseInt(f[1], 10, 64); err == nil {
				u.runWait += time.Duration(ns)
			}
		}
	}
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		if f := strings.Fields(string(b)); len(f) >= 3 {
			u.load = strings.Join(f[:3], " ")
		}
	}
	return u
}

// useSince describes what the process used from u0 to u1: its CPU share
// (of one core) and how long its threads waited for a CPU, per second.
func useSince(u0, u1 procUse) (share float64, waitPerS time.Duration, note string) {
	d := u1.at.Sub(u0.at).Seconds()
	if d <= 0 {
		return 0, 0, ""
	}
	share = (u1.cpu - u0.cpu) / d
	waitPerS = time.Duration(float64(u1.runWait-u0.runWait) / d)
	note = fmt.Sprintf("bridge CPU %.0f %% of a core, its threads waiting for a CPU %s per second; load average %s → %s",
		100*share, ms(waitPerS), u0.load, u1.load)
	return share, waitPerS, note
}
