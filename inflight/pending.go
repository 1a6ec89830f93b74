package inflight

import (
	"context"
	"fmt"
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
	// warm keeps previews a flush committed, decoded, within maxWarmBytes:
	// a confirm reads its preview twice (checks, then under the record
	// lock), each a bbolt read and a decode otherwise. It never holds a
	// version older than the file's: every write of a preview is in
	// previews first (which reads prefer), a flush moves only the version
	// it committed here, a durable commit of a preview drops it (settle),
	// and retention's deletions clear it (and, by warmGen, keep a flush
	// that committed before them from warming what they deleted).
	warm      map[string]Preview
	warmBytes int
	warmGen   uint64
	kick      chan struct{}
	stop      chan struct{}
	done      chan struct{}
	journal   *journal // nil for a read-only store

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
		motions: map[string]pendingEntry[Motion]{}, previews: map[string]pendingEntry[Preview]{}, warm: map[string]Preview{},
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

// lockPair locks the stripes of two ids in a fixed order (once if they
// share one), so two callers locking the same pair never deadlock.
func (p *pending) lockPair(a, b string) (unlock func()) {
	i := maphash.String(p.seed, a) % uint64(len(p.locks))
	k := maphash.String(p.seed, b) % uint64(len(p.locks))
	if i > k {
		i, k = k, i
	}
	p.locks[i].Lock()
	if i == k {
		return p.locks[i].Unlock
	}
	p.locks[k].Lock()
	return func() { p.locks[k].Unlock(); p.locks[i].Unlock() }
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

// preview is id's unflushed version, else the committed one kept warm.
func (p *pending) preview(id string) (Preview, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if e, ok := p.previews[id]; ok {
		return e.v, true
	}
	v, ok := p.warm[id]
	return v, ok
}

// maxWarmBytes bounds the raw JSON warm previews hold (a 1,000-point
// trajectory's preview holds ~0.5 MB); past it, warm starts again empty
// (a miss only costs a read of the file). maxWarmPreview is the largest
// kept at all.
const (
	maxWarmBytes   = 8 << 20
	maxWarmPreview = 1 << 20
)

func warmSize(v Preview) int { return 512 + len(v.Args) + len(v.Goal) + len(v.Summary) }

// keepWarm remembers v, which a commit snapshotted at generation gen just
// wrote, unless retention swept since. p.mu is held.
func (p *pending) keepWarm(v Preview, gen uint64) {
	n := warmSize(v)
	if gen != p.warmGen || n > maxWarmPreview {
		return
	}
	p.dropWarm(v.ID)
	if p.warmBytes+n > maxWarmBytes {
		clear(p.warm)
		p.warmBytes = 0
	}
	p.warm[v.ID] = v
	p.warmBytes += n
}

// dropWarm forgets warm preview id. p.mu is held.
func (p *pending) dropWarm(id string) {
	if old, ok := p.warm[id]; ok {
		p.warmBytes -= warmSize(old)
		delete(p.warm, id)
	}
}

// cool forgets every warm preview (retention deleted some from the file),
// and makes flushes snapshotted before it warm nothing.
func (p *pending) cool() {
	p.mu.Lock()
	clear(p.warm)
	p.warmBytes = 0
	p.warmGen++
	p.mu.Unlock()
}

// putMotion records an unsynced version of m and wakes the flusher.
func (p *pending) putMotion(m Motion) {
	p.mu.Lock()
	p.seq++
	p.motions[m.ID] = pendingEntry[Motion]{v: m, seq: p.seq}
	p.mu.Unlock()
	p.wake()
}

// putPreview records a new preview, journaled without fsync so a killed
// process finds it again; journaled=false means only memory holds it.
// Its line is pv's journal line (appendJournalLine).
func (p *pending) putPreview(pv Preview, line []byte) (journaled bool) {
	j := p.journal
	if j != nil {
		j.mu.Lock()
		defer j.mu.Unlock()
	}
	p.mu.Lock()
	p.seq++
	p.previews[pv.ID] = pendingEntry[Preview]{v: pv, seq: p.seq}
	p.mu.Unlock()
	p.wake()
	return j != nil && j.appendLocked(line, false) == nil
}

// writeAhead makes m and used (either may be nil; both for a claim)
// durable in the journal with fdatasync and only then visible to reads;
// the flusher copies them into bbolt later. Both steps happen under the
// journal's lock, which a flush takes for its snapshot, so a flush that
// empties the file always commits what the file held; and no read sees a
// version that a failed sync would take back. The caller holds the
// records' locks.
func (p *pending) writeAhead(m *Motion, used *Preview) error {
	j := p.journal
	if j == nil {
		return ErrReadOnly
	}
	kind := "p"
	switch {
	case m != nil && used != nil:
		kind = "c"
	case m != nil:
		kind = "m"
	}
	line, err := appendJournalLine(make([]byte, 0, journalLineSize(m, used)), journalLine{Kind: kind, Motion: m, Preview: used})
	if err != nil {
		return fmt.Errorf("%w: journal line: %v", ErrInvalidRecord, err)
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if err := j.appendLocked(line, true); err != nil {
		return err
	}
	p.mu.Lock()
	p.seq++
	if m != nil {
		p.motions[m.ID] = pendingEntry[Motion]{v: *m, seq: p.seq}
	}
	if used != nil {
		p.previews[used.ID] = pendingEntry[Preview]{v: *used, seq: p.seq}
	}
	p.mu.Unlock()
	p.wake()
	return nil
}

// overlay shows versions found in a journal that the read-only store's
// file lacks (a bridge that died before its flusher copied them).
func (p *pending) overlay(ms []Motion, ps []Preview) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, m := range ms {
		p.seq++
		p.motions[m.ID] = pendingEntry[Motion]{v: m, seq: p.seq}
	}
	for _, pv := range ps {
		p.seq++
		p.previews[pv.ID] = pendingEntry[Preview]{v: pv, seq: p.seq}
	}
}

func (p *pending) wake() {
	select {
	case p.kick <- struct{}{}:
	default:
	}
}

// syncingPreview marks pv as being written by a bbolt commit
// (ConsumePreview, Deny); settle ends it, and reads go to the file (or
// the version restored after a failed commit) from then on.
func (p *pending) syncingPreview(pv Preview) (settle func(committed bool)) {
	return syncing(p, p.previews, pv.ID, pv, func() { p.dropWarm(pv.ID) })
}

// syncing shows v to readers while a durable commit writes it and hides it
// from the flusher; settle forgets it once committed, or restores the
// version the disk still lacks if the commit failed, and runs settled,
// all under p.mu. The caller holds the record's lock, so no newer version
// can arrive in between.
func syncing[T any](p *pending, m map[string]pendingEntry[T], id string, v T, settled func()) (settle func(committed bool)) {
	p.mu.Lock()
	prev, had := m[id]
	p.seq++
	seq := p.seq
	m[id] = pendingEntry[T]{v: v, seq: seq, syncing: true}
	p.mu.Unlock()
	return func(committed bool) {
		p.mu.Lock()
		defer p.mu.Unlock()
		settled()
		if m[id].seq != seq {
			return
		}
		delete(m, id)
		if !committed && had {
			m[id] = pendingEntry[T]{v: prev.v, seq: seq}
		}
	}
}

// snapshot returns the versions the flusher owes the disk, and the warm
// generation a commit of them warms.
func (p *pending) snapshot() (ms map[string]pendingEntry[Motion], ps map[string]pendingEntry[Preview], warmGen uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
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
	return ms, ps, p.warmGen
}

// entries are the versions of a snapshot.
func entries[T any](m map[string]pendingEntry[T]) []T {
	out := make([]T, 0, len(m))
	for _, e := range m {
		out = append(out, e.v)
	}
	return out
}

// flushed forgets the versions a commit wrote, unless newer ones arrived,
// and keeps the previews among them warm.
func (p *pending) flushed(ms map[string]pendingEntry[Motion], ps map[string]pendingEntry[Preview], warmGen uint64) {
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
			p.keepWarm(e.v, warmGen)
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

// Flush commits every accepted-but-unsynced write (previews, motion
// progress, journaled claims and states) to bbolt with fsync now, then
// empties the journal file that held them. Close calls it; tests use it to
// make the bbolt file match what reads see.
func (s *Store) Flush(ctx context.Context) error {
	// One flush at a time, through emptying its file: a flush that stalled
	// after its commit must not empty a file that has been active since.
	s.flushMu.Lock()
	defer s.flushMu.Unlock()
	ms, ps, _ := s.pend.snapshot()
	if len(ms) == 0 && len(ps) == 0 {
		return nil
	}
	j, emptied, gen := s.pend.journal, -1, uint64(0)
	err := s.update(ctx, func(tx *bolt.Tx) (bool, error) {
		// Under the writer lock: a durable write of the same record may
		// have landed since the first look; only still-owed versions go
		// out. Under the journal's lock: the file this commit may empty
		// holds only lines whose versions are in this snapshot.
		if j != nil {
			j.mu.Lock()
			emptied = j.turnLocked()
		}
		ms, ps, gen = s.pend.snapshot()
		if j != nil {
			j.mu.Unlock()
		}
		return len(ms)+len(ps) > 0, putRecords(tx, entries(ms), entries(ps))
	})
	if err != nil {
		return err
	}
	s.pend.flushed(ms, ps, gen)
	if j != nil && emptied >= 0 {
		j.committed(emptied)
	}
	return nil
}
