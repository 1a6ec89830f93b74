package ros2

import (
	"context"
	"testing"
	"time"

	"github.com/actbridge/actbridge/actuators"
)

// cacheAt is a joint cache whose topic published every period, the newest
// sample age ago.
func cacheAt(period, age time.Duration) *jointCache {
	c := newJointCache()
	last := time.Now().Add(-age)
	for i := 20; i >= 0; i-- {
		c.store([]actuators.JointReading{{Name: "j1"}}, last.Add(-time.Duration(i)*period))
	}
	return c
}

func TestFreshJointsTakesASampleYoungerThanItsBoundWithoutWaiting(t *testing.T) {
	c := cacheAt(10*time.Millisecond, 0)
	ctx, cancel := context.WithCancel(t.Context())
	cancel() // a wait would find nothing
	if !c.current(ctx) || c.waits.Load() != 0 {
		t.Fatalf("current %v after %d waits, want true after none", c.current(ctx), c.waits.Load())
	}
}

func TestFreshJointsWaitsWhenTheNewestIsOlderThanItsBound(t *testing.T) {
	c := cacheAt(10*time.Millisecond, 200*time.Millisecond)
	ctx, cancel := context.WithCancel(t.Context())
	cancel() // silent: nothing comes
	if c.current(ctx) || c.waits.Load() != 1 {
		t.Fatalf("a silent topic's old sample: current %v after %d waits, want false after one", c.current(ctx), c.waits.Load())
	}
	done := make(chan bool, 1)
	go func() { done <- c.current(t.Context()) }()
	c.store([]actuators.JointReading{{Name: "j1"}}, time.Now())
	if !<-done {
		t.Fatal("a sample received after the call is not current")
	}
}
