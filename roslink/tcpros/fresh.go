package tcpros

import (
	"context"
	"sync"
	"time"
)

// fresh lets a caller wait for a message read after it asked (Fresh),
// while readers otherwise pause between batches. Requests are numbered;
// a reader notes the number when it starts a read, and a delivery from a
// read started at or after the oldest pending request answers it.
type fresh struct {
	mu      sync.Mutex
	asked   uint64        // requests numbered so far
	wake    chan struct{} // closed at a new request: pausing readers read now
	done    chan struct{} // closed by the answering delivery; nil if none pending
	pending uint64        // the number of the request done answers
}

func newFresh() *fresh { return &fresh{wake: make(chan struct{})} }

// request asks for a fresh delivery and returns the channel closed by it.
// A request made while one is pending joins it.
func (f *fresh) request() <-chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.done == nil {
		f.asked++
		f.pending, f.done = f.asked, make(chan struct{})
		close(f.wake)
		f.wake = make(chan struct{})
	}
	return f.done
}

// state is what a reader needs before it reads or pauses: the request
// number to note, the channel a new request closes, and whether a request
// is waiting (then a reader does not pause).
func (f *fresh) state() (asked uint64, wake <-chan struct{}, waiting bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.asked, f.wake, f.done != nil
}

// delivered answers the pending request if the delivered message was read
// by a read started after it (noted is the number the reader noted then).
func (f *fresh) delivered(noted uint64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.done != nil && noted >= f.pending {
		close(f.done)
		f.done = nil
	}
}

// pacer is the pause between batches: every, cut short by a request for a
// fresh message or the end of ctx; no pause while a request waits.
func (f *fresh) pacer(ctx context.Context, every time.Duration) func() error {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return func() error {
		_, wake, waiting := f.state()
		if every <= 0 || waiting {
			return ctx.Err()
		}
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
