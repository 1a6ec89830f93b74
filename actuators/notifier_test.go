package actuators

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"
)

func TestNotifierDeliversInOrderAndPushNeverWaitsForTheObserver(t *testing.T) {
	n := NewNotifier()
	release := make(chan struct{})
	var mu sync.Mutex
	var got []string
	n.SetObserver(func(u GoalUpdate) {
		<-release // an observer slower than every push
		mu.Lock()
		got = append(got, u.GoalID)
		mu.Unlock()
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); n.Run(ctx) }()
	start := time.Now()
	for i := range 100 {
		n.Push(GoalUpdate{GoalID: fmt.Sprint(i)})
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("100 pushes took %s behind a blocked observer", d)
	}
	close(release)
	cancel() // what is queued is still delivered
	<-done
	if len(got) != 100 {
		t.Fatalf("delivered %d of 100", len(got))
	}
	for i, id := range got {
		if id != fmt.Sprint(i) {
			t.Fatalf("update %d was %s: out of order", i, id)
		}
	}
}
