package rtps

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/actbridge/actbridge/rtps/wire"
)

// maxQueued bounds the payload octets waiting in a participant's send
// queue; a writer that finds it fuller waits for the sender to take it.
const maxQueued = 1 << 20

// sendQueue orders what reliable user writers send and packs it: one
// goroutine at a time sends (the token, sending), and it sends all that was
// queued while it did, several samples and their heartbeats to a reader
// in one datagram, before it lets go. A write that finds nothing queued
// and nothing sending sends at once on its own goroutine; one that
// streams (its readers lack an earlier sample) or finds a send under way
// queues and returns, and the participant's sender goroutine sends it.
// Nothing waits for more to come: the queue is sent as soon as a sender
// is free, so a lone sample is never delayed.
type sendQueue struct {
	mu      sync.Mutex
	queue   []pendingSend
	octets  int
	sending bool
	// wake tells the sender goroutine something is queued (buffered 1).
	wake chan struct{}
	// took is closed and replaced when a sender takes the queue, for
	// writers waiting for room.
	took chan struct{}
	// buf is the sender's datagram buffer, outs and subs what pack
	// joins a batch into; only the token holder uses them.
	buf  []byte
	outs []outgoing
	subs []wire.Submessage
	// spare is the array of the last batch sent, for the queue to reuse.
	spare []pendingSend
}

// pendingSend is what one write sends and, for a sample, the writer and
// its number, which is told once the datagrams are out (sent).
type pendingSend struct {
	out []outgoing
	sw  *statefulWriter
	sn  wire.SequenceNumber
}

func newSendQueue() *sendQueue {
	return &sendQueue{wake: make(chan struct{}, 1), took: make(chan struct{})}
}

// push queues what a write sends, or, when inline is asked and the queue is
// idle, takes the token and returns inline: the caller then sends q itself
// with p.sendNow after it releases its locks. full says the queue holds
// more than maxQueued octets now: the caller waits for room (waitRoom).
// Call it with p.mu held, so that the queue's order is the order of the
// writes.
func (tx *sendQueue) push(q pendingSend, inline bool) (sendSelf, full bool) {
	tx.mu.Lock()
	defer tx.mu.Unlock()
	if inline && !tx.sending && len(tx.queue) == 0 {
		tx.sending = true
		return true, false
	}
	tx.queue = append(tx.queue, q)
	for _, o := range q.out {
		for _, s := range o.subs {
			tx.octets += payloadSize(s)
		}
	}
	if !tx.sending {
		select {
		case tx.wake <- struct{}{}:
		default:
		}
	}
	return false, tx.octets > maxQueued
}

// waitRoom waits while the queue holds more than maxQueued octets, or
// until done (the participant's sender stopped).
func (tx *sendQueue) waitRoom(ctx context.Context, done <-chan struct{}) error {
	for {
		tx.mu.Lock()
		full, took := tx.octets > maxQueued, tx.took
		tx.mu.Unlock()
		if !full {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-done:
			return ErrClosed
		case <-took:
		}
	}
}

// queueOrdered queues what reliable user writers send besides their
// samples (heartbeats while blocked, lagging or waiting for
// acknowledgments) in order with what they queued: a heartbeat that
// overtook queued ones made them stale, since a reader ignores a
// heartbeat whose count is not above the last it saw, and CycloneDDS then
// acknowledged a streaming 1 KB writer only once per blocked heartbeat
// (every 2 ms). Call it with p.mu held, which gave the heartbeats their
// counts, so that no write queues a later one first; then, without p.mu,
// sendQueued with what it returned.
func (p *Participant) queueOrdered(out []outgoing) (q pendingSend, self bool) {
	if len(out) == 0 {
		return q, false
	}
	q = pendingSend{out: out}
	self, _ = p.tx.push(q, true)
	return q, self
}

// sendQueued sends q when queueOrdered gave the caller the token.
func (p *Participant) sendQueued(q pendingSend, self bool) {
	if self {
		p.sendNow(q)
	}
}

// sendNow sends q as the token holder, then whatever was queued meanwhile,
// and lets the token go.
func (p *Participant) sendNow(q pendingSend) {
	p.tx.buf = p.sendBuffered(p.tx.buf, q.out)
	p.sent([]pendingSend{q})
	p.drain()
}

// drain sends what is queued, packed, until the queue is empty, then lets
// the token go; the caller holds it.
func (p *Participant) drain() {
	tx := p.tx
	for {
		tx.mu.Lock()
		batch := tx.queue
		if len(batch) == 0 {
			tx.sending = false
			tx.mu.Unlock()
			return
		}
		tx.queue, tx.spare, tx.octets = tx.spare, nil, 0
		close(tx.took)
		tx.took = make(chan struct{})
		tx.mu.Unlock()
		tx.outs, tx.subs = pack(batch, tx.outs, tx.subs)
		tx.buf = p.sendBuffered(tx.buf, tx.outs)
		p.sent(batch)
		// What was sent is not held on to (a lent payload goes to the
		// garbage collector).
		clear(tx.outs)
		clear(tx.subs)
		clear(batch)
		tx.mu.Lock()
		tx.spare = batch[:0]
		tx.mu.Unlock()
	}
}

// sent tells the writers of the samples in batch that their datagrams
// are out, under one p.mu: one lock a sample, taken against the writer
// writing the next ones, was 8 % of a 1 KB writer's CPU (spinning).
func (p *Participant) sent(batch []pendingSend) {
	locked := false
	for _, q := range batch {
		if q.sw == nil {
			continue
		}
		if !locked {
			p.mu.Lock()
			locked = true
		}
		q.sw.sent(q.sn)
	}
	if locked {
		p.mu.Unlock()
	}
}

// flushLimit bounds how long Close waits for a send under way on
// another goroutine.
const flushLimit = time.Second

// flush sends what writes queued, so that a sample a Write returned for
// leaves before the participant's goodbye; it waits for a send under way
// on another goroutine, up to flushLimit.
func (p *Participant) flush() {
	tx := p.tx
	deadline := time.Now().Add(flushLimit)
	for time.Now().Before(deadline) {
		tx.mu.Lock()
		idle, empty, took := !tx.sending, len(tx.queue) == 0, tx.took
		if idle && !empty {
			tx.sending = true
		}
		tx.mu.Unlock()
		switch {
		case idle && empty:
			return
		case idle:
			p.drain()
		default:
			select {
			case <-took:
			case <-time.After(time.Millisecond):
			}
		}
	}
}

// sender sends what writes queue while their goroutines go on.
func (p *Participant) sender(ctx context.Context) {
	defer p.wg.Done()
	tx := p.tx
	for {
		select {
		case <-ctx.Done():
			return
		case <-tx.wake:
		}
		tx.mu.Lock()
		idle := !tx.sending && len(tx.queue) > 0
		tx.sending = tx.sending || idle
		tx.mu.Unlock()
		if idle {
			p.drain()
		}
	}
}

// pack joins what consecutive writes send to the same locators into one
// outgoing, so that send fills datagrams with several samples, and drops
// a writer's heartbeat to a reader when its next one follows within
// heartbeatSpacing octets (it announces all the first did). Every
// heartbeat draws an ACKNACK, which costs the reader and us as much as a
// small sample: one per 1 KB sample kept the 1 KB throughput at a quarter
// of CycloneDDS's, one per batch let it reach two thirds. One per quarter
// window is left, so that a writer waiting for room in its window goes on
// before the whole batch is in.
//
// It joins into outs and subs, which it returns, reused from batch to
// batch: each outgoing's submessages are a run of subs.
func pack(batch []pendingSend, outs []outgoing, subs []wire.Submessage) ([]outgoing, []wire.Submessage) {
	total := 0
	for _, q := range batch {
		for _, o := range q.out {
			total += len(o.subs)
		}
	}
	// Room for all, so that the runs already cut stay in subs's array.
	outs, subs = outs[:0], slices.Grow(subs[:0], total)
	start := 0
	for _, q := range batch {
		for _, o := range q.out {
			n := len(outs)
			if n == 0 || outs[n-1].dst != o.dst || !slices.Equal(outs[n-1].to, o.to) {
				outs = append(outs, outgoing{dst: o.dst, to: o.to})
				n++
				start = len(subs)
			}
			subs = append(subs, o.subs...)
			outs[n-1].subs = subs[start:]
		}
	}
	for i := range outs {
		outs[i].subs = thinHeartbeats(outs[i].subs)
	}
	return outs, subs
}

// heartbeatSpacing is the fewest octets between two heartbeats of a writer
// to a reader that pack keeps.
const heartbeatSpacing = writeWindow / 4

// thinHeartbeats drops every HEARTBEAT that a later one of the same writer
// to the same reader follows within heartbeatSpacing octets in subs; the
// later one asks for acknowledgments (not Final) when a dropped one did.
func thinHeartbeats(subs []wire.Submessage) []wire.Submessage {
	type pair struct{ reader, writer wire.EntityID }
	type kept struct{ octets, at int }
	next := map[pair]kept{} // the next heartbeat of the pair kept, octets from the end
	keep := make([]bool, len(subs))
	octets := 0
	for i := len(subs) - 1; i >= 0; i-- {
		keep[i] = true
		octets += payloadSize(subs[i])
		if h, ok := subs[i].(*wire.Heartbeat); ok {
			k := pair{h.ReaderID, h.WriterID}
			if n, ok := next[k]; ok && octets-n.octets < heartbeatSpacing {
				keep[i] = false
				if later := subs[n.at].(*wire.Heartbeat); !h.Final && later.Final {
					asking := *later // shared with the other destinations' copies
					asking.Final = false
					subs[n.at] = &asking
				}
				continue
			}
			next[k] = kept{octets, i}
		}
	}
	out := subs[:0]
	for i, s := range subs {
		if keep[i] {
			out = append(out, s)
		}
	}
	return out
}
