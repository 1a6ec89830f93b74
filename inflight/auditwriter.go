package inflight

import (
	"context"
	"time"
)

// auditQueue is how many records may wait for the audit writer; auditBatch
// how many one commit takes; auditLinger how long the writer waits for
// company after the first record, so a steady trickle of reads costs at
// most fifty commits a second, not one per call. Each commit is two device
// flushes; at 5 ms (200 a second under one busy client) they were an
// eighth of the bridge's CPU per read on a 2-core VM. What a killed
// process loses of the audit log is what waited here, at most this long;
// motions never wait here (their records are committed before the send).
const (
	auditQueue  = 16384
	auditBatch  = 1024
	auditLinger = 20 * time.Millisecond
)

// AuditWriter appends audit records from one goroutine, in batches of one
// commit each, so a call never waits on the store. Run it; records added
// while it does not run wait in a bounded queue.
type AuditWriter struct {
	s  *Store
	ch chan AuditRecord
}

// NewAuditWriter writes to s; with a nil s (no store) Add drops records.
func NewAuditWriter(s *Store) *AuditWriter {
	return &AuditWriter{s: s, ch: make(chan AuditRecord, auditQueue)}
}

// Add queues a record; when the queue is full the record is dropped rather
// than slowing a call (a stop must never wait on the audit log).
func (w *AuditWriter) Add(r AuditRecord) {
	if w.s == nil {
		return
	}
	select {
	case w.ch <- r:
	default:
	}
}

// Run writes queued records until ctx ends, then writes what is still
// queued. After a batch's first record it sleeps out the linger instead of
// waiting on the queue, so Add never has to wake this goroutine (a thread
// wake-up per call, about a tenth of a read's CPU).
func (w *AuditWriter) Run(ctx context.Context) {
	batch := make([]AuditRecord, 0, auditBatch)
	linger := time.NewTimer(time.Hour)
	linger.Stop()
	for {
		select {
		case <-ctx.Done():
			w.drain(batch)
			return
		case r := <-w.ch:
			batch = append(batch[:0], r)
		}
		if len(w.ch) < auditBatch-1 {
			linger.Reset(auditLinger)
			select {
			case <-linger.C:
			case <-ctx.Done():
				linger.Stop()
			}
		}
	gather:
		for len(batch) < auditBatch {
			select {
			case r := <-w.ch:
				batch = append(batch, r)
			default:
				break gather
			}
		}
		_ = w.s.AppendAll(context.WithoutCancel(ctx), batch) // a failure shows in the store's health
	}
}

// drain writes the records still queued at shutdown.
func (w *AuditWriter) drain(batch []AuditRecord) {
	batch = batch[:0]
	for {
		select {
		case r := <-w.ch:
			batch = append(batch, r)
		default:
			if w.s == nil || len(batch) == 0 {
				return
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			_ = w.s.AppendAll(ctx, batch)
			return
		}
	}
}
