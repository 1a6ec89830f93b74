package metrics

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/actbridge/actbridge/bridge"
)

// series names one sample and the value it must have.
type series struct {
	name  string
	pairs []string
	want  float64
}

func s(name string, want float64, pairs ...string) series { return series{name, pairs, want} }

func TestCallRecordsFeedCallsErrorsPreviewsAndReplays(t *testing.T) {
	planner, operator := bridge.RolePlanner, bridge.RoleOperator
	for _, tc := range []struct {
		name string
		recs []bridge.CallRecord
		want []series
	}{
		{"a successful read counts once under its tool and tier",
			[]bridge.CallRecord{{Tool: "motion_status", Tier: bridge.TierRead, Role: planner, Outcome: "ok"}},
			[]series{
				s("actbridge_tool_calls_total", 1, "tool", "motion_status", "tier", "read", "outcome", "ok"),
				s("actbridge_tool_call_duration_seconds", 1, "tool", "motion_status"),
				s("actbridge_previews_issued_total", 0, "tool", "arm_move_joints"),
			}},
		{"an unregistered tool name is bounded, not a new label value",
			[]bridge.CallRecord{{Tool: "arm_teleport_anywhere", Role: planner, Outcome: "error", Code: bridge.CodeNotFound, Layer: bridge.LayerSchema}},
			[]series{
				s("actbridge_tool_calls_total", 1, "tool", UnregisteredTool, "tier", NoTier, "outcome", "error"),
				s("actbridge_tool_errors_total", 1, "tool", UnregisteredTool, "code", "not_found"),
				s("actbridge_validation_failures_total", 1, "layer", "schema", "role", "planner"),
			}},
		{"a preview tool's ok call issues a preview",
			[]bridge.CallRecord{{Tool: "arm_move_joints", Tier: bridge.TierIrreversible, Role: planner, Outcome: "ok", PreviewOf: "arm_move_joints"}},
			[]series{
				s("actbridge_previews_issued_total", 1, "tool", "arm_move_joints"),
				s("actbridge_previews_confirmed_total", 0, "tool", "arm_move_joints", "role", "planner"),
			}},
		{"a service_call answered at once issues no preview; a previewed one does",
			[]bridge.CallRecord{
				{Tool: "service_call", Tier: bridge.TierIrreversible, Role: planner, Outcome: "ok"},
				{Tool: "service_call", Tier: bridge.TierIrreversible, Role: planner, Outcome: "ok"},
				{Tool: "service_call", Tier: bridge.TierIrreversible, Role: planner, Outcome: "ok", PreviewOf: "service_call"},
			},
			[]series{
				s("actbridge_previews_issued_total", 1, "tool", "service_call"),
				s("actbridge_tool_calls_total", 3, "tool", "service_call", "tier", "irreversible", "outcome", "ok"),
			}},
		{"confirmations count under the tool that issued the preview",
			[]bridge.CallRecord{
				{Tool: "motion_confirm", Tier: bridge.TierIrreversible, Role: planner, Outcome: "ok", MotionID: "m1", PreviewOf: "service_call"},
				{Tool: "motion_confirm", Tier: bridge.TierIrreversible, Role: operator, Outcome: "ok", MotionID: "m2", PreviewOf: "arm_move_joints"},
				{Tool: "motion_confirm", Tier: bridge.TierIrreversible, Role: planner, Outcome: "ok", MotionID: "m3", PreviewOf: "arm_teleport"},
			},
			[]series{
				s("actbridge_previews_confirmed_total", 1, "tool", "service_call", "role", "planner"),
				s("actbridge_previews_confirmed_total", 1, "tool", "arm_move_joints", "role", "operator"),
				s("actbridge_previews_confirmed_total", 1, "tool", Other, "role", "planner"),
				s("actbridge_previews_issued_total", 0, "tool", "service_call"),
			}},
		{"a console denial counts under the preview's tool, not as an unregistered call",
			[]bridge.CallRecord{{Tool: "preview_deny", Tier: bridge.TierWrite, Role: operator, Outcome: "ok", PreviewOf: "arm_move_joints", Denial: bridge.DenialConsole}},
			[]series{
				s("actbridge_previews_denied_total", 1, "tool", "arm_move_joints", "via", "console"),
				s("actbridge_tool_calls_total", 1, "tool", "preview_deny", "tier", "write", "outcome", "ok"),
				s("actbridge_previews_issued_total", 0, "tool", "arm_move_joints"),
			}},
		{"a denial by elicitation counts under the preview's tool, not as a confirmation",
			[]bridge.CallRecord{{Tool: "motion_confirm", Tier: bridge.TierIrreversible, Role: planner, Outcome: "error", Code: bridge.CodePermissionDenied,
				Layer: bridge.LayerExecution, MotionID: "m1", PreviewOf: "service_call", Denial: bridge.DenialElicitation}},
			[]series{
				s("actbridge_previews_denied_total", 1, "tool", "service_call", "via", "elicitation"),
				s("actbridge_previews_denied_total", 0, "tool", "service_call", "via", "console"),
				s("actbridge_previews_confirmed_total", 0, "tool", "service_call", "role", "planner"),
			}},
		{"a refused preview issues nothing and counts the limit violation",
			[]bridge.CallRecord{{Tool: "arm_move_joints", Tier: bridge.TierIrreversible, Role: planner, Outcome: "error", Code: bridge.CodeLimitViolation, Layer: bridge.LayerSemantic}},
			[]series{
				s("actbridge_previews_issued_total", 0, "tool", "arm_move_joints"),
				s("actbridge_tool_errors_total", 1, "tool", "arm_move_joints", "code", "limit_violation"),
				s("actbridge_validation_failures_total", 1, "layer", "semantic", "role", "planner"),
			}},
		{"confirming the same preview twice is one confirmation and one replay",
			[]bridge.CallRecord{
				{Tool: "motion_confirm", Tier: bridge.TierIrreversible, Role: planner, Outcome: "ok", MotionID: "m1", PreviewOf: "arm_move_joints"},
				{Tool: "motion_confirm", Tier: bridge.TierIrreversible, Role: planner, Outcome: "ok", MotionID: "m1", PreviewOf: "arm_move_joints"},
			},
			[]series{
				s("actbridge_previews_confirmed_total", 1, "tool", "arm_move_joints", "role", "planner"),
				s("actbridge_idempotent_replays_total", 1, "tool", "motion_confirm"),
				s("actbridge_tool_calls_total", 2, "tool", "motion_confirm", "tier", "irreversible", "outcome", "ok"),
			}},
		{"a confirm the pipeline marks as replay is a replay, not a confirmation",
			[]bridge.CallRecord{{Tool: "motion_confirm", Tier: bridge.TierIrreversible, Role: planner, Outcome: "replay", MotionID: "m1"}},
			[]series{
				s("actbridge_previews_confirmed_total", 0, "tool", "arm_move_joints", "role", "planner"),
				s("actbridge_idempotent_replays_total", 1, "tool", "motion_confirm"),
			}},
		{"confirmations count by the role that confirmed",
			[]bridge.CallRecord{
				{Tool: "motion_confirm", Tier: bridge.TierIrreversible, Role: operator, Outcome: "ok", MotionID: "m1", PreviewOf: "arm_move_joints"},
				{Tool: "motion_confirm", Tier: bridge.TierIrreversible, Role: operator, Outcome: "ok", MotionID: "m2", PreviewOf: "arm_move_joints"},
				{Tool: "motion_confirm", Tier: bridge.TierIrreversible, Role: planner, Outcome: "ok", MotionID: "m3", PreviewOf: "arm_move_joints"},
				// the client's user approved by elicitation: the operator's confirmation
				{Tool: "motion_confirm", Tier: bridge.TierIrreversible, Role: planner, Outcome: "ok", MotionID: "m4", PreviewOf: "arm_move_joints", Via: bridge.ViaElicitation},
			},
			[]series{
				s("actbridge_previews_confirmed_total", 3, "tool", "arm_move_joints", "role", "operator"),
				s("actbridge_previews_confirmed_total", 1, "tool", "arm_move_joints", "role", "planner"),
			}},
		{"an expired preview is counted from the confirm's refusal",
			[]bridge.CallRecord{{Tool: "motion_confirm", Tier: bridge.TierIrreversible, Role: planner, Outcome: "error", Code: bridge.CodePreviewExpired, Layer: bridge.LayerSemantic, MotionID: "m1"}},
			[]series{
				s("actbridge_previews_expired_total", 1),
				s("actbridge_previews_stale_total", 0),
				s("actbridge_previews_confirmed_total", 0, "tool", "arm_move_joints", "role", "planner"),
				s("actbridge_tool_errors_total", 1, "tool", "motion_confirm", "code", "preview_expired"),
			}},
		{"a stale preview is counted from the confirm's refusal",
			[]bridge.CallRecord{{Tool: "motion_confirm", Tier: bridge.TierIrreversible, Role: planner, Outcome: "error", Code: bridge.CodeStalePreview, Layer: bridge.LayerResource}},
			[]series{
				s("actbridge_previews_stale_total", 1),
				s("actbridge_previews_expired_total", 0),
				s("actbridge_validation_failures_total", 1, "layer", "resource", "role", "planner"),
			}},
		{"a write served from the idempotency store is a replay",
			[]bridge.CallRecord{{Tool: "speed_scale_set", Tier: bridge.TierWrite, Role: planner, Outcome: "replay"}},
			[]series{
				s("actbridge_idempotent_replays_total", 1, "tool", "speed_scale_set"),
				s("actbridge_tool_calls_total", 1, "tool", "speed_scale_set", "tier", "write", "outcome", "replay"),
			}},
		{"an execution error is an error but no validation failure",
			[]bridge.CallRecord{{Tool: "robot_stop", Tier: bridge.TierStop, Role: operator, Outcome: "error", Code: bridge.CodeInternal, Layer: bridge.LayerExecution}},
			[]series{
				s("actbridge_tool_errors_total", 1, "tool", "robot_stop", "code", "internal"),
				s("actbridge_validation_failures_total", 0, "layer", "schema", "role", "operator"),
				s("actbridge_validation_failures_total", 0, "layer", "semantic", "role", "operator"),
				s("actbridge_validation_failures_total", 0, "layer", "resource", "role", "operator"),
			}},
		{"out-of-set codes, roles and outcomes collapse into other",
			[]bridge.CallRecord{
				{Tool: "motion_status", Role: "intruder", Outcome: "error", Code: "made_up", Layer: bridge.LayerSchema},
				{Tool: "motion_status", Outcome: "weird"},
			},
			[]series{
				s("actbridge_tool_errors_total", 1, "tool", "motion_status", "code", Other),
				s("actbridge_validation_failures_total", 1, "layer", "schema", "role", Other),
				s("actbridge_tool_calls_total", 1, "tool", "motion_status", "tier", "read", "outcome", Other),
			}},
		{"a call without a role is anonymous",
			[]bridge.CallRecord{{Tool: "motion_status", Outcome: "error", Code: bridge.CodeInvalidArgument, Layer: bridge.LayerSchema}},
			[]series{s("actbridge_validation_failures_total", 1, "layer", "schema", "role", Anonymous)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newTestMetrics(time.Now())
			for _, r := range tc.recs {
				m.ObserveCall(r)
			}
			for _, w := range tc.want {
				if got := mustValue(t, m, w.name, w.pairs...); got != w.want {
					t.Errorf("%s%v = %v, want %v", w.name, w.pairs, got, w.want)
				}
			}
		})
	}
}

func TestSeriesOfRegisteredToolsStartAtZero(t *testing.T) {
	m := newTestMetrics(time.Now())
	for _, w := range []series{
		s("actbridge_tool_calls_total", 0, "tool", "robot_stop", "tier", "stop", "outcome", "ok"),
		s("actbridge_tool_calls_total", 0, "tool", "robot_stop", "tier", "stop", "outcome", "error"),
		s("actbridge_tool_errors_total", 0, "tool", "motion_confirm", "code", "stale_preview"),
		s("actbridge_tool_call_duration_seconds", 0, "tool", "arm_move_joints"),
		s("actbridge_previews_issued_total", 0, "tool", "arm_move_joints"),
		s("actbridge_idempotent_replays_total", 0, "tool", "speed_scale_set"),
		s("actbridge_idempotent_replays_total", 0, "tool", "motion_confirm"),
		s("actbridge_validation_failures_total", 0, "layer", "resource", "role", "planner"),
		s("actbridge_previews_confirmed_total", 0, "tool", "arm_move_joints", "role", "operator"),
		s("actbridge_previews_denied_total", 0, "tool", "service_call", "via", "elicitation"),
	} {
		if got := mustValue(t, m, w.name, w.pairs...); got != w.want {
			t.Errorf("%s%v = %v, want %v", w.name, w.pairs, got, w.want)
		}
	}
	if _, ok := value(t, m, "actbridge_previews_issued_total", "tool", "motion_confirm"); ok {
		t.Error("motion_confirm has a previews_issued series: it confirms, it does not preview")
	}
}

func TestSetToolsLaterAdmitsTheirNames(t *testing.T) {
	m := New(Options{Actuators: testActuators})
	m.ObserveCall(bridge.CallRecord{Tool: "motion_status", Outcome: "ok"})
	m.SetTools(testTools)
	m.ObserveCall(bridge.CallRecord{Tool: "motion_status", Outcome: "ok"})
	if got := mustValue(t, m, "actbridge_tool_calls_total", "tool", UnregisteredTool, "tier", NoTier, "outcome", "ok"); got != 1 {
		t.Errorf("before SetTools: %v, want 1 unregistered", got)
	}
	if got := mustValue(t, m, "actbridge_tool_calls_total", "tool", "motion_status", "tier", "read", "outcome", "ok"); got != 1 {
		t.Errorf("after SetTools: %v, want 1", got)
	}
}

func TestCallLatencyLandsInSecondBuckets(t *testing.T) {
	m := newTestMetrics(time.Now())
	for _, d := range []time.Duration{2 * time.Millisecond, 40 * time.Millisecond, 20 * time.Second} {
		m.ObserveCall(bridge.CallRecord{Tool: "motion_status", Outcome: "ok", Latency: d})
	}
	want := `
# HELP actbridge_tool_call_duration_seconds Time from a call's arrival in the pipeline to its answer, by tool.
# TYPE actbridge_tool_call_duration_seconds histogram
actbridge_tool_call_duration_seconds_bucket{tool="motion_status",le="0.001"} 0
actbridge_tool_call_duration_seconds_bucket{tool="motion_status",le="0.0025"} 1
actbridge_tool_call_duration_seconds_bucket{tool="motion_status",le="0.005"} 1
actbridge_tool_call_duration_seconds_bucket{tool="motion_status",le="0.01"} 1
actbridge_tool_call_duration_seconds_bucket{tool="motion_status",le="0.025"} 1
actbridge_tool_call_duration_seconds_bucket{tool="motion_status",le="0.05"} 2
actbridge_tool_call_duration_seconds_bucket{tool="motion_status",le="0.1"} 2
actbridge_tool_call_duration_seconds_bucket{tool="motion_status",le="0.25"} 2
actbridge_tool_call_duration_seconds_bucket{tool="motion_status",le="0.5"} 2
actbridge_tool_call_duration_seconds_bucket{tool="motion_status",le="1"} 2
actbridge_tool_call_duration_seconds_bucket{tool="motion_status",le="2.5"} 2
actbridge_tool_call_duration_seconds_bucket{tool="motion_status",le="5"} 2
actbridge_tool_call_duration_seconds_bucket{tool="motion_status",le="10"} 2
actbridge_tool_call_duration_seconds_bucket{tool="motion_status",le="30"} 3
actbridge_tool_call_duration_seconds_bucket{tool="motion_status",le="+Inf"} 3
actbridge_tool_call_duration_seconds_sum{tool="motion_status"} 20.042
actbridge_tool_call_duration_seconds_count{tool="motion_status"} 3
`
	// Only this tool's series: the others start at zero and are not compared.
	h, _ := m.latency.GetMetricWithLabelValues("motion_status")
	if err := testutil.CollectAndCompare(h.(prometheus.Collector), strings.NewReader(want)); err != nil {
		t.Error(err)
	}
}

// memIdem is an in-memory idempotency store for the pipeline test.
type memIdem struct {
	mu sync.Mutex
	m  map[string]json.RawMessage
}

func (i *memIdem) Lookup(key, digest string) (json.RawMessage, bool, error) {
	i.mu.Lock()
	defer i.mu.Unlock()
	r, ok := i.m[key+digest]
	return r, ok, nil
}

func (i *memIdem) Remember(_ context.Context, key, digest string, result json.RawMessage) error {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.m[key+digest] = result
	return nil
}

// TestPipelineRecordsFeedTheCounters runs real calls through the bridge's
// pipeline, so the metrics are checked against the records it really
// produces (outcomes, layers), not against assumptions about them.
func TestPipelineRecordsFeedTheCounters(t *testing.T) {
	desc := bridge.Describe("Test tool.", "testing.", "anything else.", "none.", "{ok}.")
	reg := bridge.NewRegistry()
	reg.MustAdd(&bridge.Tool{
		Name: "gauge_read", Group: "gauge", Tier: bridge.TierRead, Description: desc,
		Input:  bridge.Object("", map[string]*bridge.Schema{"n": bridge.Num("A number.", 0, 100)}, "n"),
		Output: &bridge.Schema{Type: "object", Open: true},
		Errors: []bridge.Code{bridge.CodeInvalidArgument, bridge.CodeLimitViolation, bridge.CodeBusy, bridge.CodeInternal},
		Semantic: func(_ context.Context, c *bridge.Call) error {
			if c.Values["n"] == json.Number("13") {
				return bridge.RuleError(bridge.CodeLimitViolation, "not_13", "n", "13 is refused")
			}
			return nil
		},
		Ready: func(_ context.Context, c *bridge.Call) error {
			if c.Values["n"] == json.Number("5") {
				return bridge.StateError(bridge.CodeBusy, "busy", "later", "5 is busy")
			}
			return nil
		},
		Call: func(_ context.Context, c *bridge.Call) (any, error) {
			if c.Values["n"] == json.Number("99") {
				return nil, errors.New("exploded")
			}
			return map[string]any{"ok": true}, nil
		},
	}, &bridge.Tool{
		Name: "gauge_set", Group: "gauge", Tier: bridge.TierWrite, Description: desc,
		Input: bridge.Object("", map[string]*bridge.Schema{
			"n":               bridge.Num("A number.", 0, 100),
			"idempotency_key": bridge.Str("Key. Default none.", 64),
		}, "n"),
		Output: &bridge.Schema{Type: "object", Open: true},
		Errors: []bridge.Code{bridge.CodeInvalidArgument, bridge.CodeInternal},
		Call:   func(context.Context, *bridge.Call) (any, error) { return map[string]any{"ok": true}, nil },
	})
	m := New(Options{Tools: ToolsOf(reg), Actuators: testActuators})
	p := bridge.NewPipeline(reg, bridge.PipelineDeps{})
	p.Idem = &memIdem{m: map[string]json.RawMessage{}}
	p.Observer = m
	inv := bridge.Invocation{Role: bridge.RolePlanner, Session: "s1"}
	for _, args := range []string{`{"n": 1}`, `{"n": "one"}`, `{"n": 13}`, `{"n": 5}`, `{"n": 99}`} {
		p.Call(context.Background(), "gauge_read", json.RawMessage(args), inv)
	}
	p.Call(context.Background(), "gauge_reed", json.RawMessage(`{}`), inv)
	for i := 0; i < 2; i++ {
		p.Call(context.Background(), "gauge_set", json.RawMessage(`{"n": 3, "idempotency_key": "k1"}`), inv)
	}
	for _, w := range []series{
		s("actbridge_tool_calls_total", 1, "tool", "gauge_read", "tier", "read", "outcome", "ok"),
		s("actbridge_tool_calls_total", 4, "tool", "gauge_read", "tier", "read", "outcome", "error"),
		s("actbridge_tool_errors_total", 1, "tool", "gauge_read", "code", "invalid_argument"),
		s("actbridge_tool_errors_total", 1, "tool", "gauge_read", "code", "limit_violation"),
		s("actbridge_tool_errors_total", 1, "tool", "gauge_read", "code", "busy"),
		s("actbridge_tool_errors_total", 1, "tool", "gauge_read", "code", "internal"),
		s("actbridge_validation_failures_total", 2, "layer", "schema", "role", "planner"), // "one" and the unknown tool
		s("actbridge_validation_failures_total", 1, "layer", "semantic", "role", "planner"),
		s("actbridge_validation_failures_total", 1, "layer", "resource", "role", "planner"),
		s("actbridge_tool_calls_total", 1, "tool", UnregisteredTool, "tier", NoTier, "outcome", "error"),
		s("actbridge_tool_calls_total", 1, "tool", "gauge_set", "tier", "write", "outcome", "ok"),
		s("actbridge_tool_calls_total", 1, "tool", "gauge_set", "tier", "write", "outcome", "replay"),
		s("actbridge_idempotent_replays_total", 1, "tool", "gauge_set"),
		s("actbridge_tool_call_duration_seconds", 5, "tool", "gauge_read"),
	} {
		if got := mustValue(t, m, w.name, w.pairs...); got != w.want {
			t.Errorf("%s%v = %v, want %v", w.name, w.pairs, got, w.want)
		}
	}
}
