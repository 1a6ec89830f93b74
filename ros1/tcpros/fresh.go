package tcpros

import (
	"context"
	"sync"
	"time"
)

// fresh lets a caller wait until the newest message on the wire has been
// delivered, while readers otherwise pause between batches. A reader that
// is not pausing has delivered everything complete it received, or is
// about to: a request then needs no wait. Otherwise the request wakes the
// pausing readers, and is answered by the first one that delivers a
// message, or finds nothing new, in a read begun after the request
// (requests are numbered; a reader notes the number as its read begins).
type fresh struct {
	mu      sync.Mutex
	asked   uint64        // requests numbered so far
	wake    chan struct{} // closed at a new request: pausing readers read now
	done    chan struct{} // closed by the answer; nil if no request waits
	pending uint64        // the number of the request done answers
	pausing int           // readers in their pause between batches
}

func newFresh() *fresh { return &fresh{wake: make(chan struct{})} }

// answered is a closed channel: the answer when nobody pauses.
var answered = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// request asks for the newest message and returns the channel closed once
// it was delivered. A request made while one waits joins it.
func (f *fresh) request() <-chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.done == nil && f.pausing == 0 {
		return answered
	}
	if f.done == nil {
		f.asked++
		f.pending, f.done = f.asked, make(chan struct{})
		close(f.wake)
		f.wake = make(chan struct{})
	}
	return f.done
}

// noted is the request number a reader notes as a read begins.
func (f *fresh) noted() uint64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.asked
}

// caughtUp answers the waiting request if the reader delivered a message,
// or found the socket empty, in a read begun after it (noted is the
// number the reader noted then).
func (f *fresh) caughtUp(noted uint64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.done != nil && noted >= f.pending {
		close(f.done)
		f.done = nil
	}
}

// pacer is the pause between batches: every, cut short by a request for
// the newest message or the end of ctx; no pause while a request waits.
func (f *fresh) pacer(ctx context.Context, every time.Duration) func() error {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return func() error {
		f.mu.Lock()
		wake, waiting := f.wake, f.done != nil
		if every > 0 && !waiting {
			f.pausing++
		}
		f.mu.Unlock()
		if every <= 0 || waiting {
			return ctx.Err()
		}
		defer func() {
			f.mu.Lock()
			f.pausing--
			f.mu.Unlock()
		}()
		t.Reset(every)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		case <-wake:
		}
		return nil
	}
}
