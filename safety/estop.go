package safety

import (
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode"
)

// MaxEStopReason is how many characters of a reason are kept.
const MaxEStopReason = 200

// EStop is the e-stop latch. Every distinct cause gets a new event number,
// and only the newest event can be reset: an operator who approved
// releasing event 3 cannot, by that, release event 4 raised meanwhile.
// Latch with the reason already latched returns the same event (retries of
// robot_stop are idempotent). The zero value is ready to use; it is safe for
// concurrent use.
type EStop struct {
	mu      sync.Mutex
	now     func() time.Time
	latched bool
	event   uint64 // newest event raised; 0 before the first
	reason  string
	since   time.Time // when the latch closed (the first event of this latch)
}

// EStopSnapshot is the latch state, for persisting across restarts.
type EStopSnapshot struct {
	Latched bool      `json:"latched"`
	Event   uint64    `json:"event"`
	Reason  string    `json:"reason"`
	Since   time.Time `json:"since"`
}

// NewEStop returns an open latch reading time from now (nil: time.Now).
func NewEStop(now func() time.Time) *EStop { return &EStop{now: now} }

// RestoreEStop rebuilds a latch from a snapshot, so event numbers keep
// increasing and a latched stop stays latched after a bridge restart.
func RestoreEStop(s EStopSnapshot, now func() time.Time) *EStop {
	e := &EStop{now: now, latched: s.Latched, event: s.Event, since: s.Since}
	if s.Latched {
		e.reason = cleanReason(s.Reason)
	}
	return e
}

// Latch stops everything until Reset and returns the event to name when
// resetting. While latched, the same reason returns the current event; a
// different reason raises a new one, which the operator must see and
// approve instead.
func (e *EStop) Latch(reason string) uint64 {
	reason = cleanReason(reason)
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.latched && reason == e.reason {
		return e.event
	}
	if !e.latched {
		e.latched, e.since = true, e.clock()
	}
	e.event++
	e.reason = reason
	return e.event
}

// LatchAbove latches with a new event numbered above floor (and above
// every event raised so far), even when reason is the one latched: for a
// cause whose predecessors' numbers may have been handed out unrecorded.
func (e *EStop) LatchAbove(floor uint64, reason string) uint64 {
	reason = cleanReason(reason)
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.latched {
		e.latched, e.since = true, e.clock()
	}
	e.event = max(e.event, floor) + 1
	e.reason = reason
	return e.event
}

// Reset releases the latch if event is the newest one. Resetting an event
// that is already released is a no-op (idempotent); naming an older event
// while a newer one is latched is ErrEStopNewerEvent; naming one never
// raised is ErrEStopUnknownEvent.
func (e *EStop) Reset(event uint64) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	switch {
	case event == 0 || event > e.event:
		return fmt.Errorf("e-stop: reset of event %d (newest is %d): %w", event, e.event, ErrEStopUnknownEvent)
	case !e.latched:
		return nil
	case event < e.event:
		return fmt.Errorf("e-stop: reset of event %d refused, event %d (%s) is latched: %w", event, e.event, e.reason, ErrEStopNewerEvent)
	}
	e.latched, e.reason, e.since = false, "", time.Time{}
	return nil
}

// State reports whether the latch is closed, its newest event, that
// event's reason and since when the latch has been closed.
func (e *EStop) State() (latched bool, event uint64, reason string, since time.Time) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.latched, e.event, e.reason, e.since
}

// Snapshot is State as a value.
func (e *EStop) Snapshot() EStopSnapshot {
	l, ev, r, s := e.State()
	return EStopSnapshot{Latched: l, Event: ev, Reason: r, Since: s}
}

func (e *EStop) clock() time.Time {
	if e.now == nil {
		return time.Now()
	}
	return e.now()
}

// cleanReason makes a reason safe to show on a console and in logs:
// invalid UTF-8 replaced, control and format characters (including bidi
// overrides) turned into spaces, whitespace collapsed, clipped.
func cleanReason(s string) string {
	if len(s) > 64*MaxEStopReason {
		s = s[:64*MaxEStopReason] // enough for MaxEStopReason runes after cleaning, in practice
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	var b strings.Builder
	n, space := 0, false
	for _, r := range s {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || unicode.IsSpace(r) {
			space = b.Len() > 0
			continue
		}
		if n == MaxEStopReason {
			break
		}
		if space {
			if n == MaxEStopReason-1 {
				break
			}
			b.WriteByte(' ')
			n++
			space = false
		}
		b.WriteRune(r)
		n++
	}
	if b.Len() == 0 {
		return "unspecified"
	}
	return b.String()
}
