package bench

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/actbridge/actbridge/test/netns"
)

// binDir holds actbridge and simrobot, built once by TestMain.
var binDir string

func TestMain(m *testing.M) {
	RunFloorProcess()                           // a re-executed floor process never returns from here
	if dir := os.Getenv(binDirEnv); dir != "" { // MeasureROS2's re-executed binary
		binDir = dir
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "actbridge-bench-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	// ACTBRIDGE_BENCH_BUILDFLAGS adds go build flags, e.g. -overlay=… to
	// build a profiling bridge without touching the tree.
	args := append([]string{"build", "-o", dir + "/"}, strings.Fields(os.Getenv("ACTBRIDGE_BENCH_BUILDFLAGS"))...)
	cmd := exec.Command(goTool(), append(args, "../../cmd/actbridge", "../../cmd/simrobot")...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building binaries:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func newEnv(t testing.TB) *Env {
	mod, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return &Env{TB: t, BinDir: binDir, Self: SelfBinary(t), Module: mod, Logf: t.Logf}
}

// TestBenchHarnessRunsTiny runs every measurement of the table at a tiny
// size and checks that each produced numbers. It asserts no timing: the
// numbers of a busy machine are slow, not wrong.
func TestBenchHarnessRunsTiny(t *testing.T) {
	if testing.Short() {
		t.Skip("starts rosmaster, the sim and the bridge twice")
	}
	rows := Run(newEnv(t), TinySizes())
	required := map[string][]string{
		"confirm":       {"p50_ms", "p99_ms", "floor_http_p50_ms", "floor_p50_ms", "fsync_p50_ms", "wire_p50_ms", "http_in_p50_ms", "http_rtt_p50_ms"},
		"confirm_lean":  {"p50_ms", "p99_ms", "floor_http_p50_ms", "floor_p50_ms", "fsync_p50_ms", "wire_p50_ms", "http_in_p50_ms", "http_rtt_p50_ms"},
		"preview":       {"compute_p50_ms", "compute_allocs", "p50_ms", "allocs", "check_p50_ms", "decode_p50_ms", "stored_p50_ms"},
		"ingest":        {"bridge_pct", "floor_pct", "rate"},
		"stop":          {"p50_ms", "p99_ms", "wire_p50_ms", "floor_p99_ms", "bridge_cpu_share"},
		"stop_planners": {"p50_ms", "p99_ms", "floor_p99_ms", "planner_calls", "bridge_cpu_share"},
		"stop_http":     {"p50_ms", "p99_ms", "wire_p50_ms", "floor_p99_ms", "bridge_cpu_share"},
		"stop_mixed":    {"p50_ms", "p99_ms", "wire_p50_ms", "floor_p99_ms", "mix_steps", "bridge_cpu_share"},
		"navigate":      {"p50_ms"},
		"navigate_lean": {"p50_ms"},
		"store":         {"confirm_ms", "file_mb", "append_us"},
		"kinematics":    {"fk_us", "ik_sim_p99_ms", "ik_ab6_p99_ms"},
		"workspace":     {"workspace_ms", "joints_ms", "samples"},
		"rss":           {"idle_mb", "load_mb", "floor_idle_mb"},
		"audit":         {"calls", "lines"},
		"reads_paced":   {"p50_ms", "p99_ms", "calls_per_s", "bridge_cpu_pct"},
		"rss_mixed":     {"peak_mb", "heap_inuse_mb", "calls"},
	}
	for _, c := range TinySizes().ReadClients {
		for _, key := range []string{"reads", "reads_lean"} {
			required[fmt.Sprintf("%s/%d", key, c)] = []string{"calls_per_s", "p50_ms", "p99_ms", "floor_calls_per_s", "bridge_cpu_us", "client_cpu_us"}
		}
	}
	// The rospy floor is required where rospy is installed (scripts/deps.sh).
	if exec.Command(Python, "-c", "import rospy, actionlib, move_base_msgs.msg").Run() == nil {
		required["navigate"] = append(required["navigate"], "rospy_p50_ms")
		required["navigate_lean"] = append(required["navigate_lean"], "rospy_p50_ms")
	}
	// The rtps rows need a network namespace (root) and CycloneDDS.
	if _, err := exec.LookPath("ddsperf"); (err == nil && os.Geteuid() == 0) || os.Getenv(netns.EnvRequire) == "1" {
		required["rtps_latency"] = []string{"p50_us", "p99_us", "floor_p50_us", "udp_p50_us", "listen_p50_us", "listen_self_p50_us", "go_echo_listen_p50_us"}
		for _, size := range []int{1 << 10, 64 << 10} {
			required[fmt.Sprintf("rtps_throughput/%d", size)] = []string{"samples_per_s", "floor_samples_per_s", "lost"}
		}
		required["rtps_ingest"] = []string{"ours_pct", "floor_pct", "rate"}
	}
	// The ros2 rows need a network namespace (root).
	if os.Geteuid() == 0 || os.Getenv(netns.EnvRequire) == "1" {
		for _, key := range []string{"ros2_confirm", "ros2_confirm_lean"} {
			required[key] = []string{"p50_ms", "p99_ms", "reply_p50_ms", "floor_p50_ms", "floor_taken_p50_ms", "fsync_p50_ms",
				"write_wire_p50_ms", "wire_p50_ms", "http_rtt_p50_ms", "floor_http_p50_ms", "payload_octets"}
		}
		for _, key := range []string{"ros2_stop", "ros2_stop_planners", "ros2_stop_http", "ros2_stop_mixed"} {
			required[key] = []string{"p50_ms", "p99_ms", "wire_p50_ms", "floor_p99_ms", "floor_taken_p99_ms", "payload_octets", "bridge_cpu_share"}
		}
	}
	seen := map[string]bool{}
	for _, r := range rows {
		keys, ok := required[r.Key]
		if !ok {
			t.Errorf("unexpected row %q (%s)", r.Key, r.What)
			continue
		}
		seen[r.Key] = true
		if err := r.Check(keys...); err != nil {
			t.Error(err)
		}
	}
	for key := range required {
		if !seen[key] {
			t.Errorf("no row %s", key)
		}
	}
	t.Logf("tiny table:\n%s", Markdown(rows))
}

// TestBenchTable is the full run behind scripts/bench.sh: it runs only when
// ACTBRIDGE_BENCH_TABLE names the file to write the markdown table to.
// ACTBRIDGE_BENCH_ONLY (comma-separated, from Groups) runs only those rows;
// ACTBRIDGE_BENCH_SIZE=tiny runs them at TinySizes.
func TestBenchTable(t *testing.T) {
	out := os.Getenv("ACTBRIDGE_BENCH_TABLE")
	if out == "" {
		t.Skip("set ACTBRIDGE_BENCH_TABLE=<file> (scripts/bench.sh does) for the full benchmark run")
	}
	only := map[string]bool{}
	for _, g := range strings.FieldsFunc(os.Getenv("ACTBRIDGE_BENCH_ONLY"), func(r rune) bool { return r == ',' || r == ' ' }) {
		if !slices.Contains(Groups, g) {
			t.Fatalf("ACTBRIDGE_BENCH_ONLY: no measurement %q (have %s)", g, strings.Join(Groups, ", "))
		}
		only[g] = true
	}
	sizes := FullSizes()
	if os.Getenv("ACTBRIDGE_BENCH_SIZE") == "tiny" { // to check a group quickly
		sizes = TinySizes()
	}
	start := time.Now()
	rows := RunOnly(newEnv(t), sizes, only)
	table := Markdown(rows)
	if err := os.WriteFile(out, []byte(table), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("full run in %s:\n%s", time.Since(start).Round(time.Second), table)
}

// TestBenchROS2Inside is MeasureROS2's part inside its network namespace:
// it runs only when MeasureROS2 re-executes this binary there.
func TestBenchROS2Inside(t *testing.T) {
	v := os.Getenv(ros2JobEnv)
	if v == "" {
		t.Skip("run by MeasureROS2 (the ros2 rows) inside the namespace it made")
	}
	var job ros2Job
	if err := json.Unmarshal([]byte(v), &job); err != nil {
		t.Fatalf("%s: %v", ros2JobEnv, err)
	}
	MeasureROS2Inside(newEnv(t), job)
}

// BenchmarkPreview7Joints1000Points is the pure preview: one
// arm_follow_trajectory call through the pipeline for a 7-joint arm, the
// full trajectory check included, the preview kept in memory.
func BenchmarkPreview7Joints1000Points(b *testing.B) {
	h, err := NewPreviewHarness(1000, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := h.Preview(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPreviewCompute7Joints1000Points is the preview's computation
// once the arguments are decoded: check, per-joint impact, console plot.
func BenchmarkPreviewCompute7Joints1000Points(b *testing.B) {
	h, err := NewPreviewHarness(1000, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := h.Compute(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheckTrajectory7Joints1000PointsFloor is the check alone, on the
// same trajectory: the floor of a preview.
func BenchmarkCheckTrajectory7Joints1000PointsFloor(b *testing.B) {
	h, err := NewPreviewHarness(1000, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := h.Check(); err != nil {
			b.Fatal(err)
		}
	}
}
