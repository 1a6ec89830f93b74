package metrics

import (
	"io"
	"net/http/httptest"
	"os"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"

	"github.com/actbridge/actbridge/bridge"
	"github.com/actbridge/actbridge/inflight"
)

// testTools mirror the bridge's tiers: previews, the confirm, a read, a
// write with idempotency keys and a stop.
var testTools = []ToolInfo{
	{Name: "arm_move_joints", Tier: bridge.TierIrreversible, Codes: []bridge.Code{bridge.CodeInvalidArgument, bridge.CodeLimitViolation, bridge.CodeInternal}},
	{Name: "motion_confirm", Tier: bridge.TierIrreversible, Codes: []bridge.Code{bridge.CodeInvalidArgument, bridge.CodeStalePreview, bridge.CodePreviewExpired, bridge.CodeInternal}},
	{Name: "motion_status", Tier: bridge.TierRead, Codes: []bridge.Code{bridge.CodeInvalidArgument, bridge.CodeNotFound, bridge.CodeInternal}},
	{Name: "speed_scale_set", Tier: bridge.TierWrite, Codes: []bridge.Code{bridge.CodeInvalidArgument, bridge.CodeInternal}},
	{Name: "robot_stop", Tier: bridge.TierStop, Codes: []bridge.Code{bridge.CodeInvalidArgument, bridge.CodeInternal}},
	{Name: "service_call", Tier: bridge.TierIrreversible, Codes: []bridge.Code{bridge.CodeInvalidArgument, bridge.CodeInternal}},
	{Name: "preview_deny", Tier: bridge.TierWrite, Codes: []bridge.Code{bridge.CodeNotFound, bridge.CodeInternal}},
}

var testActuators = []string{"arm", "gripper", "base"}

func newTestMetrics(now time.Time) *Metrics {
	return New(Options{Tools: testTools, Actuators: testActuators, Now: func() time.Time { return now }})
}

// find returns the series of family name whose labels are exactly the
// given name/value pairs.
func find(t *testing.T, g prometheus.Gatherer, name string, pairs ...string) (*dto.MetricFamily, *dto.Metric) {
	t.Helper()
	fams, err := g.Gather()
	if err != nil {
		t.Fatalf("gather: %v", err)
	}
	want := map[string]string{}
	for i := 0; i+1 < len(pairs); i += 2 {
		want[pairs[i]] = pairs[i+1]
	}
	for _, f := range fams {
		if f.GetName() != name {
			continue
		}
	metrics:
		for _, m := range f.GetMetric() {
			if len(m.GetLabel()) != len(want) {
				continue
			}
			for _, l := range m.GetLabel() {
				if v, ok := want[l.GetName()]; !ok || v != l.GetValue() {
					continue metrics
				}
			}
			return f, m
		}
		return f, nil
	}
	return nil, nil
}

// value is a counter's or gauge's value, or a histogram's sample count;
// ok is false when the series does not exist.
func value(t *testing.T, m *Metrics, name string, pairs ...string) (v float64, ok bool) {
	t.Helper()
	_, s := find(t, m.reg, name, pairs...)
	switch {
	case s == nil:
		return 0, false
	case s.Counter != nil:
		return s.GetCounter().GetValue(), true
	case s.Gauge != nil:
		return s.GetGauge().GetValue(), true
	case s.Histogram != nil:
		return float64(s.GetHistogram().GetSampleCount()), true
	}
	t.Fatalf("%s: unsupported type", name)
	return 0, false
}

// mustValue is value for a series that must exist.
func mustValue(t *testing.T, m *Metrics, name string, pairs ...string) float64 {
	t.Helper()
	v, ok := value(t, m, name, pairs...)
	if !ok {
		t.Fatalf("no series %s%v", name, pairs)
	}
	return v
}

func TestEachMetricsHasItsOwnRegistryAndLeavesTheGlobalOneAlone(t *testing.T) {
	before, err := prometheus.DefaultGatherer.Gather()
	if err != nil {
		t.Fatal(err)
	}
	a, b := newTestMetrics(time.Now()), newTestMetrics(time.Now())
	a.ObserveCall(bridge.CallRecord{Tool: "motion_status", Outcome: "ok"})
	if got := mustValue(t, a, "actbridge_tool_calls_total", "tool", "motion_status", "tier", "read", "outcome", "ok"); got != 1 {
		t.Errorf("a: %v calls, want 1", got)
	}
	if got := mustValue(t, b, "actbridge_tool_calls_total", "tool", "motion_status", "tier", "read", "outcome", "ok"); got != 0 {
		t.Errorf("b saw a's call: %v", got)
	}
	after, err := prometheus.DefaultGatherer.Gather()
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != len(before) {
		t.Errorf("the default registry changed: %d families, then %d", len(before), len(after))
	}
	for _, f := range after {
		if strings.HasPrefix(f.GetName(), "actbridge_") {
			t.Errorf("%s registered globally", f.GetName())
		}
	}
}

func TestRegistryHoldsGoAndProcessCollectors(t *testing.T) {
	m := newTestMetrics(time.Now())
	for _, name := range []string{"go_goroutines", "go_memstats_alloc_bytes", "process_cpu_seconds_total", "process_resident_memory_bytes"} {
		if f, _ := find(t, m.reg, name); f == nil {
			t.Errorf("%s missing", name)
		}
	}
}

func TestMetricNamesFollowPrometheusConventions(t *testing.T) {
	m := exercised(t)
	problems, err := testutil.GatherAndLint(m.reg)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		if strings.HasPrefix(p.Metric, "actbridge_") {
			t.Errorf("%s: %s", p.Metric, p.Text)
		}
	}
	fams, _ := m.reg.Gather()
	unit := regexp.MustCompile(`_(total|seconds|bytes)$|_(in_flight|unknown|latched|reachable|connected|ambiguous|healthy|records)$`)
	for _, f := range fams {
		if n := f.GetName(); strings.HasPrefix(n, "actbridge_") && !unit.MatchString(n) {
			t.Errorf("%s: name ends in neither a unit nor a known count/state word", n)
		}
	}
}

func TestHandlerServesTheTextFormat(t *testing.T) {
	m := exercised(t)
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()
	resp, err := srv.Client().Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !strings.Contains(string(body), `actbridge_estop_latched 1`) ||
		!strings.Contains(string(body), `actbridge_tool_calls_total{outcome="ok",tier="read",tool="motion_status"}`) {
		t.Errorf("HTTP %d:\n%s", resp.StatusCode, body)
	}
}

// docMetrics are the metric names in launch/METRICS.md's table.
func docMetrics(t *testing.T) []string {
	b, err := os.ReadFile("../launch/METRICS.md")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range regexp.MustCompile("(?m)^\\| `(actbridge_[a-z_]+)` \\|").FindAllStringSubmatch(string(b), -1) {
		out = append(out, m[1])
	}
	sort.Strings(out)
	return out
}

func TestMetricsDocListsExactlyTheExportedMetrics(t *testing.T) {
	m := exercised(t)
	fams, err := m.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var exported []string
	for _, f := range fams {
		if strings.HasPrefix(f.GetName(), "actbridge_") {
			exported = append(exported, f.GetName())
		}
	}
	sort.Strings(exported)
	if doc := docMetrics(t); strings.Join(doc, "\n") != strings.Join(exported, "\n") {
		t.Errorf("launch/METRICS.md lists\n  %v\nthe registry exports\n  %v", doc, exported)
	}
}

func TestConcurrentFeedingAndScrapingIsRaceFree(t *testing.T) {
	m := exercised(t)
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				m.ObserveCall(bridge.CallRecord{Tool: "motion_confirm", Outcome: "ok", Role: bridge.RolePlanner, MotionID: "m" + string(rune('a'+g)) + string(rune(i))})
				m.MotionChanged(inflight.Motion{ID: "c" + string(rune('a'+g)) + string(rune(i)), Actuator: "arm", State: inflight.StateSent})
				m.MotionChanged(inflight.Motion{ID: "c" + string(rune('a'+g)) + string(rune(i)), Actuator: "arm", State: inflight.StateSucceeded})
				m.ObserveCommit(time.Millisecond)
			}
		}()
	}
	for i := 0; i < 20; i++ {
		if _, err := m.reg.Gather(); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	if got := mustValue(t, m, "actbridge_motions_in_flight", "actuator", "arm"); got != 0 {
		t.Errorf("in flight after every motion finished: %v", got)
	}
	if got := mustValue(t, m, "actbridge_motions_finished_total", "actuator", "arm", "state", "succeeded"); got != 800+1 {
		t.Errorf("finished: %v, want 801", got)
	}
}
