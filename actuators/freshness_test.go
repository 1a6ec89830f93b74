package actuators

import (
	"testing"
	"time"
)

func observeEvery(c *Cadence, t0 time.Time, period time.Duration, n int) time.Time {
	at := t0
	for i := range n {
		at = t0.Add(time.Duration(i) * period)
		c.Observe(at)
	}
	return at
}

func TestFreshnessBoundIsAFewObservedPeriods(t *testing.T) {
	t0 := time.Unix(1000, 0)
	for _, tc := range []struct {
		period, want time.Duration
	}{
		{10 * time.Millisecond, 30 * time.Millisecond}, // 100 Hz
		{time.Millisecond, FreshMin},                   // 1 kHz: clamped up
		{2 * time.Second, FreshMax},                    // 0.5 Hz: clamped down
	} {
		var c Cadence
		last := observeEvery(&c, t0, tc.period, 20)
		if got := c.Bound(); got != tc.want {
			t.Errorf("period %s: bound %s, want %s", tc.period, got, tc.want)
		}
		if !c.Current(last, last.Add(tc.want)) || c.Current(last, last.Add(tc.want+time.Nanosecond)) {
			t.Errorf("period %s: a sample is current exactly up to the bound", tc.period)
		}
	}
}

func TestFreshnessBoundIgnoresOneHiccup(t *testing.T) {
	var c Cadence
	last := observeEvery(&c, time.Unix(1000, 0), 10*time.Millisecond, 10)
	c.Observe(last.Add(5 * time.Second)) // a publisher restart
	observeEvery(&c, last.Add(5*time.Second+10*time.Millisecond), 10*time.Millisecond, 5)
	if got := c.Bound(); got != 30*time.Millisecond {
		t.Errorf("bound %s after one 5 s gap, want 30ms", got)
	}
}

func TestNothingIsCurrentUntilThePeriodIsKnown(t *testing.T) {
	var c Cadence
	t0 := time.Unix(1000, 0)
	c.Observe(t0)
	c.Observe(t0.Add(10 * time.Millisecond))
	if c.Current(t0.Add(10*time.Millisecond), t0.Add(10*time.Millisecond)) {
		t.Error("one gap known: a sample counted as current, want a wait for a new one")
	}
}

// ROS 1 reads its topic in paced batches: a batch of n messages over a
// gap is n periods, not one.
func TestFreshnessBoundLearnsThePeriodThroughPacedBatches(t *testing.T) {
	var c Cadence
	t0 := time.Unix(1000, 0)
	for i := range 10 {
		c.ObserveBatch(t0.Add(time.Duration(i)*50*time.Millisecond), 5)
	}
	if got := c.Bound(); got != 30*time.Millisecond {
		t.Errorf("batches of 5 every 50 ms: bound %s, want 30ms (a 10 ms period)", got)
	}
}
