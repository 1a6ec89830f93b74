package inflight

import (
	"bytes"
	"sync"
)

// Budget of the decoded previews kept for GetPreview: a confirm reads its
// preview once, usually soon after PutPreview, and a preview is worth
// keeping only while it can still be confirmed.
const (
	previewCacheBytes  = 4 << 20  // stored bytes of every preview kept
	previewCacheRecord = 64 << 10 // larger previews (long trajectories) are decoded when read
	previewCacheCount  = 4096     // previews kept, and ids remembered for eviction
)

// previewCache keeps previews as decodePreview returned them, each with
// the stored bytes it came from. It is never the record: GetPreview
// returns a kept preview only when its bytes equal what the store holds
// in the same read transaction, so it is exactly what decoding them would
// give (a preview used, denied in its record, compacted away or written
// by another process is decoded anew or not found), and a confirm can
// pass no check the store would refuse.
type previewCache struct {
	mu    sync.Mutex
	byID  map[string]Preview
	order []string // oldest first, for eviction
	bytes int
}

func newPreviewCache() *previewCache { return &previewCache{byID: map[string]Preview{}} }

// get returns id's kept preview if it was decoded from stored.
func (c *previewCache) get(id string, stored []byte) (Preview, bool) {
	c.mu.Lock()
	p, ok := c.byID[id]
	c.mu.Unlock()
	if !ok || !bytes.Equal(p.raw, stored) {
		return Preview{}, false
	}
	return p, true
}

// put keeps p (decoded from p.raw), evicting the oldest beyond the budget.
func (c *previewCache) put(p Preview) {
	if len(p.raw) > previewCacheRecord {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.byID[p.ID]; ok {
		c.bytes -= len(old.raw)
	} else {
		c.order = append(c.order, p.ID)
	}
	c.byID[p.ID], c.bytes = p, c.bytes+len(p.raw)
	for (c.bytes > previewCacheBytes || len(c.order) > previewCacheCount) && len(c.order) > 0 {
		id := c.order[0]
		c.order = c.order[1:]
		if old, ok := c.byID[id]; ok {
			c.bytes -= len(old.raw)
			delete(c.byID, id)
		}
	}
}

// drop forgets id (consumed: its record changed, a replay decodes it).
func (c *previewCache) drop(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.byID[id]; ok {
		c.bytes -= len(old.raw)
		delete(c.byID, id)
		// its id stays in order until evicted from the front (order is bounded by count)
	}
}
