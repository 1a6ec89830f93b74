package metrics

import (
	"math"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/inflight"
)

// Health is the robot and store as one scrape sees them.
type Health struct {
	EStopLatched    bool
	MasterReachable bool
	// Reregistrations counts the bridge's re-registrations after master restarts.
	Reregistrations uint64
	Actuators       []ActuatorHealth
	Store           *StoreHealth // nil: no store metrics
	DDS             *DDSHealth   // nil: not the ROS 2 transport
}

// DDSHealth is what the ROS 2 transport's participant refused or gave up
// of what others sent it, within its bounds (rtps.Stats).
type DDSHealth struct {
	// Refused counts by what: "disposes_ignored", "participants_evicted",
	// "participants_refused", "endpoints_evicted", "endpoints_refused",
	// "leases_capped", "receive_dropped", "discovery_server_restarts", "discovery_server_impostors",
	// "discovery_server_relays_dropped".
	Refused map[string]uint64
	// ReceiveBytes is what its readers hold out of order and in partial
	// fragmented samples; ReceiveBytesPeak the most they held.
	ReceiveBytes, ReceiveBytesPeak int
}

// ActuatorHealth is one actuator's link to its controller or action server.
type ActuatorHealth struct {
	Name      string
	Connected bool
	// Ambiguous: more than one server of its action or publisher of its
	// state where one is expected; no motion is sent to it.
	Ambiguous bool
	// Foreign counts messages about its goals from a participant other
	// than the goal's server, ignored.
	Foreign uint64
	// HasJointStates marks actuators fed by joint_states; JointStates is
	// when the last one arrived (zero: never, reported as +Inf seconds old).
	HasJointStates bool
	JointStates    time.Time
}

// StoreHealth is the motion store's state.
type StoreHealth struct {
	Err   error           // why irreversible calls are refused (Store.Healthy); nil when healthy
	Stats *inflight.Stats // nil when unknown
}

// SetHealth installs the function read at every scrape; it must be cheap
// and safe to call from any goroutine. HealthFrom builds one.
func (m *Metrics) SetHealth(f func() Health) {
	if f == nil {
		m.health.Store(nil)
		return
	}
	m.health.Store(&f)
}

// readHealth calls the installed source; a panic in it costs the health
// gauges of one scrape, never the bridge (collectors run on their own goroutines).
func (m *Metrics) readHealth() (h Health, ok bool) {
	f := m.health.Load()
	if f == nil {
		return Health{}, false
	}
	defer func() {
		if recover() != nil {
			h, ok = Health{}, false
		}
	}()
	return (*f)(), true
}

// Sources are what HealthFrom reads. Robot and EStopLatched are required;
// Reregistrations may be nil (reported as 0) and Store may be nil (no
// store metrics).
type Sources struct {
	Robot           actuators.State
	EStopLatched    func() bool
	Reregistrations func() uint64
	// DDS reads the ROS 2 participant's bounds; nil for other transports.
	DDS func() DDSHealth
	// Store is the *inflight.Store, or what stands in for one that failed to
	// open; its Stats, if it has them, are read at most every StatsEvery.
	Store interface{ Healthy() error }
	// StatsEvery bounds how often the store's buckets are walked; zero means 10 s.
	StatsEvery time.Duration
}

type statser interface {
	Stats() (inflight.Stats, error)
}

// HealthFrom reads health from the robot, the e-stop and the store. Arms and
// grippers report the age of the merged joint_states (its oldest topic).
func HealthFrom(s Sources) func() Health {
	if s.StatsEvery <= 0 {
		s.StatsEvery = 10 * time.Second
	}
	var (
		mu    sync.Mutex
		at    time.Time
		stats *inflight.Stats
	)
	readStats := func(st statser) (*inflight.Stats, error) {
		mu.Lock()
		defer mu.Unlock()
		if stats != nil && time.Since(at) < s.StatsEvery {
			return stats, nil
		}
		v, err := st.Stats()
		if err != nil {
			stats = nil
			return nil, err
		}
		stats, at = &v, time.Now()
		return stats, nil
	}
	return func() Health {
		h := Health{EStopLatched: s.EStopLatched(), MasterReachable: s.Robot.Connected()}
		if s.Reregistrations != nil {
			h.Reregistrations = s.Reregistrations()
		}
		if s.DDS != nil {
			d := s.DDS()
			h.DDS = &d
		}
		received := s.Robot.Joints().Received
		for _, a := range s.Robot.Actuators() {
			ah := ActuatorHealth{Name: a.Name, Connected: a.Connected, Ambiguous: a.Ambiguous != "", Foreign: a.Foreign}
			if a.Kind == actuators.KindArm || a.Kind == actuators.KindGripper {
				ah.HasJointStates, ah.JointStates = true, received
			}
			h.Actuators = append(h.Actuators, ah)
		}
		if s.Store != nil {
			sh := &StoreHealth{Err: s.Store.Healthy()}
			if st, ok := s.Store.(statser); ok && sh.Err == nil {
				var err error
				if sh.Stats, err = readStats(st); err != nil {
					sh.Err = err
				}
			}
			h.Store = sh
		}
		return h
	}
}

// scrapeCollector reads the gauges at collection time: no goroutine keeps
// them up to date, so a scrape always sees the present.
type scrapeCollector struct {
	m *Metrics

	inFlight, unknown, estop, master, rereg, connected, jointAge *prometheus.Desc
	ambiguous, foreign                                           *prometheus.Desc
	storeHealthy, storeFile, storeUsed, storeRecords             *prometheus.Desc
	ddsRefused, ddsHeld, ddsHeldPeak                             *prometheus.Desc
}

func newScrapeCollector(m *Metrics) *scrapeCollector {
	d := prometheus.NewDesc
	return &scrapeCollector{m: m,
		inFlight: d("actbridge_motions_in_flight",
			"Motions confirmed and not yet finished (confirmed, dispatching, sent, active), by actuator.", []string{"actuator"}, nil),
		unknown: d("actbridge_motions_unknown",
			"Motions the robot no longer reports (state unknown), by actuator; read state before sending more.", []string{"actuator"}, nil),
		estop:  d("actbridge_estop_latched", "1 while the e-stop is latched.", nil, nil),
		master: d("actbridge_ros_master_reachable", "1 while the ROS master answers.", nil, nil),
		rereg: d("actbridge_ros_master_reregistrations_total",
			"Times the bridge registered again after a ROS master restart.", nil, nil),
		connected: d("actbridge_actuator_connected",
			"1 while the actuator's controller or action server is connected, by actuator.", []string{"actuator"}, nil),
		ambiguous: d("actbridge_actuator_ambiguous",
			"1 while more than one server of the actuator's action, or publisher of its state, is found where one is expected: no motion is sent to it.", []string{"actuator"}, nil),
		foreign: d("actbridge_actuator_foreign_messages_total",
			"Messages about the actuator's goals (status, feedback, replies) from a participant other than the goal's server, ignored.", []string{"actuator"}, nil),
		jointAge: d("actbridge_joint_states_age_seconds",
			"Age of the latest joint_states of the actuator; +Inf before the first.", []string{"actuator"}, nil),
		storeHealthy: d("actbridge_store_healthy",
			"1 while the motion store accepts writes; irreversible calls are refused otherwise.", nil, nil),
		storeFile:    d("actbridge_store_file_size_bytes", "Size of the motion store file on disk.", nil, nil),
		storeUsed:    d("actbridge_store_used_bytes", "Bytes of the motion store file in use (the rest is free pages).", nil, nil),
		storeRecords: d("actbridge_store_records", "Records in the motion store, by kind.", []string{"kind"}, nil),
		ddsRefused: d("actbridge_dds_refused_total",
			"What the ROS 2 participant refused or gave up of what others sent, to stay within its bounds, by what.", []string{"what"}, nil),
		ddsHeld: d("actbridge_dds_receive_held_bytes",
			"Bytes the ROS 2 readers hold of samples ahead of a missing one and of partly received ones.", nil, nil),
		ddsHeldPeak: d("actbridge_dds_receive_held_peak_bytes",
			"The most bytes the ROS 2 readers held so (never above the receive budget).", nil, nil),
	}
}

func (c *scrapeCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.inFlight, c.unknown, c.estop, c.master, c.rereg,
		c.connected, c.ambiguous, c.foreign, c.jointAge, c.storeHealthy, c.storeFile, c.storeUsed, c.storeRecords, c.ddsRefused, c.ddsHeld, c.ddsHeldPeak} {
		ch <- d
	}
}

func (c *scrapeCollector) Collect(ch chan<- prometheus.Metric) {
	m := c.m
	inFlight, unknown := m.openCounts()
	for _, a := range m.actuators {
		ch <- gauge(c.inFlight, float64(inFlight[a]), a)
		ch <- gauge(c.unknown, float64(unknown[a]), a)
	}
	if n := inFlight[Other]; n > 0 {
		ch <- gauge(c.inFlight, float64(n), Other)
	}
	if n := unknown[Other]; n > 0 {
		ch <- gauge(c.unknown, float64(n), Other)
	}
	h, ok := m.readHealth()
	if !ok {
		return
	}
	ch <- gauge(c.estop, boolValue(h.EStopLatched))
	ch <- gauge(c.master, boolValue(h.MasterReachable))
	ch <- prometheus.MustNewConstMetric(c.rereg, prometheus.CounterValue, float64(h.Reregistrations))
	if d := h.DDS; d != nil {
		for what, n := range d.Refused {
			ch <- prometheus.MustNewConstMetric(c.ddsRefused, prometheus.CounterValue, float64(n), what)
		}
		ch <- gauge(c.ddsHeld, float64(d.ReceiveBytes))
		ch <- gauge(c.ddsHeldPeak, float64(d.ReceiveBytesPeak))
	}
	now := m.now()
	seen := map[string]bool{}
	for _, a := range h.Actuators {
		if !m.known[a.Name] || seen[a.Name] {
			continue // unconfigured names would be unbounded labels
		}
		seen[a.Name] = true
		ch <- gauge(c.connected, boolValue(a.Connected), a.Name)
		ch <- gauge(c.ambiguous, boolValue(a.Ambiguous), a.Name)
		ch <- prometheus.MustNewConstMetric(c.foreign, prometheus.CounterValue, float64(a.Foreign), a.Name)
		if a.HasJointStates {
			age := math.Inf(1)
			if !a.JointStates.IsZero() {
				age = math.Max(0, now.Sub(a.JointStates).Seconds())
			}
			ch <- gauge(c.jointAge, age, a.Name)
		}
	}
	if s := h.Store; s != nil {
		ch <- gauge(c.storeHealthy, boolValue(s.Err == nil))
		if st := s.Stats; st != nil {
			ch <- gauge(c.storeFile, float64(st.FileBytes))
			ch <- gauge(c.storeUsed, float64(st.LiveBytes))
			for kind, n := range map[string]int{"motions": st.Motions, "previews": st.Previews, "idempotency_keys": st.Keys, "audit": st.Audit} {
				ch <- gauge(c.storeRecords, float64(n), kind)
			}
		}
	}
}

func gauge(d *prometheus.Desc, v float64, labels ...string) prometheus.Metric {
	return prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
}

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
