package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/actbridge/actbridge/test/ddspeers"
	"github.com/actbridge/actbridge/test/netns"
)

// The rtps rows (issue 20) run our RTPS participant (this binary
// re-executed, rtpsproc.go), CycloneDDS's ddsperf and the CycloneDDS C
// peer of test/ddspeers inside a network namespace made for them, each
// measurement next to its Cyclone-only floor in the same run.

// rtpsWorld is the namespace and the tools of the rtps rows.
type rtpsWorld struct {
	e       *Env
	ns      string
	ddsperf string
	cyc     string // test/ddspeers' cycpeer
}

// newRTPSWorld makes the namespace (deleted at the test's end) and finds
// the peers; ok is false (and the reason logged) when this host has no
// namespaces or no DDS packages and ACTBRIDGE_REQUIRE_DDS_PEERS is unset.
func newRTPSWorld(e *Env) (*rtpsWorld, bool) {
	tb := e.TB
	required := os.Getenv(netns.EnvRequire) == "1"
	ddsperf, err := exec.LookPath("ddsperf")
	if err != nil {
		if required {
			tb.Fatalf("rtps rows: ddsperf (cyclonedds-tools): %v", err)
		}
		e.logf("rtps rows skipped: no ddsperf (cyclonedds-tools)")
		return nil, false
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	name, del, err := netns.Create(ctx)
	if errors.Is(err, netns.ErrUnavailable) && !required {
		e.logf("rtps rows skipped: %v", err)
		return nil, false
	}
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := del(); err != nil {
			tb.Error(err)
		}
	})
	return &rtpsWorld{e: e, ns: name, ddsperf: ddsperf, cyc: ddspeers.Build(tb).Cyclone}, true
}

// start runs bin inside the namespace, killed by its process group when
// the test ends. With quiet, its stdout goes to /dev/null (a subscriber
// peer prints every sample) through an exec'ing shell, so the pid stays
// the program's own.
func (w *rtpsWorld) start(env []string, stdin io.Reader, quiet bool, bin string, args ...string) *netns.Peer {
	if quiet {
		args = append([]string{"-c", `exec "$0" "$@" >/dev/null`, bin}, args...)
		bin = "/bin/sh"
	}
	cmd := netns.Command(context.Background(), w.ns, bin, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = stdin
	p := netns.StartPeer(w.e.TB, cmd)
	// A vendor's complaints about what we sent (CycloneDDS: "malformed
	// packet received from vendor 1.171 …") go to the log.
	w.e.TB.Cleanup(func() {
		for _, line := range strings.Split(p.Output(), "\n") {
			if strings.Contains(line, "malformed") {
				w.e.logf("rtps rows: %s: %s", filepath.Base(bin), line)
			}
		}
	})
	return p
}

// ours starts this binary as one of our RTPS floor processes.
func (w *rtpsWorld) ours(mode string, job rtpsJob) *netns.Peer {
	b, _ := json.Marshal(job)
	return w.start([]string{floorEnv + "=" + mode, rtpsJobEnv + "=" + string(b)}, nil, false, w.e.Self, "-test.run=^$")
}

// result waits for one of our floor processes to end and decodes its
// result line into v.
func result(tb testing.TB, p *netns.Peer, limit time.Duration, v any) {
	tb.Helper()
	waitExit(tb, p, limit)
	out := p.Output()
	i := strings.LastIndex(out, "result ")
	if i < 0 {
		tb.Fatalf("rtps process printed no result:\n%s", tail(out, 3000))
	}
	line, _, _ := strings.Cut(out[i+len("result "):], "\n")
	if err := json.Unmarshal([]byte(line), v); err != nil {
		tb.Fatalf("rtps process result %q: %v", line, err)
	}
}

// waitExit waits for a process to end on its own (ddsperf's -D, our
// processes' measurement), bounded.
func waitExit(tb testing.TB, p *netns.Peer, limit time.Duration) {
	tb.Helper()
	select {
	case <-p.Done():
	case <-time.After(limit):
		p.Kill()
		tb.Fatalf("still running after %v:\n%s", limit, tail(p.Output(), 3000))
	}
}

// ddsperfPing matches ddsperf ping's per-second line: "… size 1024 mean
// 12.4us min 8.4us 50% 11.4us 90% 15.2us 99% 26.2us max … cnt 39938".
// Its times are half round trips (see latency).
var ddsperfPing = regexp.MustCompile(`size \d+ mean \S+ min \S+ 50% ([0-9.]+)us 90% \S+ 99% ([0-9.]+)us max \S+ cnt (\d+)`)

// ddsperfSub matches ddsperf sub's per-second line: "… size 1024 total N
// lost L delta D lost l rate R kS/s …".
var ddsperfSub = regexp.MustCompile(`size (\d+) total (\d+) lost (\d+) delta (\d+) lost (\d+) rate`)

// RTPSSizes sets how long each rtps measurement runs.
type RTPSSizes struct {
	Latency      time.Duration // each side's round trips
	Throughput   time.Duration // each side's publishing, per size
	IngestWarm   time.Duration
	IngestWindow time.Duration
}

// MeasureRTPS measures the three rtps rows of issue 20: round-trip
// latency, throughput at two sizes and the CPU to ingest 1 kHz joint
// states; nil when the host cannot run them (see newRTPSWorld).
func MeasureRTPS(e *Env, s RTPSSizes) []Row {
	w, ok := newRTPSWorld(e)
	if !ok {
		return nil
	}
	// ACTBRIDGE_BENCH_RTPS_ROWS=latency,throughput,ingest measures only
	// those rows, to profile one of them without the others.
	only := os.Getenv("ACTBRIDGE_BENCH_RTPS_ROWS")
	want := func(row string) bool { return only == "" || slices.Contains(strings.Split(only, ","), row) }
	var rows []Row
	if want("latency") {
		rows = append(rows, w.latency(s.Latency))
	}
	if want("throughput") {
		for _, size := range []int{1 << 10, 64 << 10} {
			rows = append(rows, w.throughput(size, s.Throughput))
		}
	}
	if want("ingest") {
		rows = append(rows, w.ingest(s.IngestWarm, s.IngestWindow))
	}
	return rows
}

// secs is a whole number of seconds for ddsperf's -D, at least 1.
func secs(d time.Duration) int { return max(int(d.Round(time.Second)/time.Second), 1) }

// latency: our participant pings a JointState of 1 KB through cycpeer
// echo --listener (written back on its receiving thread, as ddsperf pong) and waits for it back; the floor is ddsperf ping ↔ ddsperf pong
// (1 KB KeyedSeq), both reliable keep-last 1.
func (w *rtpsWorld) latency(d time.Duration) Row {
	tb := w.e.TB
	const domain = 60
	w.start(nil, nil, false, w.cyc, "echo", "--listener", "--type", "sensor_msgs/msg/JointState", "--topic", "rt/bench_ping",
		"--out-topic", "rt/bench_pong", "--depth", "1", "--domain", fmt.Sprint(domain), "--timeout", "120")
	echo := w.ours(udpEcho, rtpsJob{})
	waitOutput(tb, echo, "listening ", 30*time.Second)
	addr := strings.Fields(strings.SplitN(echo.Output(), "listening ", 2)[1])[0]
	var ours pingResult
	result(tb, w.ours(rtpsPing, rtpsJob{Domain: domain, Size: 1024, For: d, Topic: "rt/bench_ping", Reply: "rt/bench_pong", Echo: addr}), 2*d+90*time.Second, &ours)
	terminate(echo)
	// The same pings through our own participant as the echo (Go,
	// answering in its listener), to tell the echo peer's part.
	goEcho := w.ours(rtpsEcho, rtpsJob{Domain: domain + 2, Topic: "rt/bench_ping", Reply: "rt/bench_pong"})
	waitOutput(tb, goEcho, "echoing", 30*time.Second)
	var viaGo pingResult
	result(tb, w.ours(rtpsPing, rtpsJob{Domain: domain + 2, Size: 1024, For: d, Topic: "rt/bench_ping", Reply: "rt/bench_pong", ListenOnly: true}), d+90*time.Second, &viaGo)
	terminate(goEcho)

	// ddsperf prints a line a second; the first covers discovery.
	pong := w.start(nil, nil, false, w.ddsperf, "-i", fmt.Sprint(domain+1), "-D", fmt.Sprint(secs(d)+4), "pong")
	ping := w.start(nil, nil, false, w.ddsperf, "-i", fmt.Sprint(domain+1), "-D", fmt.Sprint(secs(d)+2), "ping", "size", "1k")
	waitExit(tb, ping, d+60*time.Second)
	waitExit(tb, pong, 10*time.Second)
	var p50s, p99s []float64
	var n int
	for i, m := range ddsperfPing.FindAllStringSubmatch(ping.Output(), -1) {
		if i == 0 {
			continue
		}
		a, _ := strconv.ParseFloat(m[1], 64)
		b, _ := strconv.ParseFloat(m[2], 64)
		c, _ := strconv.Atoi(m[3])
		p50s, p99s, n = append(p50s, a), append(p99s, b), n+c
	}
	if len(p50s) == 0 || ours.N == 0 {
		tb.Fatalf("latency: %d round trips of ours, no ddsperf ping line in:\n%s", ours.N, tail(ping.Output(), 2000))
	}
	// ddsperf ping reports half of each round trip (0.10.2's ddsperf.c,
	// process_pong: update_roundtrip(…, (tnow - source_timestamp) / 2)),
	// the one-way estimate; ours are whole round trips, so its figures
	// are doubled to compare like with like.
	f50 := time.Duration(2 * median(p50s) * float64(time.Microsecond))
	f99 := time.Duration(2 * median(p99s) * float64(time.Microsecond))
	r50, r99 := ratio(ours.P50, f50), ratio(ours.P99, f99)
	l50, l99 := ratio(ours.ListenP50, f50), ratio(ours.ListenP99, f99)
	return Row{
		Key: "rtps_latency",
		What: fmt.Sprintf("RTPS round trip, 1 KB reliable: our participant ↔ CycloneDDS C echo peer (cycpeer echo --listener, JointState: written back from its reader's listener, as ddsperf pong does), %d round trips taking each echo (Reader.Take), %d answering it on the reader's listener (Reader.Listen, as ddsperf ping)",
			ours.N, ours.ListenN),
		Result: fmt.Sprintf("Take: p50 %s · p99 %s; listener: p50 %s · p99 %s (of which the listener's own, echo decoded to next ping sent: p50 %s); listener through our own participant as the echo (Go, in its listener, in place of cycpeer echo): p50 %s · p99 %s",
			us(ours.P50), us(ours.P99), us(ours.ListenP50), us(ours.ListenP99), us(ours.ListenSelfP50), us(viaGo.ListenP50), us(viaGo.ListenP99)),
		Floor: fmt.Sprintf("ddsperf ping ↔ ddsperf pong (CycloneDDS ↔ CycloneDDS, 1 KB KeyedSeq): round trip p50 %s · p99 %s (twice the medians of %d one-second reports, which give half round trips; %d round trips); a bare Go UDP socket ↔ a bare Go UDP echo process, same size: p50 %s · p99 %s",
			us(f50), us(f99), len(p50s), n, us(ours.UDPP50), us(ours.UDPP99)),
		Ratio: fmt.Sprintf("Take p50 %s · p99 %s; listener p50 %s · p99 %s (p50 against the bare Go UDP round trip: Take %s, listener %s)",
			fx(r50), fx(r99), fx(l50), fx(l99), fx(ratio(ours.P50, ours.UDPP50)), fx(ratio(ours.ListenP50, ours.UDPP50))),
		Target: "≤ 1.2× (p50, listener: ddsperf answers on its listener)",
		Met:    yes(l50 <= 1.2),
		Values: map[string]float64{"p50_us": usf(ours.P50), "p99_us": usf(ours.P99), "listen_p50_us": usf(ours.ListenP50), "listen_p99_us": usf(ours.ListenP99), "listen_self_p50_us": usf(ours.ListenSelfP50), "go_echo_listen_p50_us": usf(viaGo.ListenP50),
			"floor_p50_us": usf(f50), "floor_p99_us": usf(f99), "udp_p50_us": usf(ours.UDPP50)},
	}
}

// subRate reads ddsperf sub's per-second reports: the samples per second
// over the full seconds while data came (the first and last reports,
// partial, left out) and the samples it counted lost.
func subRate(out string) (rate float64, total, lost int, seconds int) {
	var deltas []int
	for _, m := range ddsperfSub.FindAllStringSubmatch(out, -1) {
		total, _ = strconv.Atoi(m[2])
		lost, _ = strconv.Atoi(m[3])
		if d, _ := strconv.Atoi(m[4]); d > 0 {
			deltas = append(deltas, d)
		}
	}
	if len(deltas) > 2 {
		deltas = deltas[1 : len(deltas)-1]
	}
	sum := 0
	for _, d := range deltas {
		sum += d
	}
	if len(deltas) == 0 {
		return 0, total, lost, 0
	}
	return float64(sum) / float64(len(deltas)), total, lost, len(deltas)
}

// throughput: our reliable writer publishes size-octet KeyedSeq samples
// into ddsperf sub as fast as it goes, and ddsperf pub does the same into
// another ddsperf sub; each sub reports the samples it counted.
func (w *rtpsWorld) throughput(size int, d time.Duration) Row {
	tb := w.e.TB
	domain := 62 + size>>16 // 62 for 1 KB, 63 for 64 KB
	run := func(dom int, pub func() *netns.Peer) (float64, int, int, int) {
		sub := w.start(nil, nil, false, w.ddsperf, "-i", fmt.Sprint(dom), "-D", fmt.Sprint(secs(d)+6), "sub", "waitset")
		waitExit(tb, pub(), d+60*time.Second)
		sub.Kill()
		return subRate(sub.Output())
	}
	var pub pubResult
	ours, oursTotal, oursLost, oursN := run(domain, func() *netns.Peer {
		p := w.ours(rtpsPub, rtpsJob{Domain: domain, Size: size, For: d})
		result(tb, p, d+60*time.Second, &pub)
		return p
	})
	floor, _, floorLost, floorN := run(domain+10, func() *netns.Peer {
		return w.start(nil, nil, false, w.ddsperf, "-i", fmt.Sprint(domain+10), "-D", fmt.Sprint(secs(d)+2), "pub", "size", fmt.Sprint(size))
	})
	if ours == 0 || floor == 0 {
		tb.Fatalf("throughput %d: ours %.0f/s, ddsperf %.0f/s", size, ours, floor)
	}
	r := ours / floor
	cpuPerSample := 0.0
	if pub.Samples > 0 {
		cpuPerSample = pub.CPUSeconds / float64(pub.Samples) * 1e6
	}
	mbps := func(rate float64) float64 { return rate * float64(size) * 8 / 1e6 }
	return Row{
		Key:    fmt.Sprintf("rtps_throughput/%d", size),
		What:   fmt.Sprintf("RTPS throughput, %s reliable samples: our writer → CycloneDDS reader (ddsperf sub), as fast as the writer goes", kb(size)),
		Result: fmt.Sprintf("%.0f samples/s (%.0f Mb/s) over %d s; %d written, %d counted, %d lost; writer CPU %.1f µs a sample", ours, mbps(ours), oursN, pub.Samples, oursTotal, oursLost, cpuPerSample),
		Floor:  fmt.Sprintf("ddsperf pub → ddsperf sub: %.0f samples/s (%.0f Mb/s) over %d s, %d lost", floor, mbps(floor), floorN, floorLost),
		Ratio:  fx(r),
		Target: "≥ 0.7×",
		Met:    yes(r >= 0.7 && oursLost == 0),
		Values: map[string]float64{"samples_per_s": ours, "floor_samples_per_s": floor, "lost": float64(oursLost), "writer_cpu_us": cpuPerSample},
	}
}

// ingest: our participant in another process writes a 7-joint
// JointState at 1 kHz; our participant (take and decode each) and the CycloneDDS C subscriber
// peer (take, which deserializes, then serialize again and print in hex
// to /dev/null) read the same stream; the row compares their CPU over the
// same window.
func (w *rtpsWorld) ingest(warm, window time.Duration) Row {
	tb := w.e.TB
	const domain = 64
	args := []string{"--type", "sensor_msgs/msg/JointState", "--topic", "rt/joint_states", "--domain", fmt.Sprint(domain), "--timeout", "120"}
	ours := w.ours(rtpsIngest, rtpsJob{Domain: domain, Topic: "rt/joint_states", Samples: 1 << 30})
	floor := w.start(nil, nil, true, w.cyc, append([]string{"sub"}, args...)...)
	// Go's own floor: the same bytes as bare datagrams into a Go socket,
	// taken and decoded on a second goroutine.
	sink := w.ours(udpSink, rtpsJob{})
	waitOutput(tb, sink, "listening ", 30*time.Second)
	sinkAddr := strings.Fields(strings.SplitN(sink.Output(), "listening ", 2)[1])[0]
	waitOutput(tb, ours, "subscribed", 30*time.Second)
	// The publisher is ours too: cycpeer pub sleeps in steps of 10 ms, so
	// it cannot publish faster than 100 Hz.
	pub := w.ours(rtpsJSPub, rtpsJob{Domain: domain, Topic: "rt/joint_states", Readers: 2, Echo: sinkAddr})
	waitOutput(tb, ours, "count ", 30*time.Second)
	time.Sleep(warm)
	o0, err1 := cpuSeconds(ours.Pid())
	f0, err2 := cpuSeconds(floor.Pid())
	g0, err5 := cpuSeconds(sink.Pid())
	n0, s0 := lastCountOf(ours.Output()), lastCountOf(sink.Output())
	t0 := time.Now()
	time.Sleep(window)
	o1, err3 := cpuSeconds(ours.Pid())
	f1, err4 := cpuSeconds(floor.Pid())
	g1, err6 := cpuSeconds(sink.Pid())
	el := time.Since(t0)
	time.Sleep(1100 * time.Millisecond)
	n1, s1 := lastCountOf(ours.Output()), lastCountOf(sink.Output())
	for _, err := range []error{err1, err2, err3, err4, err5, err6} {
		if err != nil {
			tb.Fatal(err)
		}
	}
	for _, p := range []*netns.Peer{pub, ours, sink} {
		terminate(p)
	}
	oursPct, floorPct, goPct := 100*(o1-o0)/el.Seconds(), 100*(f1-f0)/el.Seconds(), 100*(g1-g0)/el.Seconds()
	rate := float64(n1-n0) / (el + 1100*time.Millisecond).Seconds()
	goRate := float64(s1-s0) / (el + 1100*time.Millisecond).Seconds()
	r := oursPct / floorPct
	return Row{
		Key:    "rtps_ingest",
		What:   fmt.Sprintf("RTPS ingestion of 7-joint JointStates published at 1 kHz (%.0f samples/s taken by ours), reliable: CPU over %.0f s", rate, el.Seconds()),
		Result: fmt.Sprintf("our participant (take + cdr.Decode each): %.2f %% of one core", oursPct),
		Floor: fmt.Sprintf("CycloneDDS C subscriber peer (cycpeer sub: take, then serialize and print each to /dev/null): %.2f %%; a bare Go UDP socket sent the same bytes (%.0f datagrams/s), read on one goroutine and decoded on another (Go's net path, cdr.Decode): %.2f %%",
			floorPct, goRate, goPct),
		Ratio:  fmt.Sprintf("%s (against the bare Go socket: %s)", fx(r), fx(oursPct/goPct)),
		Target: "≤ 1.0×",
		Met:    yes(r <= 1.0),
		Values: map[string]float64{"ours_pct": oursPct, "floor_pct": floorPct, "rate": rate, "go_pct": goPct, "go_rate": goRate},
	}
}

// terminate asks one of our processes to end (SIGTERM), so that it ends
// its participant and profile, and kills it if it has not within 5 s.
func terminate(p *netns.Peer) {
	_ = syscall.Kill(p.Pid(), syscall.SIGTERM)
	select {
	case <-p.Done():
	case <-time.After(5 * time.Second):
		p.Kill()
	}
}

// waitOutput waits until p printed s.
func waitOutput(tb testing.TB, p *netns.Peer, s string, limit time.Duration) {
	tb.Helper()
	deadline := time.Now().Add(limit)
	for !strings.Contains(p.Output(), s) {
		select {
		case <-p.Done():
			tb.Fatalf("exited before printing %q:\n%s", s, tail(p.Output(), 3000))
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			tb.Fatalf("no %q after %v:\n%s", s, limit, tail(p.Output(), 3000))
		}
	}
}

// lastCountOf is the last "count N" line in out.
func lastCountOf(out string) int {
	n := 0
	for _, l := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(l, "count "); ok {
			_, _ = fmt.Sscan(v, &n)
		}
	}
	return n
}

func median(v []float64) float64 {
	c := slices.Clone(v)
	slices.Sort(c)
	return c[len(c)/2]
}

func us(d time.Duration) string { return fmt.Sprintf("%.1f µs", usf(d)) }

func usf(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

func kb(n int) string { return fmt.Sprintf("%d KB", n>>10) }
