package actuators

import (
	"slices"
	"sync"
	"time"
)

// The freshness rule of FreshJoints, the same on every transport: a
// topic's newest sample is current while it is younger than FreshFactor
// times the topic's robust recent period (the second-longest of its last
// cadenceWindow gaps, so one hiccup or restart does not widen it),
// clamped to [FreshMin, FreshMax]. An older sample means the next one is
// overdue: only then does FreshJoints wait, at most FreshWait, for a
// sample received after the call; none means the robot stopped
// publishing (JointsSnapshot.Stale).
const (
	FreshFactor = 3
	FreshMin    = 20 * time.Millisecond
	FreshMax    = time.Second
	FreshWait   = 250 * time.Millisecond
)

// cadenceWindow is how many recent gaps a Cadence keeps.
const cadenceWindow = 16

// Cadence learns one topic's period from its samples' arrival times and
// says whether its newest sample is still current. The zero value is
// ready; it is safe for concurrent use.
type Cadence struct {
	mu   sync.Mutex
	last time.Time
	gaps [cadenceWindow]time.Duration
	n    int // gaps known, at most cadenceWindow
	next int // where the next gap goes
}

// Observe records a sample that arrived at at.
func (c *Cadence) Observe(at time.Time) { c.ObserveBatch(at, 1) }

// ObserveBatch records n samples read together at at (a reader that
// paused, as ROS 1's does): their mean gap since the last is one gap.
func (c *Cadence) ObserveBatch(at time.Time, n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.last.IsZero() && at.After(c.last) {
		c.gaps[c.next] = at.Sub(c.last) / time.Duration(max(n, 1))
		c.next = (c.next + 1) % cadenceWindow
		c.n = min(c.n+1, cadenceWindow)
	}
	if at.After(c.last) {
		c.last = at
	}
}

// Bound is how old the newest sample may be and still count as current;
// zero until two gaps are known (then every read waits for a new sample).
func (c *Cadence) Bound() time.Duration {
	c.mu.Lock()
	gaps := slices.Clone(c.gaps[:c.n])
	c.mu.Unlock()
	if len(gaps) < 2 {
		return 0
	}
	slices.Sort(gaps)
	robust := gaps[len(gaps)-1]
	if len(gaps) >= 4 {
		robust = gaps[len(gaps)-2]
	}
	return min(max(FreshFactor*robust, FreshMin), FreshMax)
}

// Current reports whether a sample received at received is current at now.
func (c *Cadence) Current(received, now time.Time) bool {
	b := c.Bound()
	return b > 0 && !received.IsZero() && now.Sub(received) <= b
}
