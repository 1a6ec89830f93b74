package bench

import (
	"os"
	"slices"
	"strings"
	"time"
)

// Sizes sets how long each measurement runs.
type Sizes struct {
	Confirm       int           // motion confirms (and floor commits)
	ReadClients   []int         // concurrent MCP clients per read load
	ReadFor       time.Duration // each read load
	Stop          int           // robot_stop calls
	StopHammer    int           // clients hammering reads meanwhile
	StopPlanners  int           // planners previewing, confirming, cancelling in the planners' stop rows
	StopMixed     int           // clients running test/load.sh's mix in the mixed stop rows
	Navigate      int           // base_navigate goals (and rospy goals)
	IngestWarm    time.Duration
	IngestWindow  time.Duration
	PreviewPoints int
	Preview       int // previews timed
	StoreCalls    int // audited calls for the store row
	IKSolves      int // IK solves (and FKs) for the kinematics row
	// WorkspaceChecks: workspace checks of the 7-joint, 1,000-point
	// trajectory for the workspace row.
	WorkspaceChecks int
	// Reads at a planner's pace: clients × rate calls/s each, for PacedFor.
	PacedClients int
	PacedRate    float64
	PacedFor     time.Duration
	MixedFor     time.Duration // test/load.sh's mixed load, for the RSS under it
	RTPS         RTPSSizes
}

// FullSizes is the size of make bench: about 15 minutes on 2 cores.
func FullSizes() Sizes {
	return Sizes{Confirm: 200, ReadClients: []int{1, 8, 64}, ReadFor: 10 * time.Second, Stop: 400, StopHammer: 50, StopPlanners: 8, StopMixed: MixedClients,
		Navigate: 80, IngestWarm: 3 * time.Second, IngestWindow: 20 * time.Second, PreviewPoints: 1000, Preview: 300,
		StoreCalls: 1_000_000, IKSolves: 2000, WorkspaceChecks: 500, PacedClients: 8, PacedRate: 50, PacedFor: 30 * time.Second, MixedFor: 120 * time.Second,
		RTPS: RTPSSizes{Latency: 10 * time.Second, Throughput: 8 * time.Second, IngestWarm: 3 * time.Second, IngestWindow: 20 * time.Second}}
}

// TinySizes is the size of make test: every measurement once or twice.
func TinySizes() Sizes {
	return Sizes{Confirm: 2, ReadClients: []int{1, 4}, ReadFor: 400 * time.Millisecond, Stop: 2, StopHammer: 4, StopPlanners: 1, StopMixed: 2,
		Navigate: 2, IngestWarm: 500 * time.Millisecond, IngestWindow: time.Second, PreviewPoints: 1000, Preview: 3,
		StoreCalls: 2000, IKSolves: 20, WorkspaceChecks: 5, PacedClients: 2, PacedRate: 20, PacedFor: time.Second, MixedFor: 2 * time.Second,
		RTPS: RTPSSizes{Latency: time.Second, Throughput: 3 * time.Second, IngestWarm: 500 * time.Millisecond, IngestWindow: time.Second}}
}

// Run runs every measurement in an order that keeps them apart: the
// latency rows first on a quiet world, the loads after, the 1 kHz world
// and the store last. It returns the rows in the table's order.
func Run(e *Env, s Sizes) []Row { return RunOnly(e, s, nil) }

// Groups names the measurements RunOnly can pick, in Run's order.
var Groups = []string{"confirm", "navigate", "reads", "paced", "stop", "audit", "ros2", "ingest", "preview", "kinematics", "store", "mixed", "rtps"}

// RunOnly runs the measurements named in only (all when only is empty), so
// one row can be measured again while profiling its cause. The rss row
// comes with reads; audit counts the calls of whatever ran before it.
func RunOnly(e *Env, s Sizes, only map[string]bool) []Row {
	pick := func(g string) bool { return len(only) == 0 || only[g] }
	var confirm, nav, reads []Row
	var preview, kin, ws, ingest, store, audit, paced, mixed Row
	var stop []Row
	if pick("confirm") || pick("navigate") || pick("reads") || pick("paced") || pick("stop") || pick("audit") {
		w := NewWorld(e, WorldOpts{})
		idle := MeasureIdleRSS(w)
		e.logf("idle RSS %.1f MB", idle)
		if pick("confirm") {
			confirm, _ = MeasureConfirm(w, s.Confirm)
			for _, r := range confirm {
				e.logf("%s: %s", r.Key, r.Result)
			}
		}
		if pick("navigate") {
			nav, _ = MeasureNavigate(w, s.Navigate)
			for _, r := range nav {
				e.logf("%s: %s / %s", r.Key, r.Result, r.Floor)
			}
		}
		if pick("reads") {
			reads, _ = MeasureReads(w, s.ReadClients, s.ReadFor, idle)
		}
		if pick("paced") {
			paced, _ = MeasurePacedReads(w, s.PacedClients, s.PacedRate, s.PacedFor)
			e.logf("paced reads: %s", paced.Result)
		}
		if pick("stop") {
			for _, o := range s.stopRows(e) {
				r, _ := MeasureStop(w, s.Stop, o)
				e.logf("%s: %s", r.Key, r.Result)
				stop = append(stop, r)
			}
		}
		if pick("audit") {
			audit, _ = MeasureAudit(w) // closes w
			e.logf("audit: %s of %s", audit.Result, audit.Floor)
		} else {
			w.Close()
		}
	}
	var ros2 []Row
	if pick("ros2") {
		ros2 = MeasureROS2(e, s)
		for _, r := range ros2 {
			e.logf("%s: %s / %s", r.Key, r.Result, r.Floor)
		}
	}
	if pick("ingest") {
		ingest, _ = MeasureIngest(e, s.IngestWarm, s.IngestWindow)
		e.logf("ingest: %s / %s", ingest.Result, ingest.Floor)
	}
	if pick("preview") {
		preview = MeasurePreview(e.TB, s.PreviewPoints, s.Preview)
		e.logf("preview: %s", preview.Result)
	}
	if pick("kinematics") {
		kin = MeasureKinematics(e, s.IKSolves)
		e.logf("kinematics: %s", kin.Result)
		ws = MeasureWorkspace(e, s.WorkspaceChecks)
		e.logf("workspace: %s", ws.Result)
	}
	if pick("store") {
		store, _ = MeasureStore(e, s.StoreCalls)
		e.logf("store: %s", store.Result)
	}
	if pick("mixed") {
		mixed, _ = MeasureMixed(e, s.MixedFor)
		e.logf("mixed: %s", mixed.Result)
	}

	var rtpsRows []Row
	if pick("rtps") {
		rtpsRows = MeasureRTPS(e, s.RTPS)
		for _, r := range rtpsRows {
			e.logf("%s: %s / %s", r.Key, r.Result, r.Floor)
		}
	}

	rows := append([]Row{}, confirm...)
	if paced.Key != "" {
		rows = append(rows, paced)
	}
	var rss []Row
	if len(reads) > 0 {
		rows, rss = append(rows, reads[:len(reads)-1]...), reads[len(reads)-1:]
	}
	if mixed.Key != "" {
		rss = append(rss, mixed)
	}
	for _, r := range append([]Row{preview, kin, ws, ingest}, stop...) {
		if r.Key != "" {
			rows = append(rows, r)
		}
	}
	rows = append(rows, ros2...)
	rows = append(rows, nav...)
	rows = append(rows, rtpsRows...)
	for _, r := range append(append([]Row{store}, rss...), audit) {
		if r.Key != "" {
			rows = append(rows, r)
		}
	}
	return rows
}

// stopRowsEnv picks stop rows (comma-separated: readers, planners, http, mixed;
// all when unset), on both transports.
const stopRowsEnv = "ACTBRIDGE_BENCH_STOP_ROWS"

// stopRows are the stop rows' set-ups: robot_stop under the readers, under
// the readers and planners, POST /stop under the readers, and robot_stop
// under test/load.sh's 64-client mix (a loaded host, reported).
func (s Sizes) stopRows(e *Env) []StopOpts {
	all := []struct {
		name string
		o    StopOpts
	}{
		{"readers", StopOpts{Hammer: s.StopHammer}},
		{"planners", StopOpts{Hammer: s.StopHammer, Planners: s.StopPlanners}},
		{"http", StopOpts{Hammer: s.StopHammer, HTTP: true}},
		{"mixed", StopOpts{Mixed: s.StopMixed}},
	}
	want := strings.FieldsFunc(os.Getenv(stopRowsEnv), func(r rune) bool { return r == ',' || r == ' ' })
	var out []StopOpts
	for _, r := range all {
		if len(want) == 0 || slices.Contains(want, r.name) {
			out = append(out, r.o)
		}
	}
	if len(out) == 0 {
		e.TB.Fatalf("%s: no stop row in %q (have readers, planners, http, mixed)", stopRowsEnv, want)
	}
	return out
}
