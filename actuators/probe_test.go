package actuators

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"
)

// countingWire counts how often the goal topic's subscribers are counted.
type countingWire struct {
	*fakeWire
	counts atomic.Int32
}

func (w *countingWire) goalSubscribers() (int, error) {
	w.counts.Add(1)
	return w.fakeWire.goalSubscribers()
}

// A count started by prepare is used by the send that follows within
// probeFresh, if it saw a subscriber on the same wire; anything else makes
// the send count again before it writes.
func TestSendUsesAFreshPositiveCountFromPrepareAndCountsOtherwise(t *testing.T) {
	for _, tc := range []struct {
		name       string
		subsAtPrep int
		age        time.Duration
		newWire    bool
		wantCounts int32 // counts in all, prepare's included
	}{
		{"fresh positive count is reused", 1, 0, false, 1},
		{"fresh count just inside the window", 1, probeFresh, false, 1},
		{"stale count is not", 1, probeFresh + time.Millisecond, false, 2},
		{"a zero count is checked again", 0, 0, false, 2},
		{"a count of a replaced wire is not used", 1, 0, true, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, fw, clock, _ := newTestClient(t, KindArm)
			w := &countingWire{fakeWire: fw}
			c.setWire(w)
			fw.setSubs(tc.subsAtPrep)
			c.prepare()
			waitDone(t, c.probe.last.done)
			fw.setSubs(1)
			clock.advance(tc.age)
			if tc.newWire {
				w2 := &countingWire{fakeWire: fw}
				c.setWire(w2)
				w = w2
			}
			if err := c.send(context.Background(), "m-"+fmt.Sprint(tc.age), armBuild, nil); err != nil {
				t.Fatal(err)
			}
			if got := w.counts.Load(); got != tc.wantCounts {
				t.Errorf("subscriber counts on the sending wire = %d, want %d", got, tc.wantCounts)
			}
			if got := fw.written(); len(got) != 1 {
				t.Errorf("written = %v", got)
			}
		})
	}
}

func waitDone(t *testing.T, ch chan struct{}) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatal("count never finished")
	}
}
