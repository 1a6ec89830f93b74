package inflight

import (
	"context"
	"hash/maphash"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
)

// lazyFlushDelay is how long accepted-but-unsynced writes wait to share
// one commit. It bounds what a crash of the machine (not of the process: the
// page cache survives that) can lose of them.
const lazyFlushDelay = 20 * time.Millisecond

// pending holds writes the store has accepted but not yet made durable: new
// previews and a motion's non-terminal progress (sent, active, progress).
// Reads see them at once; a flusher commits them together, off the caller's
// path. Claims (the write-ahead record) and terminal or unknown states are
// never pending: they are committed with fsync before their call returns.
// A lost pending write is harmless by construction: a preview that was
// never confirmed is re-previewed, and a motion recorded as dispatching is
// re-attached after a restart exactly as a sent one, never resent.
type pending struct {
	mu       sync.Mutex
	seq      uint64
	motions  map[string]pendingEntry[Motion]
	previews map[string]pendingEntry[Preview]
	kick     chan struct{}
	stop     chan struct{}
	done     chan struct{}
	journal  *previewJournal // nil for a read-only store

	// locks serialise the writes of one motion (lazy or not), so each is
	// based on the newest version, pending or committed.
	locks [64]sync.Mutex
	seed  maphash.Seed
}

// pendingEntry is one unsynced version. syncing marks a version that a
// durable commit is writing right now: readers see it, the flusher leaves
// it to that commit.
type pendingEntry[T any] struct {
	v       T
	seq     uint64
	syncing bool
}

func newPending() *pending {
	return &pending{
		motions: map[string]pendingEntry[Motion]{}, previews: map[string]pendingEntry[Preview]{},
		kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{}),
		seed: maphash.MakeSeed(),
	}
}

// lockMotion serialises writes to motion id; call the returned unlock.
func (p *pending) lockMotion(id string) (unlock func()) {
	l := &p.locks[maphash.String(p.seed, id)%uint64(len(p.locks))]
	l.Lock()
	return l.Unlock
}

func (p *pending) motion(id string) (Motion, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	e, ok := p.motions[id]
	return e.v, ok
}

// motionsNow copies every unflushed motion version, for listings.
func (p *pending) motionsNow() map[string]Motion { return versions(p, p.motions) }

// previewsNow copies every unflushed preview version, for listings.
func (p *pending) previewsNow() map[string]Preview { return versions(p, p.previews) }

func versions[T any](p *pending, m map[string]pendingEntry[T]) map[string]T {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make(map[string]T, len(m))
	for id, e := range m {
		out[id] = e.v
	}
	return out
}

func (p *pending) preview(id string) (Preview, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	e, ok := p.previews[id]
	return e.v, ok
}

// putMotion records an unsynced version of m and wakes the flusher.
func (p *pending) putMotion(m Motion) {
	p.mu.Lock()
	p.seq++
	p.motions[m.ID] = pendingEntry[Motion]{v: m, seq: p.seq}
	p.mu.Unlock()
	p.wake()
}

// putPreview records a new preview, journaled so a killed process finds it
// again; journaled=false means only memory holds it.
func (p *pending) putPreview(pv Preview) (journaled bool) {
	p.mu.Lock()
	p.seq++
	p.previews[pv.ID] = pendingEntry[Preview]{v: pv, seq: p.seq}
	journaled = p.journal != nil && p.journal.add(pv) == nil
	p.mu.Unlock()
	p.wake()
	return journaled
}

// replay takes back the previews a previous process journaled but never
// committed; they are not journaled again (their file is still there).
func (p *pending) replay(ps []Preview) {
	p.mu.Lock()
	for _, pv := range ps {
		p.seq++
		p.previews[pv.ID] = pendingEntry[Preview]{v: pv, seq: p.seq}
	}
	p.mu.Unlock()
	if len(ps) > 0 {
		p.wake()
	}
}

func (p *pending) wake() {
	select {
	case p.kick <- struct{}{}:
	default:
	}
}

// syncingMotion marks m as being committed durably; settle ends it.
func (p *pending) syncingMotion(m Motion) (settle func(committed bool)) {
	return syncing(p, p.motions, m.ID, m)
}

// syncingPreview is syncingMotion for a preview a confirm consumes.
func (p *pending) syncingPreview(pv Preview) (settle func(committed bool)) {
	return syncing(p, p.previews, pv.ID, pv)
}

// syncing shows v to readers while a durable commit writes it and hides it
// from the flusher; settle forgets it once committed, or restores the
// version the disk still lacks if the commit failed. The caller holds the
// record's lock, so no newer version can arrive in between.
func syncing[T any](p *pending, m map[string]pendingEntry[T], id string, v T) (settle func(committed bool)) {
	p.mu.Lock()
	prev, had := m[id]
	p.seq++
	seq := p.seq
	m[id] = pendingEntry[T]{v: v, seq: seq, syncing: true}
	p.mu.Unlock()
	return func(committed bool) {
		p.mu.Lock()
		defer p.mu.Unlock()
		if m[id].seq != seq {
			return
		}
		delete(m, id)
		if !committed && had {
			m[id] = pendingEntry[T]{v: prev.v, seq: seq}
		}
	}
}

// snapshot returns the versions the flusher owes the disk. rotate moves
// the journal aside in the same step, so the rotated file holds only
// previews this snapshot has.
func (p *pending) snapshot(rotate bool) (ms map[string]pendingEntry[Motion], ps map[string]pendingEntry[Preview]) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if rotate && p.journal != nil {
		p.journal.rotate()
	}
	ms, ps = map[string]pendingEntry[Motion]{}, map[string]pendingEntry[Preview]{}
	for id, e := range p.motions {
		if !e.syncing {
			ms[id] = e
		}
	}
	for id, e := range p.previews {
		if !e.syncing {
			ps[id] = e
		}
	}
	return ms, ps
}

// flushed forgets the versions a commit wrote, unless newer ones arrived.
func (p *pending) flushed(ms map[string]pendingEntry[Motion], ps map[string]pendingEntry[Preview]) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for id, e := range ms {
		if p.motions[id].seq == e.seq {
			delete(p.motions, id)
		}
	}
	for id, e := range ps {
		if p.previews[id].seq == e.seq {
			delete(p.previews, id)
		}
	}
}

func (p *pending) empty() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.motions) == 0 && len(p.previews) == 0
}

// runFlusher commits pending writes shortly after they arrive, until Close.
func (s *Store) runFlusher() {
	p := s.pend
	defer close(p.done)
	for {
		select {
		case <-p.stop:
			return
		case <-p.kick:
		}
		select {
		case <-p.stop:
			return
		case <-time.After(s.opts.flushDelay):
		}
		_ = s.Flush(context.Background()) // a failure marks the store unhealthy; the writes stay pending
	}
}

// Flush commits every accepted-but-unsynced write (previews, non-terminal
// motion progress) with fsync now. Close calls it; tests use it to make the
// disk match what reads see.
func (s *Store) Flush(ctx context.Context) error {
	ms, ps := s.pend.snapshot(false)
	if len(ms) == 0 && len(ps) == 0 {
		return nil
	}
	err := s.update(ctx, func(tx *bolt.Tx) (bool, error) {
		motions, order, err := motionBuckets(tx)
		if err != nil {
			return false, err
		}
		previews, err := bucket(tx, bucketPreviews)
		if err != nil {
			return false, err
		}
		// Under the writer lock: a durable write of the same record may
		// have landed since the snapshot; only still-owed versions go out.
		ms, ps = s.pend.snapshot(true)
		for _, e := range ms {
			if err := putMotion(motions, order, e.v); err != nil {
				return false, err
			}
		}
		for _, e := range ps {
			if err := putPreview(previews, e.v); err != nil {
				return false, err
			}
		}
		return len(ms)+len(ps) > 0, nil
	})
	if err != nil {
		return err
	}
	s.pend.flushed(ms, ps)
	if j := s.pend.journal; j != nil {
		s.pend.mu.Lock()
		j.committed()
		s.pend.mu.Unlock()
	}
	return nil
}
