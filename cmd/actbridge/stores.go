package main

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/actbridge/actbridge/bridge"
	"github.com/actbridge/actbridge/console"
	"github.com/actbridge/actbridge/inflight"
)

// brokenStore stands in for a store that failed to open: every call fails
// with the reason, so irreversible tools refuse and reads keep working.
type brokenStore struct{ err error }

func (b brokenStore) PutPreview(context.Context, inflight.Preview) error { return b.err }
func (b brokenStore) GetPreview(string) (inflight.Preview, error)        { return inflight.Preview{}, b.err }
func (b brokenStore) ConfirmPreview(context.Context, inflight.Preview, inflight.Motion) (inflight.Motion, bool, error) {
	return inflight.Motion{}, false, b.err
}
func (b brokenStore) Transition(context.Context, string, inflight.State, func(*inflight.Motion)) (inflight.Motion, error) {
	return inflight.Motion{}, b.err
}
func (b brokenStore) Get(string) (inflight.Motion, error)     { return inflight.Motion{}, b.err }
func (b brokenStore) NonTerminal() ([]inflight.Motion, error) { return nil, b.err }
func (b brokenStore) List(inflight.Filter, string, int) ([]inflight.Motion, int, string, error) {
	return nil, 0, "", b.err
}
func (b brokenStore) Healthy() error { return b.err }
func (b brokenStore) AuditList(string, int) ([]inflight.AuditRecord, string, error) {
	return nil, "", b.err
}

// idemStore maps the store's idempotency errors to the bridge's.
type idemStore struct{ s *inflight.Store }

func (i idemStore) Lookup(key, digest string) (json.RawMessage, bool, error) {
	r, found, err := i.s.Lookup(key, digest)
	if errors.Is(err, inflight.ErrKeyReused) {
		e := bridge.RuleError(bridge.CodeInvalidArgument, "idempotency_key_unique", "idempotency_key",
			"this idempotency_key was used with different arguments")
		e.Expected, e.Actual = "the same arguments as the first call with this key, or a new key", "different arguments"
		return nil, false, e
	}
	return r, found, err
}

func (i idemStore) Remember(ctx context.Context, key, digest string, r json.RawMessage) error {
	return i.s.Remember(ctx, key, digest, r)
}

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

// auditor writes every call to the audit log from one goroutine, in
// batches of one commit each, so the pipeline never waits on the store.
type auditor struct {
	s  *inflight.Store
	ch chan bridge.CallRecord
}

func newAuditor(s *inflight.Store) *auditor {
	return &auditor{s: s, ch: make(chan bridge.CallRecord, auditQueue)}
}

// ObserveCall queues a record; when the queue is full the record is dropped
// rather than slowing a call (a stop must never wait on the audit log).
func (a *auditor) ObserveCall(r bridge.CallRecord) {
	if a.s == nil {
		return
	}
	if r.Session == console.Session && r.Tier == bridge.TierRead && r.Outcome == "ok" {
		return // the console's once-a-second refresh; its actions are audited
	}
	select {
	case a.ch <- r:
	default:
	}
}

// run writes queued records until ctx ends, then writes what is still
// queued. After a batch's first record it sleeps out the linger instead of
// waiting on the queue, so a call's ObserveCall never has to wake this
// goroutine (a thread wake-up per call, about a tenth of a read's CPU).
func (a *auditor) run(ctx context.Context) {
	batch := make([]inflight.AuditRecord, 0, auditBatch)
	linger := time.NewTimer(time.Hour)
	linger.Stop()
	for {
		select {
		case <-ctx.Done():
			a.drain(batch)
			return
		case r := <-a.ch:
			batch = append(batch[:0], auditRecord(r))
		}
		if len(a.ch) < auditBatch-1 {
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
			case r := <-a.ch:
				batch = append(batch, auditRecord(r))
			default:
				break gather
			}
		}
		_ = a.s.AppendAll(context.WithoutCancel(ctx), batch) // a failure shows in the store's health
	}
}

// drain writes the records still queued at shutdown.
func (a *auditor) drain(batch []inflight.AuditRecord) {
	batch = batch[:0]
	for {
		select {
		case r := <-a.ch:
			batch = append(batch, auditRecord(r))
		default:
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			_ = a.s.AppendAll(ctx, batch)
			return
		}
	}
}

func auditRecord(r bridge.CallRecord) inflight.AuditRecord {
	return inflight.AuditRecord{Time: r.Started, Role: string(r.Role), Via: r.Via, Tool: r.Tool,
		ArgsDigest: r.ArgsDigest, Args: r.Args, Outcome: r.Outcome, Code: string(r.Code),
		LatencyMicros: r.Latency.Microseconds(), MotionID: r.MotionID}
}

// releaseMapped gives the store's memory-mapped pages back every period
// until ctx ends (inflight.Store.ReleaseMapped): under a flood of audited
// calls they grew the bridge's RSS by tens of MB a minute.
func releaseMapped(ctx context.Context, st *inflight.Store, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			_ = st.ReleaseMapped() // a closed store at shutdown: nothing to give back
		}
	}
}
