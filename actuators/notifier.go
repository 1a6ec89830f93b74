package actuators

import (
	"context"
	"sync"
)

// Notifier hands goal updates to the observer a transport was given
// (Motion.SetObserver) from one goroutine, in the order pushed, so the
// observer never runs under the transport's locks. Run must be running
// for updates to arrive.
type Notifier struct {
	mu       sync.Mutex
	queue    []GoalUpdate
	observer func(GoalUpdate)
	wake     chan struct{}
}

// NewNotifier makes a Notifier with no observer.
func NewNotifier() *Notifier { return &Notifier{wake: make(chan struct{}, 1)} }

// SetObserver installs the receiver of updates pushed from now on.
func (n *Notifier) SetObserver(f func(GoalUpdate)) {
	n.mu.Lock()
	n.observer = f
	n.mu.Unlock()
}

// Push queues u without blocking, so it may be called with locks held.
// Updates pushed while no observer is set are dropped.
func (n *Notifier) Push(u GoalUpdate) {
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

// Run delivers updates until ctx ends, then what is queued.
func (n *Notifier) Run(ctx context.Context) {
	for done := false; ; {
		n.mu.Lock()
		batch, obs := n.queue, n.observer
		n.queue = nil
		n.mu.Unlock()
		for _, u := range batch {
			if obs != nil {
				obs(u)
			}
		}
		if done {
			return
		}
		if len(batch) == 0 {
			select {
			case <-n.wake:
			case <-ctx.Done():
				done = true
			}
		}
	}
}
