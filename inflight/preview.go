package inflight

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Preview is the impact preview a planner was shown for an irreversible
// call. It is single-use: the first consumer wins and is recorded in UsedBy.
// Signing the id is the bridge's job; the store only keys by it.
type Preview struct {
	Version     int             `json:"v"`
	ID          string          `json:"id"`
	Tool        string          `json:"tool"`
	Actuator    string          `json:"actuator"`
	ArgsDigest  string          `json:"args_digest"`
	Args        json.RawMessage `json:"args,omitempty"`
	Goal        json.RawMessage `json:"goal,omitempty"`    // the goal confirm will publish
	StateDigest string          `json:"state_digest"`      // robot state at preview time; confirm compares
	Summary     json.RawMessage `json:"summary,omitempty"` // the preview as shown
	Role        string          `json:"role,omitempty"`    // who may confirm, as policy names it
	CreatedAt   time.Time       `json:"created_at"`
	ExpiresAt   time.Time       `json:"expires_at"`
	UsedBy      string          `json:"used_by,omitempty"` // the motion the first confirm started
	UsedAt      time.Time       `json:"used_at,omitzero"`

	// raw is the stored record p was decoded from (GetPreview), so
	// ConfirmPreview can tell, without decoding, that it has not changed.
	raw []byte
}

func (p Preview) validate() error {
	var why string
	switch {
	case p.ID == "" || len(p.ID) > 1024:
		why = "id must be 1..1024 bytes"
	case p.Tool == "":
		why = "tool is empty"
	case p.ArgsDigest == "":
		why = "args_digest is empty"
	case p.ExpiresAt.IsZero():
		why = "expires_at is missing: every preview must expire"
	case !validOptionalJSON(p.Args), !validOptionalJSON(p.Goal), !validOptionalJSON(p.Summary):
		why = "args, goal or summary is not valid JSON"
	default:
		return nil
	}
	return fmt.Errorf("%w: preview %q: %s", ErrInvalidRecord, p.ID, why)
}

func validOptionalJSON(b json.RawMessage) bool { return len(b) == 0 || json.Valid(b) }

// PutPreview stores a new, unused preview. Ids are never reused: an
// existing id is ErrDuplicate, even if that preview expired. Concurrent
// previews share one commit (DB.Batch, with fsync); the preview is readable
// when PutPreview returns.
func (s *Store) PutPreview(ctx context.Context, p Preview) error {
	if err := p.validate(); err != nil {
		return err
	}
	p.Version, p.UsedBy, p.UsedAt = recordVersion, "", time.Time{}
	if p.CreatedAt.IsZero() {
		p.CreatedAt = s.now()
	}
	b, err := json.Marshal(p)
	if err != nil {
		return fmt.Errorf("%w: preview %s: %v", ErrInvalidRecord, p.ID, err)
	}
	err = s.batch(ctx, func(tx *bolt.Tx) error {
		previews, err := bucket(tx, bucketPreviews)
		if err != nil {
			return err
		}
		if previews.Get([]byte(p.ID)) != nil {
			return fmt.Errorf("%w: preview %q", ErrDuplicate, p.ID)
		}
		return previews.Put([]byte(p.ID), b)
	})
	if err == nil {
		// Decoded here, off the confirm's path, from the bytes stored.
		if kept, derr := decodePreview(b); derr == nil {
			kept.raw = b
			s.previews.put(kept)
		}
	}
	return err
}

// GetPreview returns preview id, used or expired alike, or ErrNotFound. It
// reads the stored record every time; a preview PutPreview kept decoded
// is returned only while the record is byte for byte the one it was
// decoded from.
func (s *Store) GetPreview(id string) (Preview, error) {
	var p Preview
	err := s.view(func(tx *bolt.Tx) error {
		previews, err := bucket(tx, bucketPreviews)
		if err != nil {
			return err
		}
		v := previews.Get([]byte(id))
		if kept, ok := s.previews.get(id, v); ok && v != nil {
			p = kept.clone()
			return nil
		}
		p, err = loadPreview(previews, id)
		return err
	})
	return p, err
}

// clone copies p's byte slices, so a caller never shares a kept preview's.
func (p Preview) clone() Preview {
	p.Args, p.Goal, p.Summary = bytes.Clone(p.Args), bytes.Clone(p.Goal), bytes.Clone(p.Summary)
	return p
}

// ConfirmPreview consumes preview p (as GetPreview returned it) and records
// m in one write transaction committed with fsync: the motion is durable
// before ConfirmPreview returns, and a crash cannot leave a used preview
// without its motion. Publish the goal only on created=true with a nil
// error. The preview is decoded again only if its stored bytes changed
// since p was read (another confirm, a denial); otherwise p is used as is.
// m's Actuator, Args and Goal default to the preview's; Tool and ArgsDigest
// must match it. A retry for the same m.ID returns the existing motion
// (created=false), even once the preview has expired. A preview used by
// another motion returns that motion with ErrPreviewUsed.
func (s *Store) ConfirmPreview(ctx context.Context, p Preview, m Motion) (Motion, bool, error) {
	var out Motion
	var created bool
	err := s.update(ctx, func(tx *bolt.Tx) (bool, error) {
		previews, err := bucket(tx, bucketPreviews)
		if err != nil {
			return false, err
		}
		motions, order, err := motionBuckets(tx)
		if err != nil {
			return false, err
		}
		switch v := previews.Get([]byte(p.ID)); {
		case v == nil:
			return false, fmt.Errorf("%w: preview %q", ErrNotFound, p.ID)
		case p.raw == nil || !bytes.Equal(v, p.raw):
			if p, err = decodePreview(v); err != nil {
				return false, err
			}
		}
		m = fromPreview(m, p)
		if err := m.validate(); err != nil {
			return false, err
		}
		if p.Tool != m.Tool || p.ArgsDigest != m.ArgsDigest {
			return false, fmt.Errorf("%w: motion %s (%s %s) does not match preview %s (%s %s)",
				ErrInvalidRecord, m.ID, m.Tool, m.ArgsDigest, p.ID, p.Tool, p.ArgsDigest)
		}
		now := s.now()
		if p.UsedBy != "" && p.UsedBy != m.ID {
			if v := motions.Get([]byte(p.UsedBy)); v != nil {
				out, _ = decodeMotion(v)
			}
			return false, usable(p, now)
		}
		if v := motions.Get([]byte(m.ID)); v != nil { // a retry: never create twice
			if out, err = decodeMotion(v); err != nil || p.UsedBy == m.ID {
				return false, err
			}
			return true, putPreview(previews, markUsed(p, m.ID, now))
		}
		// Creating: even a preview this motion already holds must be fresh.
		if !now.Before(p.ExpiresAt) {
			return false, expired(p)
		}
		if err := putPreview(previews, markUsed(p, m.ID, now)); err != nil {
			return false, err
		}
		out, created = claimed(m, now), true
		return true, putMotion(motions, order, out)
	})
	s.previews.drop(p.ID) // its record is used now, or was already
	if err != nil {
		return out, false, err
	}
	return out, created, nil
}

func fromPreview(m Motion, p Preview) Motion {
	m.PreviewID = p.ID
	if m.Actuator == "" {
		m.Actuator = p.Actuator
	}
	if len(m.Args) == 0 {
		m.Args = p.Args
	}
	if len(m.Goal) == 0 {
		m.Goal = p.Goal
	}
	return m
}

// usable says why p cannot be consumed now, if it cannot.
func usable(p Preview, now time.Time) error {
	switch {
	case p.UsedBy != "":
		return fmt.Errorf("%w: preview %s started motion %s", ErrPreviewUsed, p.ID, p.UsedBy)
	case !now.Before(p.ExpiresAt):
		return expired(p)
	}
	return nil
}

func expired(p Preview) error {
	return fmt.Errorf("%w: preview %s expired at %s", ErrPreviewExpired, p.ID, p.ExpiresAt.Format(time.RFC3339))
}

func markUsed(p Preview, motionID string, now time.Time) Preview {
	p.Version, p.UsedBy, p.UsedAt = recordVersion, motionID, now
	return p
}

func putPreview(previews *bolt.Bucket, p Preview) error {
	b, err := json.Marshal(p)
	if err != nil {
		return fmt.Errorf("%w: preview %s: %v", ErrInvalidRecord, p.ID, err)
	}
	return previews.Put([]byte(p.ID), b)
}

func loadPreview(previews *bolt.Bucket, id string) (Preview, error) {
	v := previews.Get([]byte(id))
	if v == nil {
		return Preview{}, fmt.Errorf("%w: preview %q", ErrNotFound, id)
	}
	p, err := decodePreview(v)
	if err == nil {
		p.raw = bytes.Clone(v) // v lives only as long as the transaction
	}
	return p, err
}

// decodePreview decodes a stored preview record.
func decodePreview(v []byte) (Preview, error) {
	var p Preview
	if err := json.Unmarshal(v, &p); err != nil {
		return Preview{}, fmt.Errorf("%w: preview record: %v", ErrCorrupt, err)
	}
	if p.Version > recordVersion {
		return Preview{}, fmt.Errorf("%w: preview %s is record version %d", ErrNewerFormat, p.ID, p.Version)
	}
	return p, nil
}
