package tf

import (
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

// Defaults of [Options]; tf2's cache time is 10 s too.
const (
	DefaultCacheTime  = 10 * time.Second
	DefaultMaxFrames  = 1024
	DefaultMaxSamples = 1000
	// DefaultMaxTotal bounds the samples of all frames together (about
	// 80 bytes each): a publisher cannot make the buffer hold more than
	// a few megabytes by spreading samples over frames.
	DefaultMaxTotal = 100_000
	// DefaultMaxAhead is how far in the future (by the receive clock) a
	// stamp may lie; one further ahead would win the cache window and
	// freeze the frame.
	DefaultMaxAhead = time.Second
	maxNameLen      = 256
	maxDepth        = 256
)

// Options bound what a buffer keeps and name whom it believes.
type Options struct {
	// CacheTime is how far back a frame's samples are kept, and how long a
	// publisher must stay silent before another may take its frame over.
	CacheTime time.Duration
	// MaxFrames, MaxSamples (per frame) and MaxTotal (all frames) bound
	// what peers can make the buffer hold; a frame past MaxFrames and a
	// new sample past MaxTotal are refused (ErrFull), a sample past
	// MaxSamples pushes out the frame's oldest.
	MaxFrames, MaxSamples, MaxTotal int
	// MaxAhead is how far past the receive time a stamp may lie (ErrInvalid
	// beyond); Latest refuses a common time past now by more.
	MaxAhead time.Duration
	// Pins names, per child frame, the one publisher believed; the others
	// are ignored and counted. Unpinned frames follow the first publisher
	// and turn ambiguous when a second one publishes them.
	Pins map[string]string
}

// Stamped is one transform of a frame tree: Child's pose in Parent at Stamp.
type Stamped struct {
	Parent, Child string
	Stamp         time.Time
	Transform     Transform
}

// Buffer is a frame tree with each frame's recent history. Safe for
// concurrent use.
type Buffer struct {
	opt Options

	mu      sync.RWMutex
	frames  map[string]*frame
	total   int // samples of all frames
	ignored uint64
}

type frame struct {
	parent  string
	static  bool
	samples []sample // by stamp, oldest first; one for a static frame
	source  string   // the publisher believed
	heard   time.Time
	rival   string // a second publisher heard within CacheTime, or ""
	rivalAt time.Time
}

type sample struct {
	at time.Time
	tr Transform
}

// NewBuffer returns an empty buffer; zero options take the defaults.
func NewBuffer(opt Options) *Buffer {
	if opt.CacheTime <= 0 {
		opt.CacheTime = DefaultCacheTime
	}
	if opt.MaxFrames <= 0 {
		opt.MaxFrames = DefaultMaxFrames
	}
	if opt.MaxSamples <= 0 {
		opt.MaxSamples = DefaultMaxSamples
	}
	if opt.MaxTotal <= 0 {
		opt.MaxTotal = DefaultMaxTotal
	}
	if opt.MaxAhead <= 0 {
		opt.MaxAhead = DefaultMaxAhead
	}
	return &Buffer{opt: opt, frames: map[string]*frame{}}
}

// Add records t as published by source (a node or participant name) and
// received at now; static marks /tf_static. It refuses malformed input
// with ErrInvalid, a frame past MaxFrames with ErrFull, and ignores (nil
// error) a sample from a publisher other than the frame's pinned one.
func (b *Buffer) Add(t Stamped, static bool, source string, now time.Time) error {
	parent, child := clean(t.Parent), clean(t.Child)
	if err := valid(parent, child, t.Transform); err != nil {
		return err
	}
	tr := t.Transform
	tr.Rotation = normalise(tr.Rotation)
	if !static && t.Stamp.After(now.Add(b.opt.MaxAhead)) {
		return refuse(ErrInvalid, child, "stamped %s, %v after it was received: a clock is wrong", stamp(t.Stamp), t.Stamp.Sub(now).Round(time.Millisecond))
	}

	b.mu.Lock()
	defer b.mu.Unlock()
	if pin, ok := b.opt.Pins[child]; ok && pin != source {
		b.ignored++
		return nil
	}
	f := b.frames[child]
	if (f == nil || f.parent != parent) && b.loops(parent, child) {
		return refuse(ErrInvalid, child, "parent %q is below it", parent)
	}
	if f == nil {
		if len(b.frames) >= b.opt.MaxFrames {
			return refuse(ErrFull, child, "the buffer holds %d frames", len(b.frames))
		}
		f = &frame{parent: parent, static: static, source: source}
		b.frames[child] = f
	}
	if f.source != source {
		// A static frame's publisher stays its source until it leaves
		// the graph (Forget): it published once and owes nothing more.
		if f.source != "" && (f.static || now.Sub(f.heard) <= b.opt.CacheTime) {
			// Two live publishers of one frame: believe neither.
			f.rival, f.rivalAt = source, now
			return nil
		}
		// The old publisher went silent or left: the new one takes the frame.
		f.source, f.rival = source, ""
		b.setSamples(f, nil)
	}
	if f.rival != "" && now.Sub(f.rivalAt) > b.opt.CacheTime {
		f.rival = ""
	}
	f.heard = now
	if f.parent != parent || f.static != static {
		f.parent, f.static = parent, static
		b.setSamples(f, nil)
	}
	if static {
		b.setSamples(f, []sample{{at: t.Stamp, tr: tr}})
		return nil
	}
	return b.insert(f, child, sample{at: t.Stamp, tr: tr})
}

// setSamples replaces f's samples, keeping the total count.
func (b *Buffer) setSamples(f *frame, ss []sample) {
	b.total += len(ss) - len(f.samples)
	f.samples = ss
}

// insert adds s in stamp order, replacing an equal stamp, and drops what
// fell out of the cache window or past MaxSamples; a new sample past
// MaxTotal is refused.
func (b *Buffer) insert(f *frame, child string, s sample) error {
	i := sort.Search(len(f.samples), func(i int) bool { return !f.samples[i].at.Before(s.at) })
	switch {
	case i < len(f.samples) && f.samples[i].at.Equal(s.at):
		f.samples[i] = s
	case b.total >= b.opt.MaxTotal:
		return refuse(ErrFull, child, "the buffer holds %d samples", b.total)
	default:
		f.samples = slices.Insert(f.samples, i, s)
		b.total++
	}
	newest := f.samples[len(f.samples)-1].at
	drop := sort.Search(len(f.samples), func(i int) bool { return newest.Sub(f.samples[i].at) <= b.opt.CacheTime })
	if over := len(f.samples) - drop - b.opt.MaxSamples; over > 0 {
		drop += over
	}
	if drop > 0 {
		f.samples = slices.Delete(f.samples, 0, drop)
		b.total -= drop
	}
	return nil
}

// loops reports whether making parent the parent of child closes a cycle.
func (b *Buffer) loops(parent, child string) bool {
	for p, n := parent, 0; n < maxDepth; n++ {
		if p == child {
			return true
		}
		f := b.frames[p]
		if f == nil {
			return false
		}
		p = f.parent
	}
	return true
}

// Lookup returns source's pose in target at time at, and the time it holds
// for; a zero at asks for the latest time every link on the way knows
// (tf2's time zero). Only static links on the way give a zero time back.
func (b *Buffer) Lookup(target, source string, at time.Time) (Transform, time.Time, error) {
	target, source = clean(target), clean(source)
	b.mu.RLock()
	defer b.mu.RUnlock()
	up, err := b.path(target, source)
	if err != nil {
		return Transform{}, time.Time{}, err
	}
	if at.IsZero() {
		at = b.latest(up)
	}
	// T(target←source) = T(common←target)⁻¹ · T(common←source).
	toS, err := b.chain(up.source, at)
	if err != nil {
		return Transform{}, time.Time{}, err
	}
	toT, err := b.chain(up.target, at)
	if err != nil {
		return Transform{}, time.Time{}, err
	}
	return toT.Inverse().Mul(toS), at, nil
}

// Latest is Lookup at the latest common time, refused with ErrStale when
// that time is older than maxAge before now. The error names the link
// whose newest sample is the oldest.
func (b *Buffer) Latest(target, source string, now time.Time, maxAge time.Duration) (Transform, time.Time, error) {
	tr, at, err := b.Lookup(target, source, time.Time{})
	if err == nil && at.After(now.Add(b.opt.MaxAhead)) {
		return Transform{}, time.Time{}, refuse(ErrStale, source, "the transforms are stamped %v ahead of now: a clock is wrong", at.Sub(now).Round(time.Millisecond))
	}
	if err != nil || at.IsZero() || now.Sub(at) <= maxAge {
		return tr, at, err
	}
	b.mu.RLock()
	defer b.mu.RUnlock()
	frame, newest := source, at
	if up, err := b.path(clean(target), clean(source)); err == nil {
		for _, c := range append(append([]string(nil), up.source...), up.target...) {
			f := b.frames[c]
			if !f.static && len(f.samples) > 0 && !f.samples[len(f.samples)-1].at.After(newest) {
				frame, newest = c, f.samples[len(f.samples)-1].at
			}
		}
	}
	return Transform{}, time.Time{}, refuse(ErrStale, frame, "newest transform is %v old, at most %v accepted", now.Sub(newest).Round(time.Millisecond), maxAge)
}

// route is the two climbs from target and from source to their lowest
// common ancestor: the child frames whose transforms compose each side.
type route struct{ target, source []string }

func (b *Buffer) path(target, source string) (route, error) {
	for _, f := range []string{target, source} {
		if !b.known(f) {
			return route{}, refuse(ErrUnknownFrame, f, "no transform names it")
		}
	}
	sUp, sRoot := b.climb(source)
	tUp, tRoot := b.climb(target)
	if sRoot != tRoot {
		return route{}, refuse(ErrNotConnected, source, "its tree's root is %q, %q's is %q", sRoot, target, tRoot)
	}
	// Trim the shared top of both climbs.
	for len(sUp) > 0 && len(tUp) > 0 && sUp[len(sUp)-1] == tUp[len(tUp)-1] {
		sUp, tUp = sUp[:len(sUp)-1], tUp[:len(tUp)-1]
	}
	return route{target: tUp, source: sUp}, nil
}

// climb lists the child frames from f up to, not including, its root.
func (b *Buffer) climb(f string) ([]string, string) {
	var up []string
	for n := 0; n < maxDepth; n++ {
		fr := b.frames[f]
		if fr == nil {
			return up, f
		}
		up = append(up, f)
		f = fr.parent
	}
	return up, f
}

func (b *Buffer) known(name string) bool {
	if _, ok := b.frames[name]; ok {
		return true
	}
	for _, f := range b.frames {
		if f.parent == name {
			return true
		}
	}
	return false
}

// latest is the newest time every dynamic link of r has a sample for.
func (b *Buffer) latest(r route) time.Time {
	var at time.Time
	for _, c := range append(append([]string(nil), r.source...), r.target...) {
		f := b.frames[c]
		if f.static || len(f.samples) == 0 {
			continue
		}
		if n := f.samples[len(f.samples)-1].at; at.IsZero() || n.Before(at) {
			at = n
		}
	}
	return at
}

// chain composes the transforms of the listed child frames, lowest
// first, into the pose of the first in the last one's parent.
func (b *Buffer) chain(up []string, at time.Time) (Transform, error) {
	tr := Identity
	for _, c := range up {
		l, err := b.link(c, at)
		if err != nil {
			return Transform{}, err
		}
		tr = l.Mul(tr)
	}
	return tr, nil
}

// link is child's transform in its parent at time at.
func (b *Buffer) link(child string, at time.Time) (Transform, error) {
	f := b.frames[child]
	if f.rival != "" {
		return Transform{}, refuse(ErrAmbiguous, child, "published by %q and %q; pin one in the configuration or stop one", f.source, f.rival)
	}
	if len(f.samples) == 0 {
		return Transform{}, refuse(ErrNoData, child, "no sample yet")
	}
	if f.static {
		return f.samples[0].tr, nil
	}
	ss := f.samples
	oldest, newest := ss[0].at, ss[len(ss)-1].at
	if at.Before(oldest) || at.After(newest) {
		return Transform{}, refuse(ErrNoData, child, "asked for %s, samples cover %s to %s", stamp(at), stamp(oldest), stamp(newest))
	}
	i := sort.Search(len(ss), func(i int) bool { return !ss[i].at.Before(at) })
	if ss[i].at.Equal(at) {
		return ss[i].tr, nil
	}
	a, c := ss[i-1], ss[i]
	s := float64(at.Sub(a.at)) / float64(c.at.Sub(a.at))
	return interpolate(a.tr, c.tr, s), nil
}

// Forget drops source's claims: a frame it was believed for keeps its
// samples until the next publisher of the frame, which takes it over at
// once, and a rivalry it was part of ends. Call it when a publisher
// leaves the graph, so a restarted node need not wait the cache time.
func (b *Buffer) Forget(source string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, f := range b.frames {
		if f.rival == source {
			f.rival = ""
		}
		if f.source == source {
			f.source, f.heard, f.rival = "", time.Time{}, ""
		}
	}
}

// Sources lists the publishers the buffer believes or has seen as rivals.
func (b *Buffer) Sources() []string {
	b.mu.RLock()
	defer b.mu.RUnlock()
	var out []string
	for _, f := range b.frames {
		for _, s := range []string{f.source, f.rival} {
			if s != "" && !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	slices.Sort(out)
	return out
}

// Ignored is how many samples came from a publisher other than a pinned one.
func (b *Buffer) Ignored() uint64 {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return b.ignored
}

// Frame describes one child frame for a status page.
type Frame struct {
	Name, Parent string
	Static       bool
	Source       string    // the publisher believed
	Rival        string    // a second live publisher, when ambiguous
	Newest       time.Time // newest sample's stamp
}

// Frames lists the child frames, by name.
func (b *Buffer) Frames() []Frame {
	b.mu.RLock()
	defer b.mu.RUnlock()
	out := make([]Frame, 0, len(b.frames))
	for name, f := range b.frames {
		fr := Frame{Name: name, Parent: f.parent, Static: f.static, Source: f.source, Rival: f.rival}
		if len(f.samples) > 0 {
			fr.Newest = f.samples[len(f.samples)-1].at
		}
		out = append(out, fr)
	}
	slices.SortFunc(out, func(a, b Frame) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// clean drops tf1's leading slash, which tf2 ignores too.
func clean(name string) string { return strings.TrimPrefix(name, "/") }

func valid(parent, child string, t Transform) error {
	for _, n := range []string{parent, child} {
		if n == "" || len(n) > maxNameLen {
			return refuse(ErrInvalid, n, "a frame name is 1 to %d bytes", maxNameLen)
		}
	}
	if parent == child {
		return refuse(ErrInvalid, child, "a frame cannot be its own parent")
	}
	q := t.Rotation
	for _, v := range [...]float64{t.Translation[0], t.Translation[1], t.Translation[2], q[0], q[1], q[2], q[3]} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return refuse(ErrInvalid, child, "a number is not finite")
		}
	}
	if n2 := q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3]; math.Abs(n2-1) > 0.01 {
		// tf2 refuses the same, at the same tolerance.
		return refuse(ErrInvalid, child, "rotation quaternion has squared norm %.4g, want 1", n2)
	}
	return nil
}

func stamp(t time.Time) string { return t.UTC().Format("15:04:05.000000") }
