package inflight

import (
	"bytes"
	"fmt"
	"testing"
)

// A flood of previews (planners preview without confirming; confirms
// drop theirs) never grows the kept previews past their budget, in
// bytes, in count, or in the ids remembered for eviction.
func TestKeptPreviewsStayWithinTheirBudget(t *testing.T) {
	c := newPreviewCache()
	for i := range 3 * previewCacheCount {
		size := 2 << 10
		if i%7 == 0 {
			size = previewCacheRecord // at the largest kept
		}
		id := fmt.Sprint("p", i)
		c.put(Preview{ID: id, raw: bytes.Repeat([]byte{'x'}, size)})
		if i%3 == 0 {
			c.drop(id)
		}
		if c.bytes > previewCacheBytes || len(c.byID) > previewCacheCount || len(c.order) > previewCacheCount {
			t.Fatalf("after %d previews: %d bytes, %d kept, %d ids remembered; budget %d bytes, %d previews",
				i+1, c.bytes, len(c.byID), len(c.order), previewCacheBytes, previewCacheCount)
		}
	}
	c.put(Preview{ID: "huge", raw: make([]byte, previewCacheRecord+1)})
	if _, ok := c.byID["huge"]; ok {
		t.Error("a preview larger than a record's budget was kept")
	}
}
