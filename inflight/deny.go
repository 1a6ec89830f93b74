package inflight

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	bolt "go.etcd.io/bbolt"
)

// bucketDenials holds id → Denial. It is created by the first denial, so
// stores written before denials existed need no migration.
const bucketDenials = "denials"

// Denial records an operator's refusal of a preview.
type Denial struct {
	PreviewID string    `json:"preview_id"`
	By        string    `json:"by"`
	At        time.Time `json:"at"`
	// ExpiresAt is the preview's expiry before the denial cut it short.
	ExpiresAt time.Time `json:"expires_at"`
}

// DenyPreview refuses preview id for good. In one write transaction it moves
// the preview's expiry into the past, so every later ConfirmPreview refuses it
// (ErrPreviewExpired) in the same serial order as any confirm, and records
// who denied it. A used preview is ErrPreviewUsed (too late: stop the
// motion instead); an expired one is ErrPreviewExpired; denying twice is
// not an error.
func (s *Store) DenyPreview(ctx context.Context, id, who string) error {
	s.denials.Store(true) // before the write: a Denied after it must read
	return s.update(ctx, func(tx *bolt.Tx) (bool, error) {
		previews, err := bucket(tx, bucketPreviews)
		if err != nil {
			return false, err
		}
		p, err := loadPreview(previews, id)
		if err != nil {
			return false, err
		}
		if d := tx.Bucket([]byte(bucketDenials)); d != nil && d.Get([]byte(id)) != nil {
			return false, nil
		}
		now := s.now()
		if err := usable(p, now); err != nil {
			return false, err
		}
		denials, err := tx.CreateBucketIfNotExists([]byte(bucketDenials))
		if err != nil {
			return false, err
		}
		if err := pruneDenials(denials, now.Add(-s.opts.Retention)); err != nil {
			return false, err
		}
		b, err := json.Marshal(Denial{PreviewID: id, By: clipText(who), At: now, ExpiresAt: p.ExpiresAt})
		if err != nil {
			return false, err
		}
		if err := denials.Put([]byte(id), b); err != nil {
			return false, err
		}
		// Back to its creation, not just now: a wall clock stepping back a
		// little must not make a denied preview confirmable again.
		p.ExpiresAt = now
		if !p.CreatedAt.IsZero() && p.CreatedAt.Before(now) {
			p.ExpiresAt = p.CreatedAt
		}
		return true, putPreview(previews, p)
	})
}

// pruneDenials drops denials older than cutoff: their previews have long
// expired. Denials are human actions, so the bucket stays small.
func pruneDenials(denials *bolt.Bucket, cutoff time.Time) error {
	var old [][]byte
	err := denials.ForEach(func(k, v []byte) error {
		var d Denial
		if json.Unmarshal(v, &d) != nil || d.At.Before(cutoff) {
			old = append(old, bytes.Clone(k))
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, k := range old {
		if err := denials.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// Denied returns the denial of preview id, if it was denied.
func (s *Store) Denied(id string) (Denial, bool, error) {
	if !s.denials.Load() {
		return Denial{}, false, nil
	}
	var d Denial
	var found bool
	err := s.view(func(tx *bolt.Tx) error {
		denials := tx.Bucket([]byte(bucketDenials))
		if denials == nil {
			return nil
		}
		v := denials.Get([]byte(id))
		if v == nil {
			return nil
		}
		found = true
		if err := json.Unmarshal(v, &d); err != nil {
			return fmt.Errorf("%w: denial record: %v", ErrCorrupt, err)
		}
		return nil
	})
	return d, found, err
}

// PendingPreviews lists the previews that could still be confirmed at now
// (unused, unexpired, not denied), oldest first. It decodes every stored
// preview: poll it every second or so, not per request.
func (s *Store) PendingPreviews(now time.Time) ([]Preview, error) {
	var out []Preview
	err := s.view(func(tx *bolt.Tx) error {
		previews, err := bucket(tx, bucketPreviews)
		if err != nil {
			return err
		}
		denials := tx.Bucket([]byte(bucketDenials))
		return previews.ForEach(func(k, v []byte) error {
			if denials != nil && denials.Get(k) != nil {
				return nil
			}
			p, err := decodePreview(v)
			if err != nil {
				return err
			}
			if p.UsedBy == "" && now.Before(p.ExpiresAt) {
				out = append(out, p)
			}
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].CreatedAt.Equal(out[j].CreatedAt) {
			return out[i].CreatedAt.Before(out[j].CreatedAt)
		}
		return out[i].ID < out[j].ID
	})
	return out, nil
}

// noteDenials sets s.denials when the file may hold a denial.
func (s *Store) noteDenials() error {
	if s.opts.ReadOnly {
		s.denials.Store(true)
		return nil
	}
	return s.view(func(tx *bolt.Tx) error {
		if d := tx.Bucket([]byte(bucketDenials)); d != nil {
			if k, _ := d.Cursor().First(); k != nil {
				s.denials.Store(true)
			}
		}
		return nil
	})
}
