package inflight

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Actuator kinds a motion drives.
const (
	ActuatorArm     = "arm"
	ActuatorGripper = "gripper"
	ActuatorBase    = "base"
)

// Motion is the durable record of one irreversible action. Its ID is the
// ROS GoalID; identity fields (ID, Tool, Actuator, Scope, PreviewID, Args,
// ArgsDigest, Goal, Role, CreatedAt) never change after Claim.
type Motion struct {
	Version    int             `json:"v"`
	ID         string          `json:"id"`
	Tool       string          `json:"tool"`
	Actuator   string          `json:"actuator"`
	Scope      string          `json:"scope,omitempty"` // the planner's task id, part of ID
	PreviewID  string          `json:"preview_id,omitempty"`
	ArgsDigest string          `json:"args_digest"`
	Args       json.RawMessage `json:"args,omitempty"`
	Goal       json.RawMessage `json:"goal"` // exactly what is published, for re-attach and audit
	State      State           `json:"state"`
	Progress   float64         `json:"progress"` // 0..1
	Result     json.RawMessage `json:"result,omitempty"`
	ErrorText  string          `json:"error,omitempty"`
	Role       string          `json:"role,omitempty"` // who confirmed
	CreatedAt  time.Time       `json:"created_at"`
	UpdatedAt  time.Time       `json:"updated_at"`
	History    []Transition    `json:"history"`

	// Note, set inside a Transition's mutate, becomes that step's History
	// note. It is not stored on the motion itself.
	Note string `json:"-"`
}

// Transition is one step of a motion's History.
type Transition struct {
	From State     `json:"from"`
	To   State     `json:"to"`
	At   time.Time `json:"at"`
	Note string    `json:"note,omitempty"`
}

// Filter selects motions for List; zero fields match everything.
type Filter struct {
	States   []State
	Actuator string
}

func (m Motion) validate() error {
	var why string
	switch {
	case m.ID == "" || len(m.ID) > 256:
		why = "id must be 1..256 bytes"
	case m.Tool == "":
		why = "tool is empty"
	case m.Actuator == "" || strings.IndexByte(m.Actuator, 0) >= 0:
		why = "actuator is empty or has a NUL byte"
	case m.ArgsDigest == "":
		why = "args_digest is empty"
	case len(m.Args) > 0 && !json.Valid(m.Args):
		why = "args is not valid JSON"
	case !json.Valid(m.Goal):
		why = "goal is missing or not valid JSON"
	default:
		return nil
	}
	return fmt.Errorf("%w: motion %q: %s", ErrInvalidRecord, m.ID, why)
}

// Claim records m durably (a bbolt commit with fsync) unless it exists:
// created=false returns the existing motion (it may be moving right now;
// never publish), created=true stores m in state dispatching. Publish only
// on created=true with a nil error. A confirm uses ConfirmPreview, which
// also consumes the preview; Claim sees its journaled motions too.
func (s *Store) Claim(ctx context.Context, m Motion) (Motion, bool, error) {
	if err := m.validate(); err != nil {
		return Motion{}, false, err
	}
	unlock := s.pend.lockMotion(m.ID)
	defer unlock()
	if cur, ok := s.pend.motion(m.ID); ok { // journaled by a confirm, not flushed yet
		return cur, false, nil
	}
	var out Motion
	var created bool
	err := s.update(ctx, func(tx *bolt.Tx) (bool, error) {
		motions, order, err := motionBuckets(tx)
		if err != nil {
			return false, err
		}
		if v := motions.Get([]byte(m.ID)); v != nil {
			out, err = s.newest(v)
			return false, err
		}
		// The clock is read under the writer lock, so creation order is commit order.
		out = claimed(m, s.now())
		created = true
		return true, putMotion(motions, order, out)
	})
	if err != nil {
		return Motion{}, false, err
	}
	return out, created, nil
}

// claimed is m as Claim stores it: confirmed then dispatching, nothing else.
func claimed(m Motion, now time.Time) Motion {
	m.Version = recordVersion
	m.State = StateDispatching
	m.Progress, m.Result, m.ErrorText, m.Note = 0, nil, "", ""
	m.CreatedAt, m.UpdatedAt = now, now
	confirmed := Transition{To: StateConfirmed, At: now}
	if m.Role != "" {
		confirmed.Note = "confirmed by " + m.Role
	}
	m.History = []Transition{confirmed, {From: StateConfirmed, To: StateDispatching, At: now}}
	return m
}

// Transition moves motion id to state `to`, letting mutate set the result
// fields (Progress, Result, ErrorText, Note) in the same step. to ==
// current state is an update without a History entry for an open motion and
// a no-op (mutate not called) for a finished one. A move the state machine
// forbids returns the current record with ErrInvalidTransition. mutate runs
// under the motion's lock: assign fields, do no IO.
//
// A terminal or unknown state is durable (journaled with fdatasync, see
// journal.go) before Transition returns. Non-terminal progress (sent, active, progress) is visible to
// reads at once and committed by the flusher within lazyFlushDelay: losing
// it to a machine crash only leaves the motion at an earlier open state,
// which a restart re-attaches to exactly like the later one.
func (s *Store) Transition(ctx context.Context, id string, to State, mutate func(*Motion)) (Motion, error) {
	if !validState(to) {
		return Motion{}, fmt.Errorf("%w: %q is not a state", ErrInvalidTransition, to)
	}
	if err := s.writable(ctx); err != nil {
		return Motion{}, err
	}
	unlock := s.pend.lockMotion(id)
	defer unlock()
	if !IsTerminal(to) && to != StateUnknown {
		cur, err := s.Get(id)
		if err != nil {
			return Motion{}, err
		}
		next, write, err := s.transitioned(cur, to, mutate)
		if err == nil && write {
			s.pend.putMotion(next)
		}
		return next, err
	}
	cur, err := s.Get(id)
	if err != nil {
		return Motion{}, err
	}
	next, write, err := s.transitioned(cur, to, mutate)
	if err != nil || !write {
		return next, err
	}
	// A failure makes the store unhealthy; only a bbolt commit (the
	// flusher's, an audit batch) makes it healthy again: a journal that
	// works says nothing about a file that cannot grow.
	if err := s.pend.writeAhead(&next, nil); err != nil {
		return cur, s.noteWrite(err)
	}
	return next, nil
}

// transitioned is cur moved to `to` by Transition's rules; write=false
// means nothing changes.
func (s *Store) transitioned(cur Motion, to State, mutate func(*Motion)) (next Motion, write bool, err error) {
	from := cur.State
	switch {
	case from == to && IsTerminal(to):
		return cur, false, nil
	case from != to && !CanTransition(from, to):
		return cur, false, fmt.Errorf("%w: motion %s is %s and cannot become %s", ErrInvalidTransition, cur.ID, from, to)
	}
	next = cur
	next.History = slices.Clone(cur.History)
	if mutate != nil {
		mutate(&next)
	}
	now := s.now()
	next = keepIdentity(next, cur)
	next.State, next.UpdatedAt = to, now
	if from != to {
		next.History = append(slices.Clone(cur.History), Transition{From: from, To: to, At: now, Note: next.Note})
	}
	next.Note = ""
	if len(next.Result) > 0 && !json.Valid(next.Result) {
		return cur, false, fmt.Errorf("%w: motion %s: result is not valid JSON", ErrInvalidRecord, cur.ID)
	}
	return next, true, nil
}

// keepIdentity undoes whatever mutate did to fields that must not change.
func keepIdentity(next, cur Motion) Motion {
	next.Version, next.ID, next.Tool, next.Actuator, next.Scope = recordVersion, cur.ID, cur.Tool, cur.Actuator, cur.Scope
	next.PreviewID, next.ArgsDigest, next.Args, next.Goal = cur.PreviewID, cur.ArgsDigest, cur.Args, cur.Goal
	next.Role, next.CreatedAt, next.History = cur.Role, cur.CreatedAt, cur.History
	switch {
	case math.IsNaN(next.Progress) || next.Progress < 0:
		next.Progress = 0
	case next.Progress > 1:
		next.Progress = 1
	}
	return next
}

// Get returns motion id, or ErrNotFound. It includes accepted progress
// not yet flushed to disk.
func (s *Store) Get(id string) (Motion, error) {
	if m, ok := s.pend.motion(id); ok {
		return m, nil
	}
	var m Motion
	err := s.view(func(tx *bolt.Tx) error {
		motions, _, err := motionBuckets(tx)
		if err != nil {
			return err
		}
		v := motions.Get([]byte(id))
		if v == nil {
			return fmt.Errorf("%w: motion %q", ErrNotFound, id)
		}
		m, err = decodeMotion(v)
		return err
	})
	return m, err
}

// NonTerminal returns every motion the robot may still be working on, in
// creation order: after a restart the bridge re-attaches to each one.
func (s *Store) NonTerminal() ([]Motion, error) {
	var out []Motion
	over := s.pend.motionsNow()
	err := s.view(func(tx *bolt.Tx) error {
		motions, order, err := motionBuckets(tx)
		if err != nil {
			return err
		}
		return eachOrdered(motions, order, over, func(k []byte, state State, _ string, load func() (Motion, error)) error {
			if IsTerminal(state) {
				return nil
			}
			m, err := load()
			if err == nil {
				out = append(out, m)
			}
			return err
		})
	})
	return out, err
}

// List returns one page of motions matching f in creation order (then id),
// the number matching in total, and the cursor of the next page ("" at the
// end). limit ≤ 0 means 50; more than 1000 is cut to 1000. A cursor this
// list did not issue is ErrBadCursor.
func (s *Store) List(f Filter, cursor string, limit int) (items []Motion, total int, next string, err error) {
	start, err := decodeCursor(cursorMotions, cursor, func(k []byte) bool { return len(k) > 8 })
	if err != nil {
		return nil, 0, "", err
	}
	limit = pageLimit(limit)
	over := s.pend.motionsNow()
	err = s.view(func(tx *bolt.Tx) error {
		motions, order, err := motionBuckets(tx)
		if err != nil {
			return err
		}
		return eachOrdered(motions, order, over, func(k []byte, state State, actuator string, load func() (Motion, error)) error {
			if (len(f.States) > 0 && !slices.Contains(f.States, state)) || (f.Actuator != "" && f.Actuator != actuator) {
				return nil
			}
			total++
			switch {
			case bytes.Compare(k, start) < 0:
			case len(items) < limit:
				m, err := load()
				if err != nil {
					return err
				}
				items = append(items, m)
			case next == "":
				next = encodeCursor(cursorMotions, k)
			}
			return nil
		})
	})
	if err != nil {
		return nil, 0, "", err
	}
	return items, total, next, nil
}

// eachOrdered walks the order index in order with the unflushed motions
// merged in: a newer version replaces the file's, and a motion only
// journaled so far (a claim the flusher has not copied yet) comes at its
// place. load reads the motion fn is at.
func eachOrdered(motions, order *bolt.Bucket, over map[string]Motion, fn func(k []byte, state State, actuator string, load func() (Motion, error)) error) error {
	var extra [][]byte
	only := map[string]Motion{}
	for id, m := range over {
		if motions.Get([]byte(id)) == nil {
			k := orderKey(m)
			extra, only[string(k)] = append(extra, k), m
		}
	}
	slices.SortFunc(extra, bytes.Compare)
	emit := func(before []byte) error {
		for len(extra) > 0 && (before == nil || bytes.Compare(extra[0], before) < 0) {
			m := only[string(extra[0])]
			k := extra[0]
			extra = extra[1:]
			if err := fn(k, m.State, m.Actuator, func() (Motion, error) { return m, nil }); err != nil {
				return err
			}
		}
		return nil
	}
	err := order.ForEach(func(k, v []byte) error {
		if err := emit(k); err != nil {
			return err
		}
		state, actuator := overlaidOrderValue(over, k, v)
		return fn(k, state, actuator, func() (Motion, error) { return loadOverlaid(over, motions, k) })
	})
	if err != nil {
		return err
	}
	return emit(nil)
}

func motionBuckets(tx *bolt.Tx) (motions, order *bolt.Bucket, err error) {
	if motions, err = bucket(tx, bucketMotions); err != nil {
		return nil, nil, err
	}
	order, err = bucket(tx, bucketMotionOrder)
	return motions, order, err
}

// orderKey sorts by creation time, then id. The sign bit is flipped so
// big-endian byte order is numeric order.
func orderKey(m Motion) []byte {
	k := binary.BigEndian.AppendUint64(nil, uint64(m.CreatedAt.UnixNano())^(1<<63))
	return append(k, m.ID...)
}

// The order index carries state and actuator so List can filter without
// decoding every record.
func orderValue(m Motion) []byte { return []byte(string(m.State) + "\x00" + m.Actuator) }

func splitOrderValue(v []byte) (State, string) {
	state, actuator, _ := bytes.Cut(v, []byte{0})
	return State(state), string(actuator)
}

func putMotion(motions, order *bolt.Bucket, m Motion) error {
	b, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("%w: motion %s: %v", ErrInvalidRecord, m.ID, err)
	}
	if err := motions.Put([]byte(m.ID), b); err != nil {
		return err
	}
	return order.Put(orderKey(m), orderValue(m))
}

func loadOrdered(motions *bolt.Bucket, orderKey []byte) (Motion, error) {
	v := motions.Get(orderKey[8:])
	if v == nil {
		return Motion{}, fmt.Errorf("%w: index names missing motion %q", ErrCorrupt, orderKey[8:])
	}
	return decodeMotion(v)
}

// overlaidOrderValue is an order entry's state and actuator, taking an
// unflushed version of its motion over the disk's.
func overlaidOrderValue(over map[string]Motion, orderKey, v []byte) (State, string) {
	if m, ok := over[string(orderKey[8:])]; ok {
		return m.State, m.Actuator
	}
	return splitOrderValue(v)
}

// loadOverlaid is loadOrdered, taking an unflushed version over the disk's.
func loadOverlaid(over map[string]Motion, motions *bolt.Bucket, orderKey []byte) (Motion, error) {
	if m, ok := over[string(orderKey[8:])]; ok {
		return m, nil
	}
	return loadOrdered(motions, orderKey)
}

// newest is the stored motion v, or its unflushed newer version.
func (s *Store) newest(v []byte) (Motion, error) {
	m, err := decodeMotion(v)
	if err != nil {
		return m, err
	}
	if pm, ok := s.pend.motion(m.ID); ok {
		return pm, nil
	}
	return m, nil
}

func decodeMotion(v []byte) (Motion, error) {
	var m Motion
	if err := json.Unmarshal(v, &m); err != nil {
		return Motion{}, fmt.Errorf("%w: motion record: %v", ErrCorrupt, err)
	}
	if m.Version > recordVersion {
		return Motion{}, fmt.Errorf("%w: motion %s is record version %d", ErrNewerFormat, m.ID, m.Version)
	}
	return m, nil
}
