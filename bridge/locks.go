package bridge

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// Locks serializes writes per resource key (arm, gripper, base). A waiter
// gives up after a bound and learns who holds the key and how it frees.
// Stop tools never take a lock.
type Locks struct {
	mu   sync.Mutex
	keys map[string]*keyLock
	now  func() time.Time
}

type keyLock struct {
	sem    chan struct{}
	holder string
	since  time.Time
}

// NewLocks returns an empty lock table.
func NewLocks() *Locks { return &Locks{keys: map[string]*keyLock{}, now: time.Now} }

func (l *Locks) get(key string) *keyLock {
	l.mu.Lock()
	defer l.mu.Unlock()
	k, ok := l.keys[key]
	if !ok {
		k = &keyLock{sem: make(chan struct{}, 1)}
		l.keys[key] = k
	}
	return k
}

// Acquire takes key for holder, waiting at most wait. On timeout it returns
// a busy error naming the holder; release must be called exactly once.
func (l *Locks) Acquire(ctx context.Context, key, holder string, wait time.Duration) (release func(), err *Error) {
	k := l.get(key)
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case k.sem <- struct{}{}:
	case <-t.C:
		l.mu.Lock()
		h, since := k.holder, k.since
		l.mu.Unlock()
		e := StateError(CodeBusy, fmt.Sprintf("%s is held by %s for %s", key, h, l.now().Sub(since).Round(time.Millisecond)),
			"frees when that call returns; retry shortly", fmt.Sprintf("%s is busy", key))
		return nil, e
	case <-ctx.Done():
		return nil, StateError(CodeUnavailable, "call cancelled while waiting for "+key, "retry", "call cancelled")
	}
	l.mu.Lock()
	k.holder, k.since = holder, l.now()
	l.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			l.mu.Lock()
			k.holder = ""
			l.mu.Unlock()
			<-k.sem
		})
	}, nil
}
