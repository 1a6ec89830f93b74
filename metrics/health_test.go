package metrics

import (
	"errors"
	"math"
	"sync/atomic"
	"testing"
	"time"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/inflight"
)

func TestHealthGaugesAreReadAtScrapeTime(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	stats := &inflight.Stats{FileBytes: 4096, LiveBytes: 1024, Motions: 5, Previews: 6, Keys: 7, Audit: 8}
	for _, tc := range []struct {
		name   string
		health *Health // nil: no source installed
		want   []series
		absent []series
	}{
		{"without a source only the motion gauges exist", nil,
			[]series{s("actbridge_motions_in_flight", 0, "actuator", "arm")},
			[]series{s("actbridge_estop_latched", 0), s("actbridge_ros_master_reachable", 0), s("actbridge_store_healthy", 0)}},
		{"a latched e-stop and a lost master",
			&Health{EStopLatched: true, MasterReachable: false, Reregistrations: 3},
			[]series{s("actbridge_estop_latched", 1), s("actbridge_ros_master_reachable", 0), s("actbridge_ros_master_reregistrations_total", 3)},
			nil},
		{"a clear e-stop and a reachable master",
			&Health{MasterReachable: true},
			[]series{s("actbridge_estop_latched", 0), s("actbridge_ros_master_reachable", 1), s("actbridge_ros_master_reregistrations_total", 0)},
			nil},
		{"connectivity and joint_states age per actuator",
			&Health{Actuators: []ActuatorHealth{
				{Name: "arm", Connected: true, HasJointStates: true, JointStates: now.Add(-1500 * time.Millisecond)},
				{Name: "gripper", Connected: false, HasJointStates: true},
				{Name: "base", Connected: true},
			}},
			[]series{
				s("actbridge_actuator_connected", 1, "actuator", "arm"),
				s("actbridge_actuator_connected", 0, "actuator", "gripper"),
				s("actbridge_actuator_connected", 1, "actuator", "base"),
				s("actbridge_joint_states_age_seconds", 1.5, "actuator", "arm"),
				s("actbridge_joint_states_age_seconds", math.Inf(1), "actuator", "gripper"),
			},
			[]series{s("actbridge_joint_states_age_seconds", 0, "actuator", "base")}},
		{"a clock step backwards never gives a negative age",
			&Health{Actuators: []ActuatorHealth{{Name: "arm", Connected: true, HasJointStates: true, JointStates: now.Add(time.Second)}}},
			[]series{s("actbridge_joint_states_age_seconds", 0, "actuator", "arm")},
			nil},
		{"unconfigured and repeated actuators are not new series",
			&Health{Actuators: []ActuatorHealth{{Name: "arm", Connected: true}, {Name: "arm", Connected: false}, {Name: "tail", Connected: false}}},
			[]series{s("actbridge_actuator_connected", 1, "actuator", "arm")},
			[]series{s("actbridge_actuator_connected", 0, "actuator", "tail"), s("actbridge_actuator_connected", 0, "actuator", Other)}},
		{"a healthy store with its sizes",
			&Health{Store: &StoreHealth{Stats: stats}},
			[]series{
				s("actbridge_store_healthy", 1),
				s("actbridge_store_file_size_bytes", 4096),
				s("actbridge_store_used_bytes", 1024),
				s("actbridge_store_records", 5, "kind", "motions"),
				s("actbridge_store_records", 6, "kind", "previews"),
				s("actbridge_store_records", 7, "kind", "idempotency_keys"),
				s("actbridge_store_records", 8, "kind", "audit"),
			},
			nil},
		{"a failing store without sizes",
			&Health{Store: &StoreHealth{Err: errors.New("disk full")}},
			[]series{s("actbridge_store_healthy", 0)},
			[]series{s("actbridge_store_file_size_bytes", 0)}},
		{"the ROS 2 participant's bounds",
			&Health{DDS: &DDSHealth{Refused: map[string]uint64{"disposes_ignored": 2, "receive_dropped": 0}, ReceiveBytes: 10, ReceiveBytesPeak: 30}},
			[]series{
				s("actbridge_dds_refused_total", 2, "what", "disposes_ignored"),
				s("actbridge_dds_refused_total", 0, "what", "receive_dropped"),
				s("actbridge_dds_receive_held_bytes", 10),
				s("actbridge_dds_receive_held_peak_bytes", 30),
			},
			nil},
		{"another transport, no DDS metrics",
			&Health{},
			nil,
			[]series{s("actbridge_dds_receive_held_bytes", 0)}},
		{"no store reported, no store metrics",
			&Health{},
			nil,
			[]series{s("actbridge_store_healthy", 0), s("actbridge_store_records", 0, "kind", "motions")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newTestMetrics(now)
			if tc.health != nil {
				h := *tc.health
				m.SetHealth(func() Health { return h })
			}
			for _, w := range tc.want {
				if got := mustValue(t, m, w.name, w.pairs...); got != w.want {
					t.Errorf("%s%v = %v, want %v", w.name, w.pairs, got, w.want)
				}
			}
			for _, a := range tc.absent {
				if v, ok := value(t, m, a.name, a.pairs...); ok {
					t.Errorf("%s%v = %v, want no series", a.name, a.pairs, v)
				}
			}
		})
	}
}

func TestHealthIsReadAgainAtEveryScrape(t *testing.T) {
	m := newTestMetrics(time.Now())
	var latched atomic.Bool
	m.SetHealth(func() Health { return Health{EStopLatched: latched.Load()} })
	for _, l := range []bool{false, true, false} {
		latched.Store(l)
		if got := mustValue(t, m, "actbridge_estop_latched"); got != boolValue(l) {
			t.Errorf("latched=%v: gauge %v", l, got)
		}
	}
}

// fakeRobot answers the three questions HealthFrom asks; any other method
// panics (the embedded interface is nil).
type fakeRobot struct {
	actuators.State
	actuators []actuators.ActuatorStatus
	received  time.Time
	master    bool
}

func (r fakeRobot) Actuators() []actuators.ActuatorStatus { return r.actuators }
func (r fakeRobot) Joints() actuators.JointsSnapshot {
	return actuators.JointsSnapshot{Received: r.received}
}
func (r fakeRobot) Connected() bool { return r.master }

type fakeStore struct {
	healthy error
	stats   inflight.Stats
	err     error
	calls   atomic.Int32
}

func (s *fakeStore) Healthy() error { return s.healthy }
func (s *fakeStore) Stats() (inflight.Stats, error) {
	s.calls.Add(1)
	return s.stats, s.err
}

// brokenStore has no Stats, like the stand-in for a store that did not open.
type brokenStore struct{ err error }

func (b brokenStore) Healthy() error { return b.err }

func TestHealthFromReadsRobotEStopAndStore(t *testing.T) {
	now := time.Now()
	robot := fakeRobot{master: true, received: now.Add(-200 * time.Millisecond), actuators: []actuators.ActuatorStatus{
		{Name: "arm", Kind: "arm", Connected: true},
		{Name: "gripper", Kind: "gripper", Connected: false},
		{Name: "base", Kind: "base", Connected: true},
	}}
	st := &fakeStore{stats: inflight.Stats{FileBytes: 100, Motions: 2}}
	h := HealthFrom(Sources{Robot: robot, EStopLatched: func() bool { return true },
		Reregistrations: func() uint64 { return 2 }, Store: st, StatsEvery: time.Hour})()
	if !h.EStopLatched || !h.MasterReachable || h.Reregistrations != 2 {
		t.Errorf("health %+v", h)
	}
	if len(h.Actuators) != 3 || !h.Actuators[0].HasJointStates || !h.Actuators[0].JointStates.Equal(robot.received) ||
		!h.Actuators[1].HasJointStates || h.Actuators[1].Connected || h.Actuators[2].HasJointStates {
		t.Errorf("actuators %+v", h.Actuators)
	}
	if h.Store == nil || h.Store.Err != nil || h.Store.Stats == nil || h.Store.Stats.FileBytes != 100 {
		t.Errorf("store %+v", h.Store)
	}
}

func TestHealthFromWalksTheStoreAtMostOncePerInterval(t *testing.T) {
	st := &fakeStore{stats: inflight.Stats{Motions: 1}}
	f := HealthFrom(Sources{Robot: fakeRobot{}, EStopLatched: func() bool { return false }, Store: st, StatsEvery: time.Hour})
	for i := 0; i < 5; i++ {
		f()
	}
	if n := st.calls.Load(); n != 1 {
		t.Errorf("Stats called %d times, want 1", n)
	}
	f = HealthFrom(Sources{Robot: fakeRobot{}, EStopLatched: func() bool { return false }, Store: st, StatsEvery: time.Nanosecond})
	f()
	time.Sleep(time.Millisecond)
	f()
	if n := st.calls.Load(); n != 3 {
		t.Errorf("Stats called %d times in all, want 3", n)
	}
}

func TestHealthFromReportsAStoreThatCannotBeRead(t *testing.T) {
	for _, tc := range []struct {
		name  string
		store interface{ Healthy() error }
	}{
		{"last write failed", &fakeStore{healthy: errors.New("no space left on device")}},
		{"stats fail", &fakeStore{err: errors.New("corrupt page")}},
		{"store never opened", brokenStore{err: inflight.ErrLocked}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newTestMetrics(time.Now())
			m.SetHealth(HealthFrom(Sources{Robot: fakeRobot{}, EStopLatched: func() bool { return false }, Store: tc.store}))
			if got := mustValue(t, m, "actbridge_store_healthy"); got != 0 {
				t.Errorf("healthy = %v", got)
			}
			if _, ok := value(t, m, "actbridge_store_file_size_bytes"); ok {
				t.Error("sizes reported for a store that cannot be read")
			}
		})
	}
}

func TestAPanickingHealthSourceCostsOnlyItsGauges(t *testing.T) {
	m := newTestMetrics(time.Now())
	m.SetHealth(func() Health { panic("robot gone") })
	if _, ok := value(t, m, "actbridge_estop_latched"); ok {
		t.Error("e-stop reported from a source that panicked")
	}
	if got := mustValue(t, m, "actbridge_motions_in_flight", "actuator", "arm"); got != 0 {
		t.Errorf("in flight = %v", got)
	}
	m.SetHealth(nil)
	if _, ok := value(t, m, "actbridge_estop_latched"); ok {
		t.Error("e-stop reported after SetHealth(nil)")
	}
}
