package metrics

import (
	"errors"
	"testing"
	"time"

	"github.com/actbridge/actbridge/bridge"
	"github.com/actbridge/actbridge/inflight"
)

// exercised returns metrics that have seen one of everything: every family
// the bridge can export is then present in a Gather.
func exercised(t *testing.T) *Metrics {
	t.Helper()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	m := newTestMetrics(now)
	for _, rec := range []bridge.CallRecord{
		{Tool: "motion_status", Tier: bridge.TierRead, Role: bridge.RolePlanner, Outcome: "ok", Latency: 3 * time.Millisecond},
		{Tool: "arm_move_joints", Tier: bridge.TierIrreversible, Role: bridge.RolePlanner, Outcome: "ok", Latency: 20 * time.Millisecond},
		{Tool: "arm_move_joints", Tier: bridge.TierIrreversible, Role: bridge.RolePlanner, Outcome: "error", Code: bridge.CodeLimitViolation, Layer: bridge.LayerSemantic},
		{Tool: "motion_confirm", Tier: bridge.TierIrreversible, Role: bridge.RolePlanner, Outcome: "ok", MotionID: "m1"},
		{Tool: "motion_confirm", Tier: bridge.TierIrreversible, Role: bridge.RolePlanner, Outcome: "error", Code: bridge.CodePreviewExpired, Layer: bridge.LayerSemantic},
		{Tool: "motion_confirm", Tier: bridge.TierIrreversible, Role: bridge.RolePlanner, Outcome: "error", Code: bridge.CodeStalePreview, Layer: bridge.LayerResource},
		{Tool: "speed_scale_set", Tier: bridge.TierWrite, Role: bridge.RolePlanner, Outcome: "replay"},
	} {
		m.ObserveCall(rec)
	}
	start := now.Add(-4 * time.Second)
	m.MotionChanged(inflight.Motion{ID: "m1", Actuator: "arm", State: inflight.StateSent, CreatedAt: start, UpdatedAt: start})
	m.MotionChanged(inflight.Motion{ID: "m1", Actuator: "arm", State: inflight.StateSucceeded, CreatedAt: start, UpdatedAt: now})
	m.MotionChanged(inflight.Motion{ID: "m2", Actuator: "base", State: inflight.StateUnknown, CreatedAt: start, UpdatedAt: now})
	m.ObserveCommit(2 * time.Millisecond)
	s := m.InstrumentStore(failingStore{err: errors.New("disk full")})
	_, _ = s.Get("x")
	m.SetHealth(func() Health {
		return Health{EStopLatched: true, MasterReachable: true, Reregistrations: 1,
			Actuators: []ActuatorHealth{
				{Name: "arm", Connected: true, HasJointStates: true, JointStates: now.Add(-time.Second / 2)},
				{Name: "gripper", Connected: true, HasJointStates: true, JointStates: now},
				{Name: "base", Connected: false},
			},
			Store: &StoreHealth{Stats: &inflight.Stats{FileBytes: 1 << 20, LiveBytes: 1 << 16, Motions: 2, Previews: 3, Keys: 1, Audit: 9}},
			DDS:   &DDSHealth{Refused: map[string]uint64{"disposes_ignored": 1}, ReceiveBytes: 1 << 10, ReceiveBytesPeak: 1 << 20},
		}
	})
	return m
}
