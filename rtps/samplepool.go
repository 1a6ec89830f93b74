package rtps

import "sync"

// samplePool holds the buffers a reliable writer's history copies samples
// into once they have left it, for the next writes: a writer streaming
// 1 KB samples into a fresh copy each spent a quarter of its CPU on the
// allocation and on the garbage collector returning and zeroing it.
// Buffers are put back only when nothing may still read them (see
// statefulWriter.retire). It has its own lock, so that the copy is made
// outside the participant's.
type samplePool struct {
	mu     sync.Mutex
	free   [][]byte
	octets int // capacity of free
}

// Bounds of a pool: a volatile writer's history gives back at once what
// an acknowledgment covers, up to a window of samples (1 MiB, at most
// 1024: see writeWindow), which the writes after it take again; more
// buffers, or more octets, go to the garbage collector. With 32, a
// stream of 1 KB samples allocated most of its copies afresh.
const (
	maxPooled       = 1024
	maxPooledOctets = 4 << 20
)

// poolScan is how many of the buffers put back last copyOf looks through:
// a topic's samples are mostly of one size, so the last one fits, and the
// search stays short however many are pooled.
const poolScan = 32

// poolQuantum rounds the size of the buffers a pool makes up, so that a
// topic whose samples vary a little in size reuses them.
const poolQuantum = 256

// copyOf returns a copy of b in a pooled buffer: the smallest of the last
// poolScan put back that holds it and is at most twice its size (plus
// poolQuantum), so that the buffer of a rare large sample does not go on
// holding small ones; a new one when none fits.
func (sp *samplePool) copyOf(b []byte) []byte {
	sp.mu.Lock()
	best := -1
	for i := len(sp.free) - 1; i >= max(0, len(sp.free)-poolScan); i-- {
		if c := cap(sp.free[i]); c >= len(b) && c <= 2*len(b)+poolQuantum && (best < 0 || c < cap(sp.free[best])) {
			best = i
		}
	}
	if best >= 0 {
		buf := sp.free[best]
		last := len(sp.free) - 1
		sp.free[best] = sp.free[last]
		sp.free[last] = nil
		sp.free = sp.free[:last]
		sp.octets -= cap(buf)
		sp.mu.Unlock()
		buf = buf[:len(b)]
		copy(buf, b)
		return buf
	}
	sp.mu.Unlock()
	buf := make([]byte, len(b), (len(b)+poolQuantum-1)/poolQuantum*poolQuantum)
	copy(buf, b)
	return buf
}

// put gives buf back for a later copyOf; nothing may read or write it
// after.
func (sp *samplePool) put(buf []byte) {
	if cap(buf) == 0 {
		return
	}
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if len(sp.free) < maxPooled && sp.octets+cap(buf) <= maxPooledOctets {
		sp.free = append(sp.free, buf[:0])
		sp.octets += cap(buf)
	}
}
