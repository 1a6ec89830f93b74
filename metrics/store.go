package metrics

import (
	"context"
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/actbridge/actbridge/bridge"
	"github.com/actbridge/actbridge/inflight"
)

// ObserveCommit records one fsynced store commit (inflight.Options.ObserveCommit);
// it runs on the store's writer and only touches an atomic histogram.
func (m *Metrics) ObserveCommit(d time.Duration) {
	m.commit.Observe(d.Seconds())
}

// Store operations, the op label of actbridge_store_errors_total.
var storeOps = []string{"put_preview", "get_preview", "confirm_preview", "transition", "get", "non_terminal", "list"}

// InstrumentStore wraps the tools' motion store to count its failures; answers
// such as not found, preview used or a refused transition are not failures.
func (m *Metrics) InstrumentStore(s bridge.MotionStore) bridge.MotionStore {
	for _, op := range storeOps {
		m.storeErrors.WithLabelValues(op)
	}
	return countingStore{s: s, errs: m.storeErrors}
}

type countingStore struct {
	s    bridge.MotionStore
	errs *prometheus.CounterVec
}

// answers are errors that say something about the request, not the store.
var answers = []error{inflight.ErrNotFound, inflight.ErrInvalidRecord, inflight.ErrDuplicate,
	inflight.ErrInvalidTransition, inflight.ErrPreviewUsed, inflight.ErrPreviewExpired,
	inflight.ErrKeyReused, inflight.ErrBadCursor, context.Canceled, context.DeadlineExceeded}

func (c countingStore) note(op string, err error) {
	if err == nil {
		return
	}
	for _, a := range answers {
		if errors.Is(err, a) {
			return
		}
	}
	c.errs.WithLabelValues(op).Inc()
}

func (c countingStore) PutPreview(ctx context.Context, p inflight.Preview) error {
	err := c.s.PutPreview(ctx, p)
	c.note("put_preview", err)
	return err
}

func (c countingStore) GetPreview(id string) (inflight.Preview, error) {
	p, err := c.s.GetPreview(id)
	c.note("get_preview", err)
	return p, err
}

func (c countingStore) ConfirmPreview(ctx context.Context, p inflight.Preview, mo inflight.Motion) (inflight.Motion, bool, error) {
	out, created, err := c.s.ConfirmPreview(ctx, p, mo)
	c.note("confirm_preview", err)
	return out, created, err
}

func (c countingStore) Transition(ctx context.Context, id string, to inflight.State, mutate func(*inflight.Motion)) (inflight.Motion, error) {
	out, err := c.s.Transition(ctx, id, to, mutate)
	c.note("transition", err)
	return out, err
}

func (c countingStore) Get(id string) (inflight.Motion, error) {
	out, err := c.s.Get(id)
	c.note("get", err)
	return out, err
}

func (c countingStore) NonTerminal() ([]inflight.Motion, error) {
	out, err := c.s.NonTerminal()
	c.note("non_terminal", err)
	return out, err
}

func (c countingStore) List(f inflight.Filter, cursor string, limit int) ([]inflight.Motion, int, string, error) {
	items, total, next, err := c.s.List(f, cursor, limit)
	c.note("list", err)
	return items, total, next, err
}

func (c countingStore) Healthy() error { return c.s.Healthy() }
