package bridge

import (
	"net/http"
	"strconv"
	"sync"
)

// tickets hand a value from admission to the tool handler of the same
// request. The MCP SDK passes the request's headers on to the handler and
// nothing else of it, so the value waits here under a ticket that
// admission writes into header (after stripping any a client sent).
type tickets[T any] struct {
	header string

	mu    sync.Mutex
	next  uint64
	items map[string]T
}

func newTickets[T any](header string) *tickets[T] {
	return &tickets[T]{header: header, items: map[string]T{}}
}

// keep holds v for r's handler and marks r with its ticket; forget drops
// v once the request is over, claimed or not.
func (k *tickets[T]) keep(r *http.Request, v T) (forget func()) {
	k.mu.Lock()
	k.next++
	ticket := strconv.FormatUint(k.next, 10)
	k.items[ticket] = v
	k.mu.Unlock()
	r.Header.Set(k.header, ticket)
	return func() {
		k.mu.Lock()
		delete(k.items, ticket)
		k.mu.Unlock()
	}
}

// claim returns, once, the value kept under the ticket in h; marked is
// false when h carries none, ok false when the request ended first.
func (k *tickets[T]) claim(h http.Header) (v T, marked, ok bool) {
	ticket := h.Get(k.header)
	if ticket == "" {
		return v, false, false
	}
	k.mu.Lock()
	v, ok = k.items[ticket]
	delete(k.items, ticket)
	k.mu.Unlock()
	return v, true, ok
}

// held is how many values wait for their handlers.
func (k *tickets[T]) held() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return len(k.items)
}
