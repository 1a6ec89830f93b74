package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/actbridge/actbridge/rtps"
	"github.com/actbridge/actbridge/rtps/wire"
	"github.com/actbridge/actbridge/test/netns"
)

// The ros2 rows (issue 22) measure the bridge over ROS 2 as the confirm
// and stop rows measure it over ROS 1: `actbridge serve` with transport
// ros2 against `simrobot --ros 2`, each number beside its floor from the
// same run. Every process of theirs runs inside a network namespace made
// for them, with localhost-only discovery as well: this test binary
// re-executed there (TestBenchROS2Inside) starts the sim and the bridge,
// drives them over MCP and writes its rows to a file the outer run reads.

// ros2Domain is the ROS 2 rows' domain id, alone in their namespace.
const ros2Domain = 42

// Between MeasureROS2 and the re-executed binary.
const (
	ros2JobEnv = "ACTBRIDGE_BENCH_ROS2_JOB" // a ros2Job, JSON
	binDirEnv  = "ACTBRIDGE_BENCH_BINDIR"   // actbridge and simrobot, already built
)

// ros2ProfileEnv names a directory: the ros2 rows' bridge then runs with
// --pprof, and a CPU profile of it over the first 30 s of each row group
// is written there (ros2_confirm.pprof, ros2_stop*.pprof), with an
// execution trace of 5 s of each stop loop (ros2_stop*.trace).
const ros2ProfileEnv = "ACTBRIDGE_BENCH_ROS2_PROFILE"

// ros2SimArgsEnv adds arguments to the ros2 rows' `simrobot --ros 2`
// (space-separated), to find what a row owes to the sim, e.g.
// "--joint-states-hz 1000": the confirm waits for a joint state received
// after it began.
const ros2SimArgsEnv = "ACTBRIDGE_BENCH_ROS2_SIM_ARGS"

// ros2Job is what the re-executed binary measures, and where its rows go.
type ros2Job struct {
	Confirm, Stop int
	StopRows      []StopOpts
	Out           string
}

// The action the sim serves and the bridge's config names, and the DDS
// topics of its requests (ROS 2 names them so; ROS2-NOTES.md).
const (
	armAction        = "/joint_trajectory_controller/follow_joint_trajectory"
	sendGoalRequest  = "rq" + armAction + "/_action/send_goalRequest"
	cancelRequest    = "rq" + armAction + "/_action/cancel_goalRequest"
	sendGoalDDSType  = "control_msgs::action::dds_::FollowJointTrajectory_SendGoal_Request_"
	floorRequestName = "rq/bench_floor/send_goalRequest"
)

// MeasureROS2 measures the ros2 rows inside a network namespace of their
// own; nil (and the reason logged) when this host cannot make one and
// ACTBRIDGE_REQUIRE_DDS_PEERS is unset.
func MeasureROS2(e *Env, s Sizes) []Row {
	tb := e.TB
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	ns, del, err := netns.Create(ctx)
	cancel()
	if errors.Is(err, netns.ErrUnavailable) && os.Getenv(netns.EnvRequire) != "1" {
		e.logf("ros2 rows skipped: %v", err)
		return nil
	}
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := del(); err != nil {
			tb.Error(err)
		}
	})
	out := filepath.Join(tb.TempDir(), "ros2-rows.json")
	job, _ := json.Marshal(ros2Job{Confirm: s.Confirm, Stop: s.Stop, StopRows: s.stopRows(e), Out: out})
	const limit = 25 * time.Minute
	cmd := netns.Command(context.Background(), ns, e.Self, "-test.run=^TestBenchROS2Inside$", "-test.count=1", "-test.v",
		"-test.timeout="+limit.String())
	cmd.Env = append(os.Environ(), ros2JobEnv+"="+string(job), binDirEnv+"="+e.BinDir)
	p := netns.StartPeer(tb, cmd)
	waitExit(tb, p, limit+time.Minute)
	b, err := os.ReadFile(out)
	if err != nil {
		tb.Fatalf("ros2 rows: none written (%v):\n%s", err, tail(p.Output(), 6000))
	}
	var rows []Row
	if err := json.Unmarshal(b, &rows); err != nil {
		tb.Fatalf("ros2 rows: %v", err)
	}
	return rows
}

// MeasureROS2Inside is the re-executed binary's part of MeasureROS2, run
// inside the namespace: it writes the rows to job.Out.
func MeasureROS2Inside(e *Env, job ros2Job) {
	tb := e.TB
	prof := os.Getenv(ros2ProfileEnv)
	w := newROS2World(e, ros2Domain, prof != "")
	probe := newROS2Probe(w, ros2Domain)
	done := w.cpuProfile(prof, "ros2_confirm", 30*time.Second)
	rows, _ := MeasureConfirmROS2(w, probe, job.Confirm)
	done()
	for _, r := range rows {
		e.logf("%s: %s / %s", r.Key, r.Result, r.Floor)
	}
	for _, o := range job.StopRows {
		stop, _ := MeasureStopROS2(w, probe, job.Stop, o)
		e.logf("%s: %s / %s", stop.Key, stop.Result, stop.Floor)
		rows = append(rows, stop)
	}
	for _, r := range rows { // JSON has no NaN; Check reports a negative value
		for k, v := range r.Values {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				r.Values[k] = -1
			}
		}
	}
	b, err := json.Marshal(rows)
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(job.Out, b, 0o644); err != nil {
		tb.Fatal(err)
	}
}

// newROS2World starts `simrobot --ros 2` and `actbridge serve` (with
// --pprof when pprof) with the shipped sim-ros2.yaml on domain,
// localhost-only discovery, and waits until the bridge reports the arm
// connected.
func newROS2World(e *Env, domain int, pprof bool) *World {
	tb := e.TB
	tb.Helper()
	w := &World{env: e, DataDir: tb.TempDir()}
	if pprof {
		w.ProfDir = os.Getenv(ros2ProfileEnv)
	}
	tb.Cleanup(w.Close)
	ros := []string{fmt.Sprintf("ROS_DOMAIN_ID=%d", domain), "ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST",
		"ROS_LOCALHOST_ONLY=", "ROS_STATIC_PEERS="}
	simArgs := append([]string{"--ros", "2", "--distro", "jazzy"}, strings.Fields(os.Getenv(ros2SimArgsEnv))...)
	w.Sim = startProc(tb, filepath.Join(e.BinDir, "simrobot"), "simrobot", ros, simArgs...)
	w.Sim.WaitOutput(tb, "serving", 60*time.Second)
	w.Addr = freeAddr(tb)
	args := []string{"serve", "--config", filepath.Join(e.Module, "launch/robots/sim-ros2.yaml"), "--listen", w.Addr, "--data-dir", w.DataDir}
	if pprof {
		args = append(args, "--pprof")
	}
	w.Bridge = startProc(tb, filepath.Join(e.BinDir, "actbridge"), "actbridge",
		append(ros, "ACTBRIDGE_OPERATOR_TOKEN=", "ACTBRIDGE_PLANNER_TOKEN="), args...)
	w.waitReady()
	return w
}

// cpuProfile fetches a CPU profile of the bridge (started with --pprof)
// over the next d into dir/name.pprof, when dir is set; the function it
// returns waits for it. A failed fetch is logged: profiling is an aid.
func (w *World) cpuProfile(dir, name string, d time.Duration) func() {
	return w.fetchProfile(dir, name+".pprof", "profile", d)
}

// execTrace fetches an execution trace of the bridge over the next d into
// dir/name.trace (for go tool trace), as cpuProfile does.
func (w *World) execTrace(dir, name string, d time.Duration) func() {
	return w.fetchProfile(dir, name+".trace", "trace", d)
}

func (w *World) fetchProfile(dir, file, kind string, d time.Duration) func() {
	if dir == "" {
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		hc := http.Client{Timeout: d + 30*time.Second}
		resp, err := hc.Get(fmt.Sprintf("http://%s/debug/pprof/%s?seconds=%d", w.Addr, kind, int(d.Seconds())))
		if err != nil {
			w.env.logf("profile %s: %v", file, err)
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err == nil && resp.StatusCode != http.StatusOK {
			err = fmt.Errorf("%s", resp.Status)
		}
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, file), b, 0o644)
		}
		if err != nil {
			w.env.logf("profile %s: %v", file, err)
		}
	}()
	return func() { <-done }
}

// ros2Probe is the bench's side of the ROS 2 rows: the wire tap, and two
// participants of ours on the world's domain, one holding the floor's
// writer (and reading the graph for the bridge's request writers), the
// other the floor's reader.
type ros2Probe struct {
	tap            *wireTap
	floorW         *rtps.Writer
	floorR         *rtps.Reader
	goalW, cancelW wire.GUID // the bridge's send_goal and cancel_goal request writers
}

func newROS2Probe(w *World, domain int) *ros2Probe {
	tb := w.env.TB
	tb.Helper()
	life, stop := context.WithCancel(context.Background())
	tap, err := newWireTap(life)
	if err != nil {
		stop()
		tb.Fatalf("wire tap: %v", err)
	}
	tb.Cleanup(func() { stop(); tap.wait() })
	var ps [2]*rtps.Participant
	for i := range ps {
		if ps[i], err = rtps.NewParticipant(life, rtps.Config{Domain: domain}); err != nil {
			tb.Fatalf("participant: %v", err)
		}
		tb.Cleanup(func() { _ = ps[i].Close() })
	}
	// A service request's QoS (ROS 2's services profile).
	floor := rtps.EndpointData{Topic: floorRequestName, Type: sendGoalDDSType,
		QoS: rtps.QoS{Reliability: rtps.Reliable, Durability: rtps.Volatile, History: rtps.KeepLast, Depth: 10}}
	pr := &ros2Probe{tap: tap}
	if pr.floorW, err = ps[0].NewWriter(floor); err != nil {
		tb.Fatal(err)
	}
	if pr.floorR, err = ps[1].NewReader(floor); err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(life, 30*time.Second)
	defer cancel()
	if err := waitMatchedBoth(ctx, ps[0], pr.floorW, nil); err != nil {
		tb.Fatalf("floor writer: %v", err)
	}
	for _, f := range []struct {
		g     *wire.GUID
		topic string
	}{{&pr.goalW, sendGoalRequest}, {&pr.cancelW, cancelRequest}} {
		eps, err := ps[0].WaitEndpoints(ctx, func(eps []rtps.EndpointData) bool {
			return slices.ContainsFunc(eps, func(e rtps.EndpointData) bool { return e.Writer && e.Topic == f.topic })
		})
		if err != nil {
			tb.Fatalf("the bridge's writer of %s never discovered: %v", f.topic, err)
		}
		*f.g = eps[slices.IndexFunc(eps, func(e rtps.EndpointData) bool { return e.Writer && e.Topic == f.topic })].GUID
	}
	return pr
}

// floorWrite is the ROS 2 floor's write: one sample of payload's size
// from our writer to its matched reader. It returns when the DATA left
// (the tap's kernel stamp) and when the reader took it.
func (pr *ros2Probe) floorWrite(payload []byte) (onWire, taken time.Time, err error) {
	tw := pr.tap.watch(pr.floorW.GUID())
	if err := pr.floorW.Write(slices.Clone(payload), nil); err != nil {
		pr.tap.forget(tw)
		return onWire, taken, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := pr.floorR.Take(ctx); err != nil {
		pr.tap.forget(tw)
		return onWire, taken, fmt.Errorf("floor reader: %w", err)
	}
	taken = time.Now()
	d, err := pr.tap.seen(tw, nil, 5*time.Second)
	return d.at, taken, err
}

// floorPayload is a CDR payload (little-endian encapsulation) of size octets.
func floorPayload(size int) []byte {
	b := make([]byte, max(size, 4))
	b[1] = 1
	return b
}
