package action

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"sync"
	"time"

	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/ros2/service"
	"github.com/actbridge/actbridge/rtps"
)

// ResultTimeoutFor is how long rcl_action keeps an ended goal in a
// distro: 15 minutes on Humble, 10 s from Iron on (rcl #1012).
func ResultTimeoutFor(d msgs.Distro) time.Duration {
	if d == msgs.Humble {
		return 15 * time.Minute
	}
	return 10 * time.Second
}

// defaultMaxGoals bounds the goals a server holds unless told otherwise.
const defaultMaxGoals = 1024

// maxResultWaiters bounds the get_result requests one goal holds unanswered.
const maxResultWaiters = 64

// maxReplying bounds the get_result requests answered at once (for goals
// that ended or that the server never knew): each reply is a goroutine
// that may wait for its client's reader. Waiters of live goals are bounded
// by maxResultWaiters per goal instead, and never dropped.
const maxReplying = 1024

// ServerOptions tune a Server; the zero value behaves as rclcpp does.
type ServerOptions struct {
	// Service tunes the three services (Dialect Auto answers each client
	// in its vendor's dialect), and its Endpoints hook and Logger also
	// see the feedback and status writers.
	Service service.Options
	// ResultTimeout is how long an ended goal stays listed and its result
	// answered; then get_result answers STATUS_UNKNOWN. 0: the set's
	// distro's (ResultTimeoutFor); negative: forever (up to MaxGoals).
	ResultTimeout time.Duration
	// MaxGoals bounds the goals held, live and ended. When full, the
	// oldest ended goal is forgotten early; with none ended, a new goal
	// is rejected. 0: 1024.
	MaxGoals int
	// OnDuplicate is told of each send_goal whose UUID the server still
	// holds (a client fault: rclcpp dies of it, ros2/rclcpp #3120). The
	// goal is not run again and its state does not change.
	OnDuplicate func(id GoalID)
	// RejectDuplicates answers such a send_goal accepted=false. Without
	// it the server answers as rclcpp on Humble and Jazzy does before it
	// throws, accepted=true, for clients tested against that.
	RejectDuplicates bool
	// StatusOnExpiry publishes the status when ended goals are forgotten.
	// rclcpp does not: its last (transient local) status keeps listing a
	// forgotten goal as ended until the next change, while get_result
	// answers STATUS_UNKNOWN.
	StatusOnExpiry bool
}

// GoalResponse is the owner's decision on a new goal, as rclcpp's.
type GoalResponse int

// The decisions: a deferred goal stays ACCEPTED until ServerGoal.Execute.
const (
	Reject GoalResponse = iota
	AcceptAndExecute
	AcceptAndDefer
)

// Handlers are the owner's part of a Server. Goal and Cancel are called
// one request at a time, without the server's lock; none may block.
type Handlers struct {
	// Goal decides on a new goal (nil: accept and execute all).
	Goal func(id GoalID, goal *cdr.Message) GoalResponse
	// Accepted receives each accepted goal after its reply went out; the
	// owner runs it (in a goroutine it owns) and ends it. Required.
	Accepted func(g *ServerGoal)
	// Cancel decides on canceling a live goal (nil: accept all). Accepted
	// goals go CANCELING; the owner then ends them, normally Canceled.
	Cancel func(g *ServerGoal) bool
}

// Server serves one action: send_goal, cancel_goal and get_result in
// both rmw dialects, feedback, and a status array (transient local, keep
// last 1) published on every change of a goal's state, none before the
// first goal (as rclcpp). Goals move as rcl_action's state machine
// allows: ACCEPTED → EXECUTING → CANCELING → SUCCEEDED, ABORTED or
// CANCELED. Close it to withdraw its endpoints.
type Server struct {
	o     ServerOptions
	h     Handlers
	codes statusCodes

	feedbackMsgT, feedbackT, resultT, statusT *cdr.Struct
	sendRep, resultRep, cancelRep             *cdr.Struct

	services  []*service.Server
	fb, st    *rtps.Writer
	announced []rtps.EndpointData

	mu         sync.Mutex
	goals      map[GoalID]*ServerGoal
	order      []GoalID // accepted order, as rcl lists them
	duplicates uint64
	closed     bool
	ended      chan struct{} // a goal ended: the expirer recomputes
	replying   int           // replies waiting for their clients' readers (replyLater)

	stop context.CancelFunc
	wg   sync.WaitGroup
}

// statusCodes are a distro's GoalStatus codes by meaning.
type statusCodes struct {
	names                                                                 statusNames
	unknown, accepted, executing, canceling, succeeded, canceled, aborted int8
}

func loadStatusCodes(n statusNames) statusCodes {
	c := statusCodes{names: n}
	for _, f := range []struct {
		dst  *int8
		name string
	}{{&c.unknown, "UNKNOWN"}, {&c.accepted, "ACCEPTED"}, {&c.executing, "EXECUTING"}, {&c.canceling, "CANCELING"},
		{&c.succeeded, "SUCCEEDED"}, {&c.canceled, "CANCELED"}, {&c.aborted, "ABORTED"}} {
		*f.dst, _ = n.code(f.name) // loadStatusNames checked all are there
	}
	return c
}

func (c statusCodes) terminal(code int8) bool {
	return code == c.succeeded || code == c.canceled || code == c.aborted
}

// NewServer serves the action named action (fully expanded) of type
// actionType as set defines it. set is only read here.
func NewServer(p *rtps.Participant, set *msgs.Set, action, actionType string, h Handlers, o ServerOptions) (*Server, error) {
	if h.Accepted == nil {
		return nil, errors.New("action: a server needs Handlers.Accepted")
	}
	e, err := resolveEntities(set, action, actionType)
	if err != nil {
		return nil, err
	}
	if o.Service.Logger == nil {
		o.Service.Logger = slog.New(slog.DiscardHandler)
	}
	if o.ResultTimeout == 0 {
		o.ResultTimeout = ResultTimeoutFor(set.Distro)
	}
	if o.MaxGoals <= 0 {
		o.MaxGoals = defaultMaxGoals
	}
	s := &Server{o: o, h: h, feedbackMsgT: e.feedbackMsgT, statusT: e.statusT,
		goals: map[GoalID]*ServerGoal{}, ended: make(chan struct{}, 1)}
	s.codes = loadStatusCodes(e.names)
	s.feedbackT = e.feedbackMsgT.Field(e.feedbackMsgT.FieldIndex("feedback")).Type.Struct
	s.resultT = e.services[1].Response.Field(e.services[1].Response.FieldIndex("result")).Type.Struct
	s.sendRep, s.resultRep, s.cancelRep = e.services[0].Response, e.services[1].Response, e.services[2].Response
	ok := false
	defer func() {
		if !ok {
			s.closeEndpoints()
		}
	}()
	for i, dst := range []**rtps.Writer{&s.fb, &s.st} {
		var d rtps.EndpointData
		if *dst, d, err = o.Service.Endpoints.NewWriter(p, e.topics[i]); err != nil {
			return nil, err
		}
		s.announced = append(s.announced, d)
	}
	for i, h := range []service.DeferredHandler{s.handleSendGoal, s.handleGetResult, s.handleCancel} {
		srv, err := service.NewDeferredServer(p, e.services[i], e.serviceNames[i], h, o.Service)
		if err != nil {
			return nil, err
		}
		s.services = append(s.services, srv)
	}
	ok = true
	ctx, stop := context.WithCancel(context.Background())
	s.stop = stop
	s.wg.Add(1)
	go s.expire(ctx)
	return s, nil
}

// Close withdraws the server. Goals not ended stay so; their handles
// answer ErrClosed.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	s.stop()
	err := s.closeEndpoints()
	s.wg.Wait()
	return err
}

func (s *Server) closeEndpoints() error {
	var errs []error
	for _, sv := range s.services {
		errs = append(errs, sv.Close())
	}
	for _, e := range s.announced {
		s.o.Service.Endpoints.Withdrawn(e)
	}
	for _, w := range []*rtps.Writer{s.fb, s.st} {
		if w != nil {
			errs = append(errs, w.Close())
		}
	}
	return errors.Join(errs...)
}

// Duplicates counts the send_goal requests that named a UUID the server
// held (see ServerOptions.OnDuplicate).
func (s *Server) Duplicates() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.duplicates
}

// Goals are the goals the server holds, live and ended, oldest first.
func (s *Server) Goals() []*ServerGoal {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*ServerGoal, 0, len(s.order))
	for _, id := range s.order {
		if g := s.goals[id]; !g.pending {
			out = append(out, g)
		}
	}
	return out
}

func (s *Server) handleSendGoal(_ context.Context, req *cdr.Message, reply service.Replier) {
	id := goalIDOf(req)
	goal, _ := req.Get("goal").(*cdr.Message)
	now := time.Now()
	answer := func(accepted bool) error {
		rep := cdr.Zero(s.sendRep)
		rep.Set("accepted", accepted)
		rep.Set("stamp", timeMessage(s.sendRep, "stamp", now))
		return reply(rep)
	}
	s.mu.Lock()
	_, known := s.goals[id]
	if known {
		s.duplicates++
	}
	s.mu.Unlock()
	if known {
		s.o.Service.Logger.Error("action: send_goal of a goal UUID already held, not run again", "goal", fmt.Sprintf("%x", id[:]))
		if s.o.OnDuplicate != nil {
			s.o.OnDuplicate(id)
		}
		answer(!s.o.RejectDuplicates)
		return
	}
	decision := AcceptAndExecute
	if s.h.Goal != nil {
		decision = s.h.Goal(id, goal)
	}
	if decision != AcceptAndExecute && decision != AcceptAndDefer {
		answer(false)
		return
	}
	s.mu.Lock()
	if s.closed || !s.makeRoom() {
		s.mu.Unlock()
		s.o.Service.Logger.Warn("action: goal rejected, server full or closed", "goal", fmt.Sprintf("%x", id[:]), "max", s.o.MaxGoals)
		answer(false)
		return
	}
	// Held but pending (unlisted, not cancelable) until the reply went
	// out: a get_result that overtakes it waits, as it would in rclcpp's
	// executor, and a reply that cannot be sent leaves the goal unrun, as
	// rclcpp does since its send_goal reply timeout (rclcpp #2464).
	g := &ServerGoal{s: s, id: id, goal: goal, stamp: now, state: s.codes.accepted, canceling: make(chan struct{}), pending: true}
	if decision == AcceptAndExecute {
		g.state = s.codes.executing
	}
	s.goals[id] = g
	s.order = append(s.order, id)
	s.mu.Unlock()
	err := answer(true)
	s.mu.Lock()
	if err == nil && s.closed {
		err = ErrClosed
	}
	if err != nil {
		s.forget(id)
		rep := s.resultResponse(s.codes.unknown, nil)
		for _, w := range g.waiters {
			s.replyLater(w, rep)
		}
		s.mu.Unlock()
		s.o.Service.Logger.Warn("action: accepted goal's reply not sent, goal dropped", "goal", fmt.Sprintf("%x", id[:]), "err", err)
		return
	}
	g.pending = false
	s.publishStatus()
	s.mu.Unlock()
	s.h.Accepted(g)
}

// makeRoom frees a place for a new goal, forgetting the oldest ended one
// if the server is full; false when every goal held is live. s.mu held.
func (s *Server) makeRoom() bool {
	if len(s.goals) < s.o.MaxGoals {
		return true
	}
	for _, id := range s.order {
		if g := s.goals[id]; s.codes.terminal(g.state) {
			s.forget(id)
			return true
		}
	}
	return false
}

// forget drops an ended goal; its waiters were answered when it ended.
// s.mu held; the caller publishes the status.
func (s *Server) forget(id GoalID) {
	delete(s.goals, id)
	for i, o := range s.order {
		if o == id {
			s.order = append(s.order[:i], s.order[i+1:]...)
			break
		}
	}
}

func (s *Server) handleGetResult(_ context.Context, req *cdr.Message, reply service.Replier) {
	id := goalIDOf(req)
	s.mu.Lock()
	defer s.mu.Unlock()
	g, ok := s.goals[id]
	switch {
	case s.replying >= maxReplying:
		// Answered at once, these cost a goroutine each: a flood of them
		// must not grow goroutines without bound (waiters are bounded apart).
		s.o.Service.Logger.Warn("action: too many replies waiting for their clients, a get_result dropped")
	case !ok:
		s.replyLater(reply, s.resultResponse(s.codes.unknown, nil))
	case s.codes.terminal(g.state):
		s.replyLater(reply, s.resultResponse(g.state, g.result))
	case len(g.waiters) >= maxResultWaiters:
		s.o.Service.Logger.Warn("action: too many get_result requests waiting, one dropped", "goal", fmt.Sprintf("%x", id[:]))
	default:
		g.waiters = append(g.waiters, reply)
	}
}

// replyLater sends rep through reply from a goroutine the server owns: a
// reply may wait for the client's reader. s.mu held (for closed).
func (s *Server) replyLater(reply service.Replier, rep *cdr.Message) {
	if s.closed {
		return
	}
	s.replying++
	s.wg.Go(func() {
		reply(rep)
		s.mu.Lock()
		s.replying--
		s.mu.Unlock()
	})
}

// resultResponse is a GetResult response; a nil result is the zero one.
func (s *Server) resultResponse(code int8, result *cdr.Message) *cdr.Message {
	rep := cdr.Zero(s.resultRep)
	rep.Set("status", code)
	if result != nil {
		rep.Set("result", result)
	}
	return rep
}

// CancelGoal return codes (action_msgs/srv/CancelGoal, the same in every
// distro).
const (
	cancelNone       int8 = 0
	cancelRejected   int8 = 1
	cancelUnknownID  int8 = 2
	cancelTerminated int8 = 3
)

// handleCancel follows rcl_action_process_cancel_request: a UUID with a
// zero stamp names one goal; a zero UUID and stamp all; a stamp all
// accepted at or before it, plus the UUID's goal. Of the live goals
// chosen, those the owner lets go CANCELING are listed; if it refuses all
// of them the answer is REJECTED.
func (s *Server) handleCancel(_ context.Context, req *cdr.Message, reply service.Replier) {
	info, _ := req.Get("goal_info").(*cdr.Message)
	var id GoalID
	var stamp int64
	if info != nil {
		id = goalIDOf(info)
		stamp = stampNanos(info.Get("stamp"))
	}
	code := cancelNone
	var chosen []*ServerGoal
	s.mu.Lock()
	if id != (GoalID{}) && stamp == 0 {
		g, ok := s.goals[id]
		switch {
		case !ok || g.pending:
			code = cancelUnknownID
		case s.cancelable(g.state):
			chosen = append(chosen, g)
		default:
			code = cancelTerminated
		}
	} else {
		if id == (GoalID{}) && stamp == 0 {
			stamp = math.MaxInt64
		}
		for _, gid := range s.order {
			g := s.goals[gid]
			if !g.pending && s.cancelable(g.state) && (g.stamp.UnixNano() <= stamp || gid == id) {
				chosen = append(chosen, g)
			}
		}
	}
	s.mu.Unlock()
	var canceling []*ServerGoal
	for _, g := range chosen {
		if s.h.Cancel == nil || s.h.Cancel(g) {
			canceling = append(canceling, g)
		}
	}
	if len(chosen) > 0 && len(canceling) == 0 {
		code = cancelRejected
	}
	rep := cdr.Zero(s.cancelRep)
	infoT := rep.Type.Field(rep.Type.FieldIndex("goals_canceling")).Type
	s.mu.Lock()
	listed := canceling[:0]
	for _, g := range canceling {
		if s.cancelable(g.state) { // it may have ended meanwhile
			g.state = s.codes.canceling
			close(g.canceling)
			listed = append(listed, g)
		}
	}
	if len(listed) > 0 {
		s.publishStatus()
	}
	s.mu.Unlock()
	infos := cdr.MakeSlice(infoT, len(listed)).([]*cdr.Message)
	for i, g := range listed {
		infos[i].Set("goal_id", uuidMessage(infos[i].Type, g.id))
		infos[i].Set("stamp", timeMessage(infos[i].Type, "stamp", g.stamp))
	}
	rep.Set("goals_canceling", infos)
	rep.Set("return_code", code)
	reply(rep)
}

func (s *Server) cancelable(state int8) bool {
	return state == s.codes.accepted || state == s.codes.executing
}

// publishStatus writes every goal held and its state; s.mu held.
func (s *Server) publishStatus() {
	arr := cdr.Zero(s.statusT)
	list := cdr.MakeSlice(s.statusT.Field(s.statusT.FieldIndex("status_list")).Type, len(s.order)).([]*cdr.Message)
	n := 0
	for _, id := range s.order {
		g := s.goals[id]
		if g.pending {
			continue
		}
		info := list[n].Get("goal_info").(*cdr.Message)
		info.Set("goal_id", uuidMessage(info.Type, id))
		info.Set("stamp", timeMessage(info.Type, "stamp", g.stamp))
		list[n].Set("status", g.state)
		n++
	}
	arr.Set("status_list", list[:n])
	b, err := cdr.Encode(arr, cdr.LittleEndian)
	if err == nil {
		err = s.st.Write(cdr.Pad(b), nil)
	}
	if err != nil && !s.closed {
		s.o.Service.Logger.Warn("action: status not published", "err", err)
	}
}

// expire forgets ended goals ResultTimeout after their end, as
// rcl_action_expire_goals does.
func (s *Server) expire(ctx context.Context) {
	defer s.wg.Done()
	if s.o.ResultTimeout < 0 {
		return
	}
	for {
		s.mu.Lock()
		now := time.Now()
		next := time.Duration(-1)
		removed := false
		for _, id := range append([]GoalID(nil), s.order...) {
			g := s.goals[id]
			if !s.codes.terminal(g.state) {
				continue
			}
			if left := g.ended.Add(s.o.ResultTimeout).Sub(now); left <= 0 {
				s.forget(id)
				removed = true
			} else if next < 0 || left < next {
				next = left
			}
		}
		if removed && s.o.StatusOnExpiry {
			s.publishStatus()
		}
		s.mu.Unlock()
		if next < 0 {
			next = time.Hour // nothing ended: wait for an end
		}
		t := time.NewTimer(next)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-s.ended:
		case <-t.C:
		}
		t.Stop()
	}
}

// timeMessage is t as the builtin_interfaces/Time field of struct s.
func timeMessage(s *cdr.Struct, field string, t time.Time) *cdr.Message {
	m := cdr.Zero(s.Field(s.FieldIndex(field)).Type.Struct)
	ns := t.UnixNano()
	m.Set("sec", int32(ns/1e9))
	m.Set("nanosec", uint32(ns%1e9))
	return m
}

// stampNanos reads a builtin_interfaces/Time as nanoseconds since 1970.
func stampNanos(v any) int64 {
	m, ok := v.(*cdr.Message)
	if !ok {
		return 0
	}
	sec, _ := m.Get("sec").(int32)
	ns, _ := m.Get("nanosec").(uint32)
	return int64(sec)*1e9 + int64(ns)
}
