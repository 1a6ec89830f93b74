package metrics

// idRing remembers the last n ids added, so an event reported twice is
// counted once without remembering every id forever. Not safe for
// concurrent use: Metrics.mu guards it.
type idRing struct {
	ids  []string
	next int
	set  map[string]struct{}
}

func newIDRing(n int) *idRing {
	return &idRing{ids: make([]string, n), set: make(map[string]struct{}, n)}
}

// add records id and reports whether it was new.
func (r *idRing) add(id string) bool {
	if _, ok := r.set[id]; ok {
		return false
	}
	if old := r.ids[r.next]; old != "" {
		delete(r.set, old)
	}
	r.ids[r.next] = id
	r.next = (r.next + 1) % len(r.ids)
	r.set[id] = struct{}{}
	return true
}

func (r *idRing) has(id string) bool {
	_, ok := r.set[id]
	return ok
}
