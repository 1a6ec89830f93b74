package ros1

import (
	"context"
	"sync"

	"github.com/actbridge/actbridge/actuators"
)

// notifier delivers goal updates to the observer in the order they were
// pushed, from one goroutine, so the observer never runs under our locks.
type notifier struct {
	mu       sync.Mutex
	queue    []actuators.GoalUpdate
	observer func(actuators.GoalUpdate)
	wake     chan struct{}
}

func newNotifier() *notifier { return &notifier{wake: make(chan struct{}, 1)} }

func (n *notifier) setObserver(f func(actuators.GoalUpdate)) {
	n.mu.Lock()
	n.observer = f
	n.mu.Unlock()
}

// push queues u; it never blocks, so it may be called with other locks held.
// Updates pushed while no observer is set are dropped.
func (n *notifier) push(u actuators.GoalUpdate) {
	n.mu.Lock()
	if n.observer != nil {
		n.queue = append(n.queue, u)
	}
	n.mu.Unlock()
	select {
	case n.wake <- struct{}{}:
	default:
	}
}

// run delivers updates until ctx ends, then delivers what is queued.
func (n *notifier) run(ctx context.Context) {
	for {
		n.mu.Lock()
		batch, obs := n.queue, n.observer
		n.queue = nil
		n.mu.Unlock()
		for _, u := range batch {
			if obs != nil {
				obs(u)
			}
		}
		if len(batch) > 0 {
			continue
		}
		select {
		case <-n.wake:
		case <-ctx.Done():
			n.mu.Lock()
			batch, obs = n.queue, n.observer
			n.queue = nil
			n.mu.Unlock()
			for _, u := range batch {
				if obs != nil {
					obs(u)
				}
			}
			return
		}
	}
}
