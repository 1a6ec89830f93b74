package metrics

import (
	"testing"
	"time"

	"github.com/actbridge/actbridge/inflight"
)

func TestMotionStatesFeedGaugesCountersAndDurations(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	mo := func(id, act string, st inflight.State, updated int) inflight.Motion {
		return inflight.Motion{ID: id, Actuator: act, State: st, CreatedAt: t0, UpdatedAt: at(updated)}
	}
	for _, tc := range []struct {
		name    string
		changes []inflight.Motion
		want    []series
	}{
		{"a motion on its way is in flight",
			[]inflight.Motion{mo("a", "arm", inflight.StateSent, 0)},
			[]series{
				s("actbridge_motions_in_flight", 1, "actuator", "arm"),
				s("actbridge_motions_in_flight", 0, "actuator", "base"),
				s("actbridge_motions_unknown", 0, "actuator", "arm"),
			}},
		{"a finished motion leaves the gauge, counts once and records its duration",
			[]inflight.Motion{mo("a", "arm", inflight.StateSent, 0), mo("a", "arm", inflight.StateActive, 1), mo("a", "arm", inflight.StateSucceeded, 4)},
			[]series{
				s("actbridge_motions_in_flight", 0, "actuator", "arm"),
				s("actbridge_motions_finished_total", 1, "actuator", "arm", "state", "succeeded"),
				s("actbridge_motions_finished_total", 0, "actuator", "arm", "state", "aborted"),
				s("actbridge_motion_duration_seconds", 1, "actuator", "arm"),
			}},
		{"each terminal state has its own series",
			[]inflight.Motion{
				mo("a", "gripper", inflight.StateAborted, 1), mo("b", "gripper", inflight.StatePreempted, 1),
				mo("c", "gripper", inflight.StateRejected, 1), mo("d", "gripper", inflight.StateRecalled, 1),
			},
			[]series{
				s("actbridge_motions_finished_total", 1, "actuator", "gripper", "state", "aborted"),
				s("actbridge_motions_finished_total", 1, "actuator", "gripper", "state", "preempted"),
				s("actbridge_motions_finished_total", 1, "actuator", "gripper", "state", "rejected"),
				s("actbridge_motions_finished_total", 1, "actuator", "gripper", "state", "recalled"),
				s("actbridge_motion_duration_seconds", 4, "actuator", "gripper"),
			}},
		{"a terminal state reported twice counts once",
			[]inflight.Motion{mo("a", "arm", inflight.StateAborted, 2), mo("a", "arm", inflight.StateAborted, 2)},
			[]series{
				s("actbridge_motions_finished_total", 1, "actuator", "arm", "state", "aborted"),
				s("actbridge_motion_duration_seconds", 1, "actuator", "arm"),
			}},
		{"an unknown motion is not in flight but unknown",
			[]inflight.Motion{mo("a", "base", inflight.StateSent, 0), mo("a", "base", inflight.StateUnknown, 5)},
			[]series{
				s("actbridge_motions_unknown", 1, "actuator", "base"),
				s("actbridge_motions_in_flight", 0, "actuator", "base"),
			}},
		{"an unknown motion the robot later reports finished leaves the unknown gauge",
			[]inflight.Motion{mo("a", "base", inflight.StateUnknown, 5), mo("a", "base", inflight.StateAborted, 6)},
			[]series{
				s("actbridge_motions_unknown", 0, "actuator", "base"),
				s("actbridge_motions_finished_total", 1, "actuator", "base", "state", "aborted"),
			}},
		{"news older than what is known is ignored",
			[]inflight.Motion{mo("a", "arm", inflight.StateUnknown, 5), mo("a", "arm", inflight.StateSent, 1)},
			[]series{
				s("actbridge_motions_unknown", 1, "actuator", "arm"),
				s("actbridge_motions_in_flight", 0, "actuator", "arm"),
			}},
		{"news about a finished motion arriving late does not bring it back",
			[]inflight.Motion{mo("a", "arm", inflight.StateSucceeded, 5), mo("a", "arm", inflight.StateSent, 1)},
			[]series{s("actbridge_motions_in_flight", 0, "actuator", "arm")}},
		{"an unconfigured actuator is counted as other",
			[]inflight.Motion{mo("a", "tail", inflight.StateActive, 0), mo("b", "tail", inflight.StateSucceeded, 1)},
			[]series{
				s("actbridge_motions_in_flight", 1, "actuator", Other),
				s("actbridge_motions_finished_total", 1, "actuator", Other, "state", "succeeded"),
			}},
		{"open motions a previous run left are counted when fed at start",
			[]inflight.Motion{mo("a", "arm", inflight.StateDispatching, 0), mo("b", "arm", inflight.StateActive, 0), mo("c", "gripper", inflight.StateUnknown, 0)},
			[]series{
				s("actbridge_motions_in_flight", 2, "actuator", "arm"),
				s("actbridge_motions_unknown", 1, "actuator", "gripper"),
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newTestMetrics(t0)
			for _, c := range tc.changes {
				m.MotionChanged(c)
			}
			for _, w := range tc.want {
				if got := mustValue(t, m, w.name, w.pairs...); got != w.want {
					t.Errorf("%s%v = %v, want %v", w.name, w.pairs, got, w.want)
				}
			}
		})
	}
}

func TestMotionDurationRunsFromConfirmationToTheEnd(t *testing.T) {
	m := newTestMetrics(time.Now())
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	m.MotionChanged(inflight.Motion{ID: "a", Actuator: "arm", State: inflight.StateSucceeded, CreatedAt: t0, UpdatedAt: t0.Add(7500 * time.Millisecond)})
	m.MotionChanged(inflight.Motion{ID: "b", Actuator: "arm", State: inflight.StateSucceeded}) // no times: not observed
	_, s := find(t, m.reg, "actbridge_motion_duration_seconds", "actuator", "arm")
	if h := s.GetHistogram(); h.GetSampleCount() != 1 || h.GetSampleSum() != 7.5 {
		t.Errorf("count %d sum %v, want 1 and 7.5", h.GetSampleCount(), h.GetSampleSum())
	}
}

func TestIDRingForgetsTheOldestOnly(t *testing.T) {
	r := newIDRing(2)
	for _, step := range []struct {
		id  string
		new bool
	}{{"a", true}, {"a", false}, {"b", true}, {"c", true}, {"a", true}, {"c", false}} {
		if got := r.add(step.id); got != step.new {
			t.Errorf("add(%s) = %v, want %v", step.id, got, step.new)
		}
	}
}
