package ros1

import (
	"context"
	"testing"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/sensor_msgs"
)

// fakeFresher is a fresher: the newest message on it, if any, reaches the cache.
type fakeFresher struct {
	c     *jointCache
	reads int
	newer bool
}

func (w *fakeFresher) Fresh(context.Context) error {
	w.reads++
	if w.newer {
		w.c.store(&sensor_msgs.JointState{Name: []string{"j1"}, Position: []float64{1}})
	}
	return nil
}

// cacheAt is a joint cache whose publisher sends every period, the newest
// read age ago.
func cacheAt(period, age time.Duration, newer bool) (*jointCache, *fakeFresher) {
	c := &jointCache{}
	w := &fakeFresher{c: c, newer: newer}
	c.follow(w)
	last := time.Now().Add(-age)
	for i := 20; i >= 0; i-- {
		c.cadence.Observe(last.Add(-time.Duration(i) * period))
	}
	c.store(&sensor_msgs.JointState{Name: []string{"j1"}})
	c.mu.Lock()
	c.at = last
	c.mu.Unlock()
	return c, w
}

func TestFreshJointsTakesAReadYoungerThanItsBoundWithoutReadingTheWire(t *testing.T) {
	c, w := cacheAt(10*time.Millisecond, 0, true)
	if !c.current(t.Context()) || w.reads != 0 || c.waits.Load() != 0 {
		t.Fatalf("a current read: the fakeFresher read %d times, want none", w.reads)
	}
}

func TestFreshJointsReadsTheWireWhenTheNewestIsOlderThanItsBound(t *testing.T) {
	c, w := cacheAt(10*time.Millisecond, time.Second, true)
	if !c.current(t.Context()) || w.reads != 1 {
		t.Fatalf("an old read with a newer message on the fakeFresher: %d fakeFresher reads, want one, and current", w.reads)
	}
	c, w = cacheAt(10*time.Millisecond, time.Second, false)
	if c.current(t.Context()) || w.reads != 1 {
		t.Fatalf("an old read and a silent fakeFresher: %d fakeFresher reads, want one, and not current", w.reads)
	}
}
