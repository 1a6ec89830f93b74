package sim

import (
	"errors"
	"fmt"
	"time"
)

// Goal states, numbered as actionlib_msgs/GoalStatus numbers them.
const (
	StatusPending    uint8 = 0
	StatusActive     uint8 = 1
	StatusPreempted  uint8 = 2
	StatusSucceeded  uint8 = 3
	StatusAborted    uint8 = 4
	StatusRejected   uint8 = 5
	StatusPreempting uint8 = 6
	StatusRecalling  uint8 = 7
	StatusRecalled   uint8 = 8
)

// StatusName is the actionlib name of a goal state, e.g. "SUCCEEDED".
func StatusName(s uint8) string {
	names := [...]string{"PENDING", "ACTIVE", "PREEMPTED", "SUCCEEDED", "ABORTED",
		"REJECTED", "PREEMPTING", "RECALLING", "RECALLED", "LOST"}
	if int(s) < len(names) {
		return names[s]
	}
	return fmt.Sprintf("STATUS_%d", s)
}

func terminal(s uint8) bool {
	switch s {
	case StatusPreempted, StatusSucceeded, StatusAborted, StatusRejected, StatusRecalled:
		return true
	}
	return false
}

// ErrBadTransition is returned when a goal handle is asked for a transition
// actionlib does not allow from its current state (e.g. succeed a RECALLED goal).
var ErrBadTransition = errors.New("sim: goal state transition not allowed")

// GoalID is an actionlib goal id: the client's id string and stamp.
type GoalID struct {
	ID    string
	Stamp time.Time
}

// nextStatus is actionlib's ServerGoalHandle state machine: the state an
// operation leads to from cur, and whether cur allows it at all.
func nextStatus(op string, cur uint8) (uint8, bool) {
	switch {
	case op == "accept" && cur == StatusPending:
		return StatusActive, true
	case op == "accept" && cur == StatusRecalling:
		return StatusPreempting, true
	case op == "reject" && (cur == StatusPending || cur == StatusRecalling):
		return StatusRejected, true
	case op == "cancel" && (cur == StatusPending || cur == StatusRecalling):
		return StatusRecalled, true
	case op == "cancel" && (cur == StatusActive || cur == StatusPreempting):
		return StatusPreempted, true
	case op == "abort" && (cur == StatusActive || cur == StatusPreempting):
		return StatusAborted, true
	case op == "succeed" && (cur == StatusActive || cur == StatusPreempting):
		return StatusSucceeded, true
	case op == "cancelRequest" && cur == StatusPending:
		return StatusRecalling, true
	case op == "cancelRequest" && cur == StatusActive:
		return StatusPreempting, true
	}
	return cur, false
}

// executor runs the goals of one action server; the server owns ids and
// states and calls it with the robot's lock held.
type executor[G, R, F any] interface {
	// goal is called for every new goal; it must accept or reject it.
	goal(now time.Time, h *goalHandle[G, R, F])
	// cancel is called when a cancel request reaches a goal.
	cancel(now time.Time, h *goalHandle[G, R, F])
}

// tracker is one entry of the status list.
type tracker[G any] struct {
	id          GoalID
	goal        G
	placeholder bool // a cancel that arrived before its goal
	created     time.Time
	status      uint8
	text        string
	result      any // the result sent with the terminal state

	// What clients have been told so far (status lags under the delay fault).
	visible     bool
	pubStatus   uint8
	pubText     string
	pubTerminal time.Time
}

func (t *tracker[G]) state() (uint8, bool) { return t.status, !t.placeholder }

// actionEvent is something clients will learn at due: a state change (with
// the result when it is terminal) or a feedback message.
type actionEvent[R, F any] struct {
	due      time.Time
	id       string
	status   uint8
	text     string
	result   *R
	feedback *F
}

// actionServerConfig names one action.
type actionServerConfig struct {
	Name string // short name used by faults, the goal log and messages: "arm"
	// StatusListTimeout keeps terminal goals in the status list, like
	// actionlib's status_list_timeout.
	StatusListTimeout time.Duration
	StatusPeriod      time.Duration
	// KnownIDs bounds how many goal ids are remembered for deduplication.
	KnownIDs int
}

// actionServer is the server side of the actionlib protocol over plain
// topics. Unlike goroslib's, it keeps the client's GoalID, ignores a goal
// whose id it already knows, and honours cancels that arrive before their
// goal. It does no IO: inputs are method calls, outputs come from drain.
type actionServer[G, R, F any] struct {
	cfg    actionServerConfig
	exec   executor[G, R, F]
	log    *actionLog
	faults ActionFaults

	list       []*tracker[G] // status list, in arrival order
	byID       map[string]*tracker[G]
	known      *idSet // every goal id ever handled, for deduplication
	recalled   *idSet // ids cancelled before their goal arrived
	lastCancel time.Time
	events     []actionEvent[R, F]
	generated  int
	seq        uint32
	nextStatus time.Time
}

func newActionServer[G, R, F any](cfg actionServerConfig, exec executor[G, R, F], log *actionLog) *actionServer[G, R, F] {
	if cfg.StatusListTimeout <= 0 {
		cfg.StatusListTimeout = 5 * time.Second
	}
	if cfg.StatusPeriod <= 0 {
		cfg.StatusPeriod = 100 * time.Millisecond
	}
	if cfg.KnownIDs <= 0 {
		cfg.KnownIDs = 100000
	}
	return &actionServer[G, R, F]{
		cfg:      cfg,
		exec:     exec,
		log:      log,
		byID:     map[string]*tracker[G]{},
		known:    newIDSet(cfg.KnownIDs),
		recalled: newIDSet(cfg.KnownIDs),
	}
}

// goalHandle lets an executor move one goal through its states.
type goalHandle[G, R, F any] struct {
	s *actionServer[G, R, F]
	t *tracker[G]
}

func (h *goalHandle[G, R, F]) Goal() G       { return h.t.goal }
func (h *goalHandle[G, R, F]) ID() GoalID    { return h.t.id }
func (h *goalHandle[G, R, F]) Status() uint8 { return h.t.status }

// Same reports whether two handles are for the same goal.
func (h *goalHandle[G, R, F]) Same(o *goalHandle[G, R, F]) bool {
	return h != nil && o != nil && h.t == o.t
}

func (h *goalHandle[G, R, F]) accept(now time.Time, text string) error {
	return h.s.transition(now, h.t, "accept", text, nil)
}

func (h *goalHandle[G, R, F]) reject(now time.Time, r R, text string) error {
	return h.s.transition(now, h.t, "reject", text, &r)
}

func (h *goalHandle[G, R, F]) succeed(now time.Time, r R, text string) error {
	return h.s.transition(now, h.t, "succeed", text, &r)
}

func (h *goalHandle[G, R, F]) abort(now time.Time, r R, text string) error {
	return h.s.transition(now, h.t, "abort", text, &r)
}

// canceled ends the goal as RECALLED (not started) or PREEMPTED (started).
func (h *goalHandle[G, R, F]) canceled(now time.Time, r R, text string) error {
	return h.s.transition(now, h.t, "cancel", text, &r)
}

func (h *goalHandle[G, R, F]) feedback(now time.Time, f F) {
	if terminal(h.t.status) {
		return
	}
	h.s.emit(actionEvent[R, F]{due: now.Add(h.s.faults.Delay), id: h.t.id.ID, status: h.t.status, feedback: &f})
}

func (s *actionServer[G, R, F]) transition(now time.Time, t *tracker[G], op, text string, r *R) error {
	next, ok := nextStatus(op, t.status)
	if !ok {
		return fmt.Errorf("%w: %s goal %q is %s", ErrBadTransition, op, t.id.ID, StatusName(t.status))
	}
	t.status, t.text = next, text
	ev := actionEvent[R, F]{due: now.Add(s.faults.Delay), id: t.id.ID, status: next, text: text}
	if terminal(next) {
		if r == nil {
			var zero R
			r = &zero
		}
		ev.result, t.result = r, *r
	}
	s.emit(ev)
	return nil
}

func (s *actionServer[G, R, F]) emit(ev actionEvent[R, F]) { s.events = append(s.events, ev) }

// handleGoal is the goal topic's callback: deduplicate, honour earlier
// cancels, then hand the goal to the executor.
func (s *actionServer[G, R, F]) handleGoal(now, wall time.Time, id GoalID, goal G) {
	rec := s.log.goal(id, now, wall)
	if tg, ok := any(goal).(TrajectoryGoal); ok {
		rec.Trajectory = logTrajectory(tg.Trajectory)
	}
	if t, ok := s.byID[id.ID]; ok && id.ID != "" && t.placeholder {
		// The cancel came first: the goal ends RECALLED without running.
		t.placeholder, t.goal = false, goal
		if !id.Stamp.IsZero() {
			t.id.Stamp = id.Stamp
		}
		s.known.add(id.ID)
		rec.tr = t
		_ = s.transition(now, t, "cancel", "canceled before the goal arrived", nil)
		return
	}
	if id.ID != "" && s.known.has(id.ID) {
		rec.Duplicate = true
		s.log.a.Duplicates++
		return
	}
	if s.faults.IgnoreGoals {
		rec.Ignored = true
		s.log.a.Ignored++
		return
	}
	if id.ID == "" {
		s.generated++
		id.ID = fmt.Sprintf("%s-%d-%d", s.cfg.Name, s.generated, now.UnixNano())
		rec.AssignedID = id.ID
	}
	if id.Stamp.IsZero() {
		id.Stamp = now
	}
	t := &tracker[G]{id: id, goal: goal, created: now, status: StatusPending}
	rec.tr = t
	s.known.add(id.ID)
	s.list = append(s.list, t)
	s.byID[id.ID] = t
	s.emit(actionEvent[R, F]{due: now.Add(s.faults.Delay), id: id.ID, status: StatusPending})

	if s.recalled.has(id.ID) || (!id.Stamp.IsZero() && !s.lastCancel.IsZero() && !id.Stamp.After(s.lastCancel)) {
		_ = s.transition(now, t, "cancel", "canceled by an earlier cancel request", nil)
		return
	}
	s.exec.goal(now, &goalHandle[G, R, F]{s: s, t: t})
}

// handleCancel is the cancel topic's callback, with actionlib's rules: an
// empty id and zero stamp cancel everything, an id cancels that goal (now or
// when it arrives), a stamp cancels every goal stamped at or before it.
func (s *actionServer[G, R, F]) handleCancel(now, wall time.Time, id GoalID) {
	s.log.cancel(id, now, wall)
	all := id.ID == "" && id.Stamp.IsZero()
	found := false
	for _, t := range s.list {
		if t.placeholder || terminal(t.status) {
			if t.id.ID == id.ID && id.ID != "" {
				found = true
			}
			continue
		}
		match := all || (id.ID != "" && t.id.ID == id.ID) ||
			(!id.Stamp.IsZero() && !t.id.Stamp.After(id.Stamp))
		if !match {
			continue
		}
		if t.id.ID == id.ID {
			found = true
		}
		if err := s.transition(now, t, "cancelRequest", "cancel requested", nil); err == nil {
			s.exec.cancel(now, &goalHandle[G, R, F]{s: s, t: t})
		}
	}
	if id.ID != "" && !found && !s.known.has(id.ID) {
		s.recalled.add(id.ID)
		if _, ok := s.byID[id.ID]; !ok {
			t := &tracker[G]{id: id, placeholder: true, created: now, status: StatusRecalling}
			if t.id.Stamp.IsZero() {
				t.id.Stamp = now
			}
			s.list = append(s.list, t)
			s.byID[id.ID] = t
			s.emit(actionEvent[R, F]{due: now.Add(s.faults.Delay), id: id.ID, status: StatusRecalling})
		}
	}
	if id.Stamp.After(s.lastCancel) {
		s.lastCancel = id.Stamp
	}
}

// drain returns the messages due at now: results and feedback whose delay
// has passed, and the status array when its period is up or states changed.
func (s *actionServer[G, R, F]) drain(now time.Time) []Message {
	var out []Message
	changed := false
	keep := s.events[:0]
	for _, ev := range s.events {
		if ev.due.After(now) {
			keep = append(keep, ev)
			continue
		}
		t := s.byID[ev.id]
		if t == nil {
			continue
		}
		st := GoalStatus{ID: t.id, Status: ev.status, Text: ev.text}
		switch {
		case ev.feedback != nil:
			out = append(out, &ActionFeedback{Action: s.cfg.Name, Seq: s.nextSeq(), Stamp: now, Status: st, Feedback: *ev.feedback})
		default:
			t.visible, t.pubStatus, t.pubText = true, ev.status, ev.text
			changed = true
			if ev.result != nil {
				t.pubTerminal = now
				out = append(out, &ActionResult{Action: s.cfg.Name, Seq: s.nextSeq(), Stamp: now, Status: st, Result: *ev.result})
			}
		}
	}
	s.events = keep
	s.expire(now)
	if (changed || !now.Before(s.nextStatus)) && !s.faults.MuteStatus {
		s.nextStatus = now.Add(s.cfg.StatusPeriod)
		out = append(out, s.statusArray(now))
	}
	return out
}

// expire drops terminal goals and stale cancel placeholders from the status
// list after StatusListTimeout; their ids stay known.
func (s *actionServer[G, R, F]) expire(now time.Time) {
	keep := s.list[:0]
	for _, t := range s.list {
		gone := (t.visible && !t.pubTerminal.IsZero() && now.Sub(t.pubTerminal) > s.cfg.StatusListTimeout) ||
			(t.placeholder && now.Sub(t.created) > s.cfg.StatusListTimeout)
		if gone {
			delete(s.byID, t.id.ID)
			continue
		}
		keep = append(keep, t)
	}
	clear(s.list[len(keep):])
	s.list = keep
}

func (s *actionServer[G, R, F]) statusArray(now time.Time) *ActionStatus {
	msg := &ActionStatus{Action: s.cfg.Name, Seq: s.nextSeq(), Stamp: now, List: []GoalStatus{}}
	for _, t := range s.list {
		if !t.visible {
			continue
		}
		msg.List = append(msg.List, GoalStatus{ID: t.id, Status: t.pubStatus, Text: t.pubText})
	}
	return msg
}

// nextSeq numbers the server's stamped messages, as ROS 1 headers count.
func (s *actionServer[G, R, F]) nextSeq() uint32 {
	s.seq++
	return s.seq
}

// outcome is the current (not necessarily published) state of a goal.
func (s *actionServer[G, R, F]) outcome(id string) (GoalOutcome, bool) {
	t, ok := s.byID[id]
	if !ok || t.placeholder {
		return GoalOutcome{}, false
	}
	return GoalOutcome{Status: t.status, Text: t.text, Result: t.result}, true
}

// idSet is a set of strings that forgets the oldest beyond its bound.
type idSet struct {
	max   int
	set   map[string]struct{}
	order []string
}

func newIDSet(max int) *idSet { return &idSet{max: max, set: map[string]struct{}{}} }

func (s *idSet) has(id string) bool { _, ok := s.set[id]; return ok }

func (s *idSet) add(id string) {
	if s.has(id) {
		return
	}
	s.set[id] = struct{}{}
	s.order = append(s.order, id)
	if len(s.order) > s.max {
		delete(s.set, s.order[0])
		s.order = s.order[1:]
	}
}
