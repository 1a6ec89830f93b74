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
// ArgsDigest, Goal, Role, Via, CreatedAt) never change after ConfirmPreview.
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
	// Via is how the confirmer's word reached the bridge (mcp, console,
	// elicitation): an operator can approve from the console or the client.
	Via       string       `json:"via,omitempty"`
	CreatedAt time.Time    `json:"created_at"`
	UpdatedAt time.Time    `json:"updated_at"`
	History   []Transition `json:"history"`

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

// ConfirmedBy says who confirmed the motion and how, as in "operator via
// console"; empty when no role was recorded.
func (m Motion) ConfirmedBy() string {
	if m.Role == "" || m.Via == "" {
		return m.Role
	}
	return m.Role + " via " + m.Via
}

// claimed is m as ConfirmPreview stores it: confirmed then dispatching, nothing else.
func claimed(m Motion, now time.Time) Motion {
	m.Version = recordVersion
	m.State = StateDispatching
	m.Progress, m.Result, m.ErrorText, m.Note = 0, nil, "", ""
	m.CreatedAt, m.UpdatedAt = now, now
	confirmed := Transition{To: StateConfirmed, At: now}
	if m.Role != "" {
		confirmed.Note = "confirmed by " + m.ConfirmedBy()
	}
	m.History = []Transition{confirmed, {From: StateConfirmed, To: StateDispatching, At: now}}
	return m
}

// Transition moves motion id to state `to`, letting mutate set the result
// fields (Progress, Result, ErrorText, Note) in the same transaction. to ==
// current state is an update without a History entry for an open motion and
// a no-op (mutate not called) for a finished one. A move the state machine
// forbids returns the current record with ErrInvalidTransition. mutate may
// run more than once (a shared commit that failed is retried): assign
// fields, do no IO.
//
// A terminal or unknown state is committed with fsync before Transition
// returns. Open progress (sent, active, progress) shares a commit with
// concurrent writers (DB.Batch): losing it to a crash only leaves the motion
// at an earlier open state, which a restart re-attaches to like the later one.
func (s *Store) Transition(ctx context.Context, id string, to State, mutate func(*Motion)) (Motion, error) {
	if !validState(to) {
		return Motion{}, fmt.Errorf("%w: %q is not a state", ErrInvalidTransition, to)
	}
	var out Motion
	step := func(tx *bolt.Tx) (bool, error) {
		motions, order, err := motionBuckets(tx)
		if err != nil {
			return false, err
		}
		v := motions.Get([]byte(id))
		if v == nil {
			return false, fmt.Errorf("%w: motion %q", ErrNotFound, id)
		}
		cur, err := decodeMotion(v)
		if err != nil {
			return false, err
		}
		next, write, err := s.transitioned(cur, to, mutate)
		out = next
		if err != nil || !write {
			return false, err
		}
		return true, putMotion(motions, order, next)
	}
	if IsTerminal(to) || to == StateUnknown {
		err := s.update(ctx, step)
		return out, err
	}
	err := s.batch(ctx, func(tx *bolt.Tx) error { _, err := step(tx); return err })
	return out, err
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
	next.Role, next.Via, next.CreatedAt, next.History = cur.Role, cur.Via, cur.CreatedAt, cur.History
	switch {
	case math.IsNaN(next.Progress) || next.Progress < 0:
		next.Progress = 0
	case next.Progress > 1:
		next.Progress = 1
	}
	return next
}

// Get returns motion id, or ErrNotFound.
func (s *Store) Get(id string) (Motion, error) {
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
	err := s.view(func(tx *bolt.Tx) error {
		motions, order, err := motionBuckets(tx)
		if err != nil {
			return err
		}
		return order.ForEach(func(k, v []byte) error {
			if state, _ := splitOrderValue(v); IsTerminal(state) {
				return nil
			}
			m, err := loadOrdered(motions, k)
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
	err = s.view(func(tx *bolt.Tx) error {
		motions, order, err := motionBuckets(tx)
		if err != nil {
			return err
		}
		return order.ForEach(func(k, v []byte) error {
			state, actuator := splitOrderValue(v)
			if (len(f.States) > 0 && !slices.Contains(f.States, state)) || (f.Actuator != "" && f.Actuator != actuator) {
				return nil
			}
			total++
			switch {
			case bytes.Compare(k, start) < 0:
			case len(items) < limit:
				m, err := loadOrdered(motions, k)
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
