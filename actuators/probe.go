package actuators

import (
	"sync"
	"time"
)

// probeFresh is how old a positive subscriber count may be when a send
// uses it instead of asking again. Counting asks our own node over XML-RPC
// (0.5–1 ms); started when a confirm begins, it runs while the bridge
// commits the motion record, so the send finds it done. A subscriber that
// left within this window loses the goal exactly as one that leaves right
// after a fresh count would: the goal is then reported lost, never resent.
const probeFresh = 250 * time.Millisecond

// goalProbe is one count of the goal topic's subscribers, possibly running.
type goalProbe struct {
	wire    *wireBox // the node incarnation counted
	started time.Time
	done    chan struct{}
	n       int
	err     error
}

// prober runs at most one count at a time and keeps the last started and
// the newest finished.
type prober struct {
	mu       sync.Mutex
	last     *goalProbe
	finished *goalProbe
}

// start begins a count on b unless one is running; it does not wait.
func (p *prober) start(b *wireBox, now time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.last != nil && !closed(p.last.done) {
		return
	}
	pr := &goalProbe{wire: b, started: now, done: make(chan struct{})}
	p.last = pr
	go func() {
		pr.n, pr.err = b.w.goalSubscribers()
		p.mu.Lock()
		if p.finished == nil || !pr.started.Before(p.finished.started) {
			p.finished = pr
		}
		p.mu.Unlock()
		close(pr.done) // after finished is set: a waiter then sees it
	}()
}

// recent returns a count taken on w that started at or after since: the
// newest finished one at once if it saw a subscriber (a newer count still
// running is not waited for), else the last count, waited for; ok=false
// means there is none that recent. A newer finished count that saw none
// is never passed over for an older one that saw some.
func (p *prober) recent(w actionWire, since time.Time) (n int, err error, ok bool) {
	p.mu.Lock()
	pr, fin := p.last, p.finished
	p.mu.Unlock()
	if fin != nil && w != nil && fin.wire.w == w && !fin.started.Before(since) && fin.err == nil && fin.n > 0 {
		return fin.n, nil, true
	}
	if pr == nil || w == nil || pr.wire.w != w || pr.started.Before(since) {
		return 0, nil, false
	}
	<-pr.done // bounded by the XML-RPC client's timeout
	return pr.n, pr.err, true
}

func closed(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
