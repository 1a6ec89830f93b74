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
		old, found, err := loadEStop(b)
		if err != nil {
			return false, err
		}
		if found && r.Event < old.Event {
			return false, fmt.Errorf("%w: e-stop event %d is older than the stored event %d", ErrInvalidRecord, r.Event, old.Event)
		}
		r.Version, r.Reason, r.At = recordVersion, clipText(r.Reason), s.now()
		v, err := json.Marshal(r)
		if err != nil {
			return false, fmt.Errorf("%w: e-stop: %v", ErrInvalidRecord, err)
		}
		return true, b.Put([]byte(keyEStop), v)
	})
}

// EStop returns the stored latch; found is false when none was ever written.
func (s *Store) EStop() (r EStopRecord, found bool, err error) {
	err = s.view(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte(bucketEStop))
		if b == nil {
			return nil
		}
		r, found, err = loadEStop(b)
		return err
	})
	return r, found, err
}

func loadEStop(b *bolt.Bucket) (EStopRecord, bool, error) {
	v := b.Get([]byte(keyEStop))
	if v == nil {
		return EStopRecord{}, false, nil
	}
	var r EStopRecord
	if err := json.Unmarshal(v, &r); err != nil {
		return EStopRecord{}, false, fmt.Errorf("%w: e-stop record: %v", ErrCorrupt, err)
	}
	if r.Version > recordVersion {
		return EStopRecord{}, false, fmt.Errorf("%w: e-stop record version %d", ErrNewerFormat, r.Version)
	}
	return r, true, nil
}
