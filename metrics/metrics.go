package metrics

import (
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Options configure New. Actuators bound the actuator label: give every
// configured actuator name, or only "other" will appear.
type Options struct {
	// Tools are the registered tools (ToolsOf); SetTools may give them later.
	Tools []ToolInfo
	// Actuators are the configured actuator names, in config order.
	Actuators []string
	// Now reads the clock for joint_states ages; nil means time.Now.
	Now func() time.Time
}

// Metrics is the bridge's Prometheus side: counters fed by the call
// pipeline, the motion tracker and the store, and gauges read from the robot
// at scrape time. It owns its registry; nothing is registered globally.
type Metrics struct {
	reg       *prometheus.Registry
	handler   http.Handler
	now       func() time.Time
	actuators []string
	known     map[string]bool // configured actuators

	tools  atomic.Pointer[toolTable]
	health atomic.Pointer[func() Health]

	calls             *prometheus.CounterVec   // tool, tier, outcome
	errors            *prometheus.CounterVec   // tool, code
	validation        *prometheus.CounterVec   // layer, role
	latency           *prometheus.HistogramVec // tool
	previewsIssued    *prometheus.CounterVec   // tool
	previewsConfirmed *prometheus.CounterVec   // tool, role
	previewsDenied    *prometheus.CounterVec   // tool, via
	previewsExpired   prometheus.Counter
	previewsStale     prometheus.Counter
	replays           *prometheus.CounterVec   // tool
	motionsFinished   *prometheus.CounterVec   // actuator, state
	motionDuration    *prometheus.HistogramVec // actuator
	commit            prometheus.Histogram
	storeErrors       *prometheus.CounterVec // op

	mu        sync.Mutex
	open      map[string]openMotion // non-terminal motions by id
	finished  *idRing               // motions already counted as finished
	confirmed *idRing               // motions already counted as confirmed
}

// Histogram buckets, in seconds. Calls include motion_status waits (≤ 30 s);
// commits are one fsync; motions run from confirmation to their end.
var (
	callBuckets   = []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30}
	commitBuckets = []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5}
	motionBuckets = []float64{.5, 1, 2, 5, 10, 20, 30, 60, 120, 300, 600}
)

// ringSize bounds the memory of motion ids seen finished or confirmed.
const ringSize = 4096

// New builds the metrics and their registry, with the Go and process
// collectors. Nothing runs in the background.
func New(opts Options) *Metrics {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	m := &Metrics{
		reg:       prometheus.NewRegistry(),
		now:       opts.Now,
		actuators: append([]string(nil), opts.Actuators...),
		known:     map[string]bool{},
		open:      map[string]openMotion{},
		finished:  newIDRing(ringSize),
		confirmed: newIDRing(ringSize),
	}
	for _, a := range opts.Actuators {
		m.known[a] = true
	}
	m.calls = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "actbridge_tool_calls_total",
		Help: "Tool calls finished, by tool, tier and outcome (ok, error, replay).",
	}, []string{"tool", "tier", "outcome"})
	m.errors = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "actbridge_tool_errors_total",
		Help: "Tool calls that failed, by tool and error code.",
	}, []string{"tool", "code"})
	m.validation = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "actbridge_validation_failures_total",
		Help: "Calls refused by a validation layer (schema, semantic, resource), by caller role.",
	}, []string{"layer", "role"})
	m.latency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "actbridge_tool_call_duration_seconds",
		Help:    "Time from a call's arrival in the pipeline to its answer, by tool.",
		Buckets: callBuckets,
	}, []string{"tool"})
	m.previewsIssued = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "actbridge_previews_issued_total",
		Help: "Impact previews returned by preview tools, by tool.",
	}, []string{"tool"})
	m.previewsConfirmed = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "actbridge_previews_confirmed_total",
		Help: "Previews confirmed into a new motion, by the tool that issued the preview and the role that confirmed.",
	}, []string{"tool", "role"})
	m.previewsDenied = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "actbridge_previews_denied_total",
		Help: "Previews an operator denied for good, by the tool that issued the preview and how (console, elicitation).",
	}, []string{"tool", "via"})
	m.previewsExpired = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "actbridge_previews_expired_total",
		Help: "Confirmations refused because the preview had expired.",
	})
	m.previewsStale = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "actbridge_previews_stale_total",
		Help: "Confirmations refused because the robot moved since the preview.",
	})
	m.replays = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "actbridge_idempotent_replays_total",
		Help: "Repeated calls answered from the store instead of acting again, by tool.",
	}, []string{"tool"})
	m.motionsFinished = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "actbridge_motions_finished_total",
		Help: "Motions that reached a terminal state, by actuator and state.",
	}, []string{"actuator", "state"})
	m.motionDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "actbridge_motion_duration_seconds",
		Help:    "Time from a motion's confirmation to its terminal state, by actuator.",
		Buckets: motionBuckets,
	}, []string{"actuator"})
	m.commit = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "actbridge_store_commit_duration_seconds",
		Help:    "Duration of the motion store's fsynced bbolt commits (confirms, terminal states, audit batches; not DB.Batch commits).",
		Buckets: commitBuckets,
	})
	m.storeErrors = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "actbridge_store_errors_total",
		Help: "Motion store operations that failed (not refusals such as not found), by operation.",
	}, []string{"op"})

	m.reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.calls, m.errors, m.validation, m.latency,
		m.previewsIssued, m.previewsConfirmed, m.previewsDenied, m.previewsExpired, m.previewsStale, m.replays,
		m.motionsFinished, m.motionDuration, m.commit, m.storeErrors,
		newScrapeCollector(m),
	)
	m.handler = promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{
		Registry:            m.reg, // counts its own failures
		ErrorHandling:       promhttp.ContinueOnError,
		MaxRequestsInFlight: 4,
		Timeout:             10 * time.Second,
	})
	m.initSeries()
	m.SetTools(opts.Tools)
	return m
}

// Handler serves the registry in the Prometheus exposition formats (/metrics).
func (m *Metrics) Handler() http.Handler { return m.handler }

// initSeries creates every series whose labels are known up front, so rates
// and alerts see them from zero instead of missing their first increment.
func (m *Metrics) initSeries() {
	for _, l := range validationLayers {
		for _, r := range roles {
			m.validation.WithLabelValues(l, r)
		}
	}
	for _, a := range m.actuators {
		for _, s := range terminalStates {
			m.motionsFinished.WithLabelValues(a, string(s))
		}
		m.motionDuration.WithLabelValues(a)
	}
}
