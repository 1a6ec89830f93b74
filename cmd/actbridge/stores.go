package main

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/actbridge/actbridge/bridge"
	"github.com/actbridge/actbridge/console"
	"github.com/actbridge/actbridge/inflight"
)

// brokenStore stands in for a store that failed to open: every call fails
// with the reason, so irreversible tools refuse and reads keep working.
type brokenStore struct{ err error }

func (b brokenStore) PutPreview(context.Context, inflight.Preview) error { return b.err }
func (b brokenStore) GetPreview(string) (inflight.Preview, error)        { return inflight.Preview{}, b.err }
func (b brokenStore) ConfirmPreview(context.Context, string, inflight.Motion) (inflight.Motion, bool, error) {
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

// auditWriters is how many goroutines append audit records concurrently.
const auditWriters = 16

// auditor writes every call to the audit log from one goroutine, so the
// pipeline never waits on the store.
type auditor struct {
	s  *inflight.Store
	ch chan bridge.CallRecord
}

func newAuditor(s *inflight.Store) *auditor {
	return &auditor{s: s, ch: make(chan bridge.CallRecord, 4096)}
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

func (a *auditor) run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case r := <-a.ch:
			_ = a.s.Append(ctx, inflight.AuditRecord{Time: r.Started, Role: string(r.Role), Tool: r.Tool,
				ArgsDigest: r.ArgsDigest, Args: r.Args, Outcome: r.Outcome, Code: string(r.Code),
				LatencyMicros: r.Latency.Microseconds(), MotionID: r.MotionID})
		}
	}
}
