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
	mu   sync.Mutex
	free [][]byte
}

// maxPooled bounds the buffers a pool keeps: a writer's history gives one
// back per write while it streams, and a burst of drops more than that
// goes to the garbage collector.
const maxPooled = 32

// poolQuantum rounds the size of the buffers a pool makes up, so that a
// topic whose samples vary a little in size reuses them.
const poolQuantum = 256

// copyOf returns a copy of b in a pooled buffer (a new one when none is
// large enough).
func (sp *samplePool) copyOf(b []byte) []byte {
	sp.mu.Lock()
	for i := len(sp.free) - 1; i >= 0; i-- {
		if buf := sp.free[i]; cap(buf) >= len(b) {
			last := len(sp.free) - 1
			sp.free[i] = sp.free[last]
			sp.free[last] = nil
			sp.free = sp.free[:last]
			sp.mu.Unlock()
			buf = buf[:len(b)]
			copy(buf, b)
			return buf
		}
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
	if len(sp.free) < maxPooled {
		sp.free = append(sp.free, buf[:0])
	}
}
