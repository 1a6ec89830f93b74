package bridge

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/actbridge/actbridge/inflight"
	"github.com/actbridge/actbridge/safety"
)

// EStopStore keeps the e-stop latch across restarts, and the run record
// that tells a clean exit from a crash (inflight.Store).
type EStopStore interface {
	PutEStop(ctx context.Context, r inflight.EStopRecord) error
	EStop() (inflight.EStopRecord, bool, error)
	StartRun(ctx context.Context, pid int) (inflight.RunStart, error)
	EndRun(ctx context.Context, latch inflight.EStopRecord) error
}

// ErrEStopNotDurable: the store did not take the latch's new state.
var ErrEStopNotDurable = errors.New("e-stop: not written to the store")

// EStopUnknownReason is the latch's reason when the store could not be
// read at start: the bridge cannot know the stop was released, so it stays
// stopped until an operator resets it (which needs a working store).
const EStopUnknownReason = "e-stop state unknown: the store could not be read at start"

// UncleanExitReason starts the latch's reason when the last run from the
// store never ended in order: a stop's cancels leave before its latch is
// written, so a bridge that died may have stopped the robot without
// keeping the latch; it comes back stopped, as an industrial controller
// does after a fault, until an operator looks and resets.
const UncleanExitReason = "the bridge did not shut down cleanly"

// DurableEStop is the e-stop latch kept in the store, above the transport.
// A latch closes in memory first and is then written (fsync): a stop never
// fails because of the disk, it only says it is not durable. Within a run
// the store recorded (StartRun) and has not ended, the stop does not wait
// for the write either: a crash before it restarts latched. A reset is
// written first and released in memory only after: a release the disk did
// not take is refused, since a restart would latch again anyway.
type DurableEStop struct {
	latch *safety.EStop
	store EStopStore
	// mu orders the writes, so the store ends with the newest state.
	mu sync.Mutex
	// recorded: StartRun wrote this run, with events reserved up to
	// reserved; ended: EndRun wrote its end (no crash rule after it).
	recorded, ended atomic.Bool
	reserved        atomic.Uint64
}

// RestoreEStop rebuilds the latch from store before any tool is served. A
// store that cannot be read yields a closed latch (EStopUnknownReason) and
// the error; nil store means no persistence (offline catalogue only).
func RestoreEStop(store EStopStore, now func() time.Time) (*DurableEStop, error) {
	d := &DurableEStop{store: store}
	if store == nil {
		d.latch = safety.NewEStop(now)
		return d, nil
	}
	r, found, err := store.EStop()
	switch {
	case err != nil:
		d.latch = safety.RestoreEStop(safety.EStopSnapshot{Latched: true, Event: r.Event + 1, Reason: EStopUnknownReason, Since: clock(now)}, now)
		return d, fmt.Errorf("e-stop: %w", err)
	case found:
		d.latch = safety.RestoreEStop(safety.EStopSnapshot{Latched: r.Latched, Event: r.Event, Reason: r.Reason, Since: r.Since}, now)
	default:
		d.latch = safety.NewEStop(now)
	}
	return d, nil
}

func clock(now func() time.Time) time.Time {
	if now == nil {
		return time.Now()
	}
	return now()
}

// Latch closes the latch in memory at once and returns its event; Persist
// then writes it. Apart, so the caller can latch under its own lock and
// pay the fsync outside it.
func (d *DurableEStop) Latch(reason string) uint64 { return d.latch.Latch(reason) }

// Persist writes the latch as it is now (fsync). An error wraps
// ErrEStopNotDurable: the latch holds, but a restart would lose it.
func (d *DurableEStop) Persist(ctx context.Context) error {
	if d.store == nil {
		return fmt.Errorf("%w: no store", ErrEStopNotDurable)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.store.PutEStop(ctx, record(d.latch.Snapshot())); err != nil {
		return fmt.Errorf("%w: %w", ErrEStopNotDurable, err)
	}
	return nil
}

// StartRun records this run (process pid) in the store as serving starts.
// When the run before it never ended in order, the latch closes with
// UncleanExitReason on a new event above every number that run may have
// shown (and is written); latched is then true. A store that cannot
// record the run is err, and the latch closes too: a stop in this run
// then waits (briefly) for its write, as PersistFirst says.
func (d *DurableEStop) StartRun(ctx context.Context, pid int) (latched bool, err error) {
	if d.store == nil {
		return false, nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	rs, err := d.store.StartRun(ctx, pid)
	var why string
	switch {
	case err != nil:
		why = "the store could not record this run (" + err.Error() + "), so a crash would go unnoticed"
	case rs.Unclean:
		why = fmt.Sprintf("%s (process %d, started %s)", UncleanExitReason, rs.Prev.PID, rs.Prev.Started.UTC().Format(time.RFC3339))
	}
	if err == nil {
		d.reserved.Store(rs.EventsUpTo)
		d.recorded.Store(true)
	}
	if why == "" {
		return false, nil
	}
	if l, _, before := d.State(); l {
		why += "; latched before it: " + before
	}
	d.latch.LatchAbove(rs.EventFloor, why)
	if perr := d.store.PutEStop(ctx, record(d.latch.Snapshot())); perr != nil && err == nil {
		err = fmt.Errorf("%w: %w", ErrEStopNotDurable, perr)
	}
	return true, err
}

// EndRun records the run ended in order, with the latch as it stands in
// the same commit (so a latch whose own write failed is kept now); a stop
// after it writes its latch before its cancels (PersistFirst). An error
// leaves the run unended and the next start latched.
func (d *DurableEStop) EndRun(ctx context.Context) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.ended.Store(true) // before the snapshot: a latch it misses sees this
	if d.store == nil {
		return nil
	}
	if err := d.store.EndRun(ctx, record(d.latch.Snapshot())); err != nil {
		return fmt.Errorf("%w: %w", ErrEStopNotDurable, err)
	}
	return nil
}

// PersistFirst says whether a stop latched now must write its latch before
// its cancels leave (bounded by stopPersistWait) because a crash after
// them would not restart latched: outside a recorded run (no StartRun, or
// it failed), after EndRun, or past the run's reserved event numbers.
func (d *DurableEStop) PersistFirst() bool {
	_, ev, _ := d.State()
	return !d.recorded.Load() || d.ended.Load() || ev > d.reserved.Load()
}

// stopPersistWait bounds how long a stop's cancels wait for its latch's
// write when PersistFirst: a slow or hung disk never holds a stop back by
// more.
const stopPersistWait = 50 * time.Millisecond

// Reset releases event when the store has taken the release; otherwise the
// latch stays closed and err wraps ErrEStopNotDurable. Refusals of the
// event itself are safety's (ErrEStopNewerEvent, ErrEStopUnknownEvent).
func (d *DurableEStop) Reset(ctx context.Context, event uint64) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	s := d.latch.Snapshot()
	trial := safety.RestoreEStop(s, nil)
	if err := trial.Reset(event); err != nil || !s.Latched {
		return err
	}
	if d.store == nil {
		return fmt.Errorf("%w: no store", ErrEStopNotDurable)
	}
	if err := d.store.PutEStop(ctx, record(trial.Snapshot())); err != nil {
		return fmt.Errorf("%w: %w", ErrEStopNotDurable, err)
	}
	// A stop raised since the snapshot refuses this (newer event) and
	// writes its own latch after us: it holds mu until we return.
	return d.latch.Reset(event)
}

// State reports the latch as the tools see it.
func (d *DurableEStop) State() (latched bool, event uint64, reason string) {
	l, ev, r, _ := d.latch.State()
	return l, ev, r
}

// Since reports the latch with the time it closed (robot_describe).
func (d *DurableEStop) Since() (latched bool, event uint64, reason string, since time.Time) {
	return d.latch.State()
}

func record(s safety.EStopSnapshot) inflight.EStopRecord {
	return inflight.EStopRecord{Latched: s.Latched, Event: s.Event, Reason: s.Reason, Since: s.Since}
}

// EStopLatch is the e-stop as the tools use it (DurableEStop): Latch
// closes it in memory, Persist writes it; Reset applies only what it wrote.
type EStopLatch interface {
	Latch(reason string) uint64
	Persist(ctx context.Context) error
	PersistFirst() bool
	Reset(ctx context.Context, event uint64) error
	State() (latched bool, event uint64, reason string)
}
