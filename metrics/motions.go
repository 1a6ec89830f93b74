package metrics

import (
	"time"

	"github.com/actbridge/actbridge/inflight"
)

// openMotion is what the gauges need of a motion that has not finished.
type openMotion struct {
	actuator string // bounded label
	state    inflight.State
	updated  time.Time
}

// MotionChanged records a motion's new state (bridge.Motions.Changed). Feed
// it Store.NonTerminal() once at start so the gauges count motions left open.
func (m *Metrics) MotionChanged(mo inflight.Motion) {
	if mo.ID == "" {
		return
	}
	act := m.actuatorLabel(mo.Actuator)
	m.mu.Lock()
	if !inflight.IsTerminal(mo.State) {
		// Changed runs on several goroutines: ignore news older than what
		// is known, and anything about a motion already finished.
		if cur, ok := m.open[mo.ID]; (!ok || !mo.UpdatedAt.Before(cur.updated)) && !m.finished.has(mo.ID) {
			m.open[mo.ID] = openMotion{actuator: act, state: mo.State, updated: mo.UpdatedAt}
		}
		m.mu.Unlock()
		return
	}
	delete(m.open, mo.ID)
	first := m.finished.add(mo.ID) // a terminal state reported twice counts once
	m.mu.Unlock()
	if !first {
		return
	}
	m.motionsFinished.WithLabelValues(act, string(mo.State)).Inc()
	if d := mo.UpdatedAt.Sub(mo.CreatedAt); !mo.CreatedAt.IsZero() && d >= 0 {
		m.motionDuration.WithLabelValues(act).Observe(d.Seconds())
	}
}

// openCounts returns, per actuator label, the motions in flight (confirmed
// to active) and those in state unknown.
func (m *Metrics) openCounts() (inFlight, unknown map[string]int) {
	inFlight, unknown = map[string]int{}, map[string]int{}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, o := range m.open {
		if o.state == inflight.StateUnknown {
			unknown[o.actuator]++
		} else {
			inFlight[o.actuator]++
		}
	}
	return inFlight, unknown
}
