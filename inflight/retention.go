package inflight

import (
	"bytes"
	"context"
	"encoding/json"
	"time"

	bolt "go.etcd.io/bbolt"
)

// sweepChunk bounds one deleting transaction, so a large backlog neither
// holds the writer lock for long (Claim waits on it) nor builds a huge
// transaction in memory.
const sweepChunk = 5000

// Removed counts what one Compact deleted.
type Removed struct {
	Motions, Previews, Keys, Audit int
}

// Compact deletes records older than the retention window before now:
// finished motions (by UpdatedAt), previews past their expiry (used or
// not), idempotency keys and audit lines. Open motions, unknown included,
// are never deleted. It commits in chunks, so a cancelled Compact keeps its
// progress. Freed pages are reused; the file itself shrinks only at Open.
func (s *Store) Compact(ctx context.Context, now time.Time) (Removed, error) {
	cutoff := now.Add(-s.opts.Retention)
	var rm Removed
	sweeps := []struct {
		removed *int
		sweep   func(*bolt.Tx, time.Time) ([][]byte, error)
		bucket  string
	}{
		{&rm.Motions, oldMotions, bucketMotions},
		{&rm.Previews, oldPreviews, bucketPreviews},
		{&rm.Keys, oldKeys, bucketKeys},
		{&rm.Audit, oldAudit, bucketAudit},
	}
	for _, sw := range sweeps {
		for {
			var n int
			err := s.update(ctx, func(tx *bolt.Tx) (bool, error) {
				keys, err := sw.sweep(tx, cutoff)
				if err != nil || len(keys) == 0 {
					return false, err
				}
				b, err := bucket(tx, sw.bucket)
				if err != nil {
					return false, err
				}
				for _, k := range keys {
					if err := b.Delete(k); err != nil {
						return false, err
					}
				}
				n = len(keys)
				return true, nil
			})
			if err != nil {
				return rm, err
			}
			*sw.removed += n
			if n < sweepChunk {
				break
			}
		}
	}
	return rm, nil
}

// RunRetention runs Compact now and then every interval until ctx ends,
// and returns ctx's error. The caller owns the goroutine and must stop it
// before Close. Failures show up in Healthy; the next round retries.
func (s *Store) RunRetention(ctx context.Context, every time.Duration) error {
	if every <= 0 {
		every = time.Hour
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		_, _ = s.Compact(ctx, s.now())
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}

// oldMotions returns ids of finished motions last updated before cutoff and
// deletes their order entries (the caller deletes the records).
func oldMotions(tx *bolt.Tx, cutoff time.Time) ([][]byte, error) {
	motions, order, err := motionBuckets(tx)
	if err != nil {
		return nil, err
	}
	var ids, orderKeys [][]byte
	err = order.ForEach(func(k, v []byte) error {
		if state, _ := splitOrderValue(v); !IsTerminal(state) || len(ids) == sweepChunk {
			return nil
		}
		m, err := loadOrdered(motions, k)
		if err != nil {
			return err
		}
		if m.UpdatedAt.Before(cutoff) {
			ids = append(ids, []byte(m.ID))
			orderKeys = append(orderKeys, bytes.Clone(k))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, k := range orderKeys {
		if err := order.Delete(k); err != nil {
			return nil, err
		}
	}
	return ids, nil
}

func oldPreviews(tx *bolt.Tx, cutoff time.Time) ([][]byte, error) {
	return olderThan(tx, bucketPreviews, cutoff, func(v []byte) (time.Time, error) {
		var p struct {
			ExpiresAt time.Time `json:"expires_at"`
		}
		err := json.Unmarshal(v, &p)
		return p.ExpiresAt, err
	})
}

func oldKeys(tx *bolt.Tx, cutoff time.Time) ([][]byte, error) {
	return olderThan(tx, bucketKeys, cutoff, func(v []byte) (time.Time, error) {
		var r struct {
			At time.Time `json:"at"`
		}
		err := json.Unmarshal(v, &r)
		return r.At, err
	})
}

// olderThan scans a whole bucket: previews and keys are few, bounded by
// retention itself.
func olderThan(tx *bolt.Tx, name string, cutoff time.Time, at func([]byte) (time.Time, error)) ([][]byte, error) {
	b, err := bucket(tx, name)
	if err != nil {
		return nil, err
	}
	var keys [][]byte
	c := b.Cursor()
	for k, v := c.First(); k != nil && len(keys) < sweepChunk; k, v = c.Next() {
		t, err := at(v)
		if err != nil || t.Before(cutoff) { // an undecodable record is garbage too
			keys = append(keys, bytes.Clone(k))
		}
	}
	return keys, nil
}

// oldAudit takes lines from the oldest on and stops at the first one inside
// the window: the log is in time order, near enough for retention.
func oldAudit(tx *bolt.Tx, cutoff time.Time) ([][]byte, error) {
	audit, err := bucket(tx, bucketAudit)
	if err != nil {
		return nil, err
	}
	var keys [][]byte
	c := audit.Cursor()
	for k, v := c.First(); k != nil && len(keys) < sweepChunk; k, v = c.Next() {
		var r struct {
			Time time.Time `json:"time"`
		}
		if err := json.Unmarshal(v, &r); err == nil && !r.Time.Before(cutoff) {
			break
		}
		keys = append(keys, bytes.Clone(k))
	}
	return keys, nil
}
