package inflight

import (
	"context"
	"encoding/json"
	"errors"
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
// existing id is ErrDuplicate, even if that preview expired. The preview is
// readable at once, journaled without fsync (so it survives a killed
// process), and committed with the next flush (within lazyFlushDelay) or,
// at the latest, in the confirm that consumes it: a preview lost to a
// machine crash before either is simply never confirmable, and the planner
// previews again.
func (s *Store) PutPreview(ctx context.Context, p Preview) error {
	if err := p.validate(); err != nil {
		return err
	}
	if err := s.writable(ctx); err != nil {
		return err
	}
	unlock := s.pend.lockMotion(p.ID)
	defer unlock()
	switch _, err := s.GetPreview(p.ID); {
	case err == nil:
		return fmt.Errorf("%w: preview %q", ErrDuplicate, p.ID)
	case !errors.Is(err, ErrNotFound):
		return err
	}
	p.Version, p.UsedBy, p.UsedAt = recordVersion, "", time.Time{}
	if p.CreatedAt.IsZero() {
		p.CreatedAt = s.now()
	}
	line, err := appendJournalLine(make([]byte, 0, journalLineSize(nil, &p)), journalLine{Kind: "p", Preview: &p})
	if err != nil {
		return fmt.Errorf("%w: preview %s: %v", ErrInvalidRecord, p.ID, err)
	}
	if !s.pend.putPreview(p, line) {
		return s.Flush(ctx) // no journal to survive a kill: commit now
	}
	return nil
}

// GetPreview returns preview id, used or expired alike, or ErrNotFound.
func (s *Store) GetPreview(id string) (Preview, error) {
	if p, ok := s.pend.preview(id); ok {
		return p, nil
	}
	return s.storedPreview(id)
}

// storedPreview is preview id as the bbolt file holds it.
func (s *Store) storedPreview(id string) (Preview, error) {
	var p Preview
	err := s.view(func(tx *bolt.Tx) error {
		previews, err := bucket(tx, bucketPreviews)
		if err != nil {
			return err
		}
		p, err = loadPreview(previews, id)
		return err
	})
	return p, err
}

// ConsumePreview marks preview id as used by motionID; the first consumer
// wins. A used preview returns itself (UsedBy names its motion, so confirm
// can answer with that motion) and ErrPreviewUsed, checked before expiry so
// a late retry still finds its motion. An unused, expired one is
// ErrPreviewExpired.
func (s *Store) ConsumePreview(ctx context.Context, id, motionID string) (Preview, error) {
	if motionID == "" {
		return Preview{}, fmt.Errorf("%w: consuming preview %q needs a motion id", ErrInvalidRecord, id)
	}
	unlock := s.pend.lockMotion(id)
	defer unlock()
	var out Preview
	var settle func(bool)
	err := s.update(ctx, func(tx *bolt.Tx) (bool, error) {
		previews, err := bucket(tx, bucketPreviews)
		if err != nil {
			return false, err
		}
		p, err := s.loadPreview(previews, id)
		if err != nil {
			return false, err
		}
		out = p
		if err := usable(p, s.now()); err != nil {
			return false, err
		}
		out = markUsed(p, motionID, s.now())
		if err := putPreview(previews, out); err != nil {
			return false, err
		}
		settle = s.pend.syncingPreview(out)
		return true, nil
	})
	if settle != nil {
		settle(err == nil)
	}
	return out, err
}

// ConfirmPreview consumes preview previewID and claims m in one durable
// step (one journal line, fdatasync), so a crash cannot leave a used
// preview without its motion. m's Actuator, Args and Goal default to the
// preview's; Tool and ArgsDigest must match it. A retry for the same m.ID
// behaves like Claim (the existing motion, created=false), even once the
// preview has expired. A preview used by another motion returns that
// motion with ErrPreviewUsed. Publish only on created=true with a nil
// error, as for Claim.
func (s *Store) ConfirmPreview(ctx context.Context, previewID string, m Motion) (Motion, bool, error) {
	if err := s.writable(ctx); err != nil {
		return Motion{}, false, err
	}
	// The preview's lock and the motion's: a second confirm of this preview,
	// or of another preview naming the same motion, waits and then finds it.
	unlock := s.pend.lockPair(previewID, m.ID)
	defer unlock()
	p, err := s.GetPreview(previewID)
	if err != nil {
		return Motion{}, false, err
	}
	m = fromPreview(m, p)
	if err := m.validate(); err != nil {
		return Motion{}, false, err
	}
	if p.Tool != m.Tool || p.ArgsDigest != m.ArgsDigest {
		return Motion{}, false, fmt.Errorf("%w: motion %s (%s %s) does not match preview %s (%s %s)",
			ErrInvalidRecord, m.ID, m.Tool, m.ArgsDigest, p.ID, p.Tool, p.ArgsDigest)
	}
	now := s.now()
	if p.UsedBy != "" && p.UsedBy != m.ID {
		out, _ := s.Get(p.UsedBy)
		return out, false, usable(p, now)
	}
	existing, err := s.Get(m.ID)
	switch {
	case err == nil: // a retry: never create twice
		if p.UsedBy == m.ID {
			return existing, false, nil
		}
		used := markUsed(p, m.ID, now)
		return existing, false, s.pend.writeAhead(nil, &used)
	case !errors.Is(err, ErrNotFound):
		return Motion{}, false, err
	}
	// Creating: even a preview this motion already holds must be fresh.
	if !now.Before(p.ExpiresAt) {
		return Motion{}, false, expired(p)
	}
	used, out := markUsed(p, m.ID, now), claimed(m, now)
	// A failure makes the store unhealthy; only a bbolt commit (the
	// flusher's, an audit batch) makes it healthy again: a journal that
	// works says nothing about a file that cannot grow.
	if err := s.pend.writeAhead(&out, &used); err != nil {
		return Motion{}, false, s.noteWrite(err)
	}
	return out, true, nil
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

// loadPreview is preview id: its unflushed version, else the stored one.
func (s *Store) loadPreview(previews *bolt.Bucket, id string) (Preview, error) {
	if p, ok := s.pend.preview(id); ok {
		return p, nil
	}
	return loadPreview(previews, id)
}

func loadPreview(previews *bolt.Bucket, id string) (Preview, error) {
	v := previews.Get([]byte(id))
	if v == nil {
		return Preview{}, fmt.Errorf("%w: preview %q", ErrNotFound, id)
	}
	var p Preview
	if err := json.Unmarshal(v, &p); err != nil {
		return Preview{}, fmt.Errorf("%w: preview record: %v", ErrCorrupt, err)
	}
	if p.Version > recordVersion {
		return Preview{}, fmt.Errorf("%w: preview %s is record version %d", ErrNewerFormat, p.ID, p.Version)
	}
	return p, nil
}
