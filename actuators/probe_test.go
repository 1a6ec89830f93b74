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

// blockingWire's counts wait until released, like an XML-RPC call to a
// node that is slow to answer.
type blockingWire struct {
	*countingWire
	release chan struct{}
}

func (w *blockingWire) goalSubscribers() (int, error) {
	<-w.release
	return w.countingWire.goalSubscribers()
}

// A send does not wait for a count still running when a finished one
// within probeFresh saw a subscriber; without one it waits for the count.
func TestSendUsesAFinishedPositiveCountWithoutWaitingForARunningOne(t *testing.T) {
	c, fw, clock, _ := newTestClient(t, KindArm)
	w := &blockingWire{countingWire: &countingWire{fakeWire: fw}, release: make(chan struct{})}
	c.setWire(w)
	fw.setSubs(1)
	c.prepare()
	w.release <- struct{}{} // the first count finishes: one subscriber
	waitDone(t, c.probe.last.done)
	clock.advance(probeFresh / 2)
	c.prepare() // a second count starts and hangs
	sent := make(chan error, 1)
	go func() { sent <- c.send(context.Background(), "m-1", armBuild, nil) }()
	select {
	case err := <-sent:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the send waited for the running count")
	}
	if got := fw.written(); len(got) != 1 {
		t.Errorf("written = %v", got)
	}
	close(w.release) // the hanging count ends; nothing else waits on it

	// Past the window the finished count is too old: the send waits for a
	// count of its own.
	c2, fw2, clock2, _ := newTestClient(t, KindArm)
	w2 := &blockingWire{countingWire: &countingWire{fakeWire: fw2}, release: make(chan struct{})}
	c2.setWire(w2)
	fw2.setSubs(1)
	c2.prepare()
	w2.release <- struct{}{}
	waitDone(t, c2.probe.last.done)
	clock2.advance(probeFresh + time.Millisecond)
	c2.prepare()
	go func() { sent <- c2.send(context.Background(), "m-2", armBuild, nil) }()
	select {
	case err := <-sent:
		t.Fatalf("the send went without a fresh count: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	close(w2.release)
	if err := <-sent; err != nil {
		t.Fatal(err)
	}
	if got := fw2.written(); len(got) != 1 {
		t.Errorf("written = %v", got)
	}
}

// A newer finished count that saw no subscriber is not passed over for an
// older one that saw some: the send counts again and, with none there,
// writes nothing. (Found by review.)
func TestSendNeverUsesAnOlderPositiveCountOverANewerZero(t *testing.T) {
	c, fw, clock, _ := newTestClient(t, KindArm)
	fw.setSubs(1)
	c.prepare()
	waitDone(t, c.probe.last.done) // one subscriber
	clock.advance(10 * time.Millisecond)
	fw.setSubs(0) // the action server's subscriber left
	c.prepare()
	waitDone(t, c.probe.last.done) // newer, finished: none
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	err := c.send(ctx, "m-1", armBuild, nil)
	if got := fw.written(); len(got) != 0 || err == nil {
		t.Errorf("goal written with no subscriber (newest count 0): written=%v err=%v", got, err)
	}
}
