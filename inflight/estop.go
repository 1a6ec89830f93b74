package inflight

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"
)

// bucketEStop holds the e-stop latch under keyEStop. It is created by the
// first write, so stores written before the latch was durable need no
// migration (they read as "never latched").
const (
	bucketEStop = "estop"
	keyEStop    = "latch"
)

// EStopRecord is the e-stop latch as it survives a restart: whether it is
// closed, the newest event raised (0 before the first) and that event's
// reason and time.
type EStopRecord struct {
	Version int       `json:"v"`
	Latched bool      `json:"latched"`
	Event   uint64    `json:"event"`
	Reason  string    `json:"reason,omitempty"`
	Since   time.Time `json:"since,omitzero"`
	At      time.Time `json:"at"` // when this record was written
}

// PutEStop writes the latch durably (fsync) before returning. Event numbers
// never go back: a record older than the stored one is ErrInvalidRecord, so
// an event number is never handed out twice, across restarts too.
func (s *Store) PutEStop(ctx context.Context, r EStopRecord) error {
	return s.update(ctx, func(tx *bolt.Tx) (bool, error) {
		b, err := tx.CreateBucketIfNotExists([]byte(bucketEStop))
		if err != nil {
			return false, err
		}
		return true, s.putEStop(b, r)
	})
}

// putEStop writes r into b unless it names an event older than the stored one.
func (s *Store) putEStop(b *bolt.Bucket, r EStopRecord) error {
	old, found, err := loadEStop(b)
	if err != nil {
		return err
	}
	if found && r.Event < old.Event {
		return fmt.Errorf("%w: e-stop event %d is older than the stored event %d", ErrInvalidRecord, r.Event, old.Event)
	}
	r.Version, r.Reason, r.At = recordVersion, clipText(r.Reason), s.now()
	v, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("%w: e-stop: %v", ErrInvalidRecord, err)
	}
	return b.Put([]byte(keyEStop), v)
}

// EStop returns the stored latch; found is false when none was ever written.
func (s *Store) EStop() (EStopRecord, bool, error) { return readEStopBucket(s, loadEStop) }

func loadEStop(b *bolt.Bucket) (EStopRecord, bool, error) {
	return loadRecord(b, keyEStop, "e-stop", func(r *EStopRecord) int { return r.Version })
}

// readEStopBucket reads one record of the e-stop bucket with load.
func readEStopBucket[T any](s *Store, load func(*bolt.Bucket) (T, bool, error)) (r T, found bool, err error) {
	err = s.view(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte(bucketEStop))
		if b == nil {
			return nil
		}
		r, found, err = load(b)
		return err
	})
	return r, found, err
}

// loadRecord decodes the JSON record under key (what names it in errors);
// version reads its format version, which must not be newer than ours.
func loadRecord[T any](b *bolt.Bucket, key, what string, version func(*T) int) (T, bool, error) {
	var r, zero T
	v := b.Get([]byte(key))
	if v == nil {
		return zero, false, nil
	}
	if err := json.Unmarshal(v, &r); err != nil {
		return zero, false, fmt.Errorf("%w: %s record: %v", ErrCorrupt, what, err)
	}
	if n := version(&r); n > recordVersion {
		return zero, false, fmt.Errorf("%w: %s record version %d", ErrNewerFormat, what, n)
	}
	return r, true, nil
}

// keyRun holds the RunRecord beside the latch.
const keyRun = "run"

// RunRecord marks a bridge serving from this store: written as it starts
// serving, marked ended when it stops in order. A record still running at
// the next start means the last run died (killed, crashed, power lost)
// with whatever it was doing unfinished, a stop's write included.
type RunRecord struct {
	Version int       `json:"v"`
	Running bool      `json:"running"`
	PID     int       `json:"pid"`
	Started time.Time `json:"started"`
	Ended   time.Time `json:"ended,omitzero"`
	// EventsUpTo: the run may hand out e-stop events up to this number
	// before writing them; a start after it died latches above it, so an
	// event number seen before the crash never names another cause.
	EventsUpTo uint64 `json:"events_up_to,omitempty"`
}

// EventReserve is how many e-stop events a run reserves as it starts.
const EventReserve = 1024

// RunStart is what StartRun found of the run before, and reserved.
type RunStart struct {
	Prev RunRecord // the run before this one (zero when none)
	// Unclean: the run before never ended in order, or its record is
	// unreadable; a store without any run record (fresh, or written by an
	// older bridge) is not.
	Unclean bool
	// EventFloor is the highest e-stop event the run before may have
	// handed out (stored or reserved); EventsUpTo, this run's reservation.
	EventFloor, EventsUpTo uint64
}

// StartRun records a run of pid starting now, with its reservation of
// e-stop events (fsync), and says how the run before it ended.
func (s *Store) StartRun(ctx context.Context, pid int) (RunStart, error) {
	var rs RunStart
	err := s.update(ctx, func(tx *bolt.Tx) (bool, error) {
		b, err := tx.CreateBucketIfNotExists([]byte(bucketEStop))
		if err != nil {
			return false, err
		}
		latch, _, err := loadEStop(b)
		if err != nil {
			return false, err
		}
		prev, found, err := loadRun(b)
		rs = RunStart{Prev: prev, Unclean: err != nil || found && prev.Running, EventFloor: max(latch.Event, prev.EventsUpTo)}
		rs.EventsUpTo = rs.EventFloor + EventReserve
		v, err := json.Marshal(RunRecord{Version: recordVersion, Running: true, PID: pid, Started: s.now(), EventsUpTo: rs.EventsUpTo})
		if err != nil {
			return false, err
		}
		return true, b.Put([]byte(keyRun), v)
	})
	return rs, err
}

// EndRun records the run ended in order, with latch (the e-stop as it
// stands) in the same commit: a latch whose own write failed is durable
// once the run ends clean, and a run whose latch cannot be written is not
// clean. A latch older than the stored one is ErrInvalidRecord, as for
// PutEStop, and the run stays unended.
func (s *Store) EndRun(ctx context.Context, latch EStopRecord) error {
	return s.update(ctx, func(tx *bolt.Tx) (bool, error) {
		b, err := tx.CreateBucketIfNotExists([]byte(bucketEStop))
		if err != nil {
			return false, err
		}
		if err := s.putEStop(b, latch); err != nil {
			return false, err
		}
		run, _, err := loadRun(b)
		if err != nil {
			return false, err
		}
		run.Version, run.Running, run.Ended = recordVersion, false, s.now()
		v, err := json.Marshal(run)
		if err != nil {
			return false, err
		}
		return true, b.Put([]byte(keyRun), v)
	})
}

// LastRun returns the run record.
func (s *Store) LastRun() (RunRecord, bool, error) { return readEStopBucket(s, loadRun) }

func loadRun(b *bolt.Bucket) (RunRecord, bool, error) {
	return loadRecord(b, keyRun, "run", func(r *RunRecord) int { return r.Version })
}
