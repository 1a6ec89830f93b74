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
func (b brokenStore) Healthy() error                                       { return b.err }
func (b brokenStore) PutEStop(context.Context, inflight.EStopRecord) error { return b.err }
func (b brokenStore) EStop() (inflight.EStopRecord, bool, error) {
	return inflight.EStopRecord{}, false, b.err
}
func (b brokenStore) StartRun(context.Context, int) (inflight.RunStart, error) {
	return inflight.RunStart{}, b.err
}
func (b brokenStore) EndRun(context.Context, inflight.EStopRecord) error { return b.err }
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

// auditCalls hands every call to the store's audit writer, except the
// console's once-a-second refresh reads (its actions are audited).
type auditCalls struct{ w *inflight.AuditWriter }

func (a auditCalls) ObserveCall(r bridge.CallRecord) {
	if r.Session == console.Session && r.Tier == bridge.TierRead && r.Outcome == "ok" {
		return
	}
	a.w.Add(r.Audit())
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
