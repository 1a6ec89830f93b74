package action

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/ros2/service"
	"github.com/actbridge/actbridge/rtps"
	"github.com/actbridge/actbridge/rtps/wire"
)

// GoalID is a goal's UUID (unique_identifier_msgs/UUID).
type GoalID [16]byte

// statusDepth is how many status arrays the client's status reader keeps
// unread, whoever wrote them.
const statusDepth = 16

// feedbackBuffer is how many feedback messages a goal keeps unread; older
// ones are dropped first.
const feedbackBuffer = 16

// Client is the client of one action. Close it to withdraw its five
// endpoints and stop its goroutines.
type Client struct {
	p                                                        *rtps.Participant
	o                                                        service.Options
	names                                                    statusNames
	goalT, sendReq, resultReq, cancelReq, feedbackT, statusT *cdr.Struct

	send, result, cancel *service.Client
	feedback, status     *rtps.Reader
	announced            []rtps.EndpointData // the readers, for the hook

	mu         sync.Mutex
	goals      map[GoalID]*goal
	changed    chan struct{} // closed and replaced on every change
	statusSeen bool
	// listed is the last status array of each status writer, for goals
	// attached after it came.
	listed map[wire.GUID]map[GoalID]int8
	closed bool
	// foreign counts status arrays and feedback about our goals from a
	// participant other than the goal's server: ignored.
	foreign atomic.Uint64

	stop context.CancelFunc
	wg   sync.WaitGroup
}

// goal is what the client knows of one goal it sent or attached.
type goal struct {
	status Status
	// server is the participant the goal is pinned to: the one its
	// send_goal went to (or whose status listed it at Attach). Nothing
	// another participant says of the goal counts. Zero until known.
	server   wire.GUIDPrefix
	feedback chan *cdr.Message
}

// NewClient makes a client of the action named action (fully expanded,
// "/arm/follow_joint_trajectory") of type actionType
// ("control_msgs/action/FollowJointTrajectory") as set defines it. set is
// only read here.
func NewClient(p *rtps.Participant, set *msgs.Set, action, actionType string, o service.Options) (*Client, error) {
	e, err := resolveEntities(set, action, actionType)
	if err != nil {
		return nil, err
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	c := &Client{p: p, o: o, names: e.names, goalT: e.goalT, feedbackT: e.feedbackMsgT, statusT: e.statusT,
		goals: map[GoalID]*goal{}, changed: make(chan struct{}), listed: map[wire.GUID]map[GoalID]int8{}}
	c.sendReq, c.resultReq, c.cancelReq = e.services[0].Request, e.services[1].Request, e.services[2].Request
	ok := false
	defer func() {
		if !ok {
			c.closeEndpoints()
		}
	}()
	for i, dst := range []**service.Client{&c.send, &c.result, &c.cancel} {
		if *dst, err = service.NewClient(p, e.services[i], e.serviceNames[i], o); err != nil {
			return nil, err
		}
	}
	for i, dst := range []**rtps.Reader{&c.feedback, &c.status} {
		var d rtps.EndpointData
		t := e.topics[i]
		if dst == &c.status {
			// Keep-last 1 is per topic, not per writer: a late joiner's
			// transient-local arrays from two servers (or a rogue's right
			// after the server's) must not push one another out unread.
			t.QoS.Depth = statusDepth
		}
		if *dst, d, err = o.Endpoints.NewReader(p, t); err != nil {
			return nil, err
		}
		c.announced = append(c.announced, d)
	}
	ok = true
	ctx, stop := context.WithCancel(context.Background())
	c.stop = stop
	c.wg.Add(3)
	go c.readStatus(ctx)
	go c.readFeedback(ctx)
	go c.watchServers(ctx)
	return c, nil
}

// Close withdraws the client. What it knows of goals is gone with it:
// keep the UUIDs sent elsewhere if the process lives on.
func (c *Client) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	c.notify()
	c.mu.Unlock()
	c.stop()
	err := c.closeEndpoints()
	c.wg.Wait()
	return err
}

func (c *Client) closeEndpoints() error {
	var errs []error
	for _, s := range []*service.Client{c.send, c.result, c.cancel} {
		if s != nil {
			errs = append(errs, s.Close())
		}
	}
	for _, e := range c.announced {
		c.o.Endpoints.Withdrawn(e)
	}
	for _, r := range []*rtps.Reader{c.feedback, c.status} {
		if r != nil {
			errs = append(errs, r.Close())
		}
	}
	return errors.Join(errs...)
}

// notify wakes waiters; c.mu must be held.
func (c *Client) notify() {
	close(c.changed)
	c.changed = make(chan struct{})
}

// claim records id as sent, refusing one already sent or attached.
func (c *Client) claim(id GoalID) (*goal, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, ErrClosed
	}
	if _, ok := c.goals[id]; ok {
		return nil, fmt.Errorf("%w: %x", ErrDuplicateGoal, id[:])
	}
	g := &goal{status: Status{Name: "PENDING"}, feedback: make(chan *cdr.Message, feedbackBuffer)}
	c.goals[id] = g
	return g, nil
}

// SendGoal is SendGoalTo the action's one server.
func (c *Client) SendGoal(ctx context.Context, id GoalID, goalMsg *cdr.Message) (time.Time, error) {
	return c.SendGoalTo(ctx, wire.GUIDPrefix{}, id, goalMsg)
}

// SendGoalTo sends goal under id, once, to the server on participant
// server (zero: the action's one server; more than one is
// service.ErrAmbiguousServer, nothing sent), to that server's reader
// alone; the goal is pinned to that participant from then on. It returns
// the server's acceptance stamp, or ErrRejected. Any error after the
// request may have left (service.ErrUndelivered, ErrNoReply,
// ErrServerLost) leaves the outcome unknown: id stays claimed, and the
// goal is followed by Status and Result like any other. Only
// service.ErrNoServer, ErrAmbiguousServer and ErrMixedDialects (nothing
// sent) free it.
func (c *Client) SendGoalTo(ctx context.Context, server wire.GUIDPrefix, id GoalID, goalMsg *cdr.Message) (time.Time, error) {
	if goalMsg == nil || goalMsg.Type != c.goalT {
		return time.Time{}, fmt.Errorf("action: goal must be a %s", c.goalT.Name())
	}
	req := cdr.Zero(c.sendReq)
	req.Set("goal_id", uuidMessage(c.sendReq, id))
	req.Set("goal", goalMsg)
	enc, err := c.send.Encode(req) // once: what is checked here is what is sent
	if err != nil {
		return time.Time{}, err
	}
	g, err := c.claim(id)
	if err != nil {
		return time.Time{}, err
	}
	var rep *cdr.Message
	peer, err := c.send.WaitServerOn(ctx, server)
	if err == nil {
		c.mu.Lock()
		g.server = peer.Prefix // pinned before anything is sent
		c.mu.Unlock()
		rep, peer, err = c.send.ExchangeEncoded(ctx, enc, peer.Prefix)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if errors.Is(err, service.ErrNoServer) || errors.Is(err, service.ErrMixedDialects) || errors.Is(err, service.ErrAmbiguousServer) {
		delete(c.goals, id) // nothing was sent
		return time.Time{}, err
	}
	c.attachServer(g, peer.Prefix)
	if err != nil {
		if errors.Is(err, service.ErrServerLost) {
			g.status.Lost = true
		}
		c.notify()
		return time.Time{}, err
	}
	if accepted, _ := rep.Get("accepted").(bool); !accepted {
		g.status = Status{Name: "REJECTED"}
		c.notify()
		return time.Time{}, ErrRejected
	}
	if g.status.Name == "PENDING" {
		code, _ := c.names.code("ACCEPTED")
		g.status = c.names.status(code)
	}
	c.notify()
	return stampTime(rep.Get("stamp")), nil
}

// Servers lists the participants serving the action's send_goal.
func (c *Client) Servers() []wire.GUIDPrefix { return c.send.Servers() }

// Server is the participant goal id is pinned to; zero when not known.
func (c *Client) Server(id GoalID) wire.GUIDPrefix {
	c.mu.Lock()
	defer c.mu.Unlock()
	if g, ok := c.goals[id]; ok {
		return g.server
	}
	return wire.GUIDPrefix{}
}

// Foreign is how many messages about this client's goals came from a
// participant other than the goal's server and were ignored: status
// arrays, feedback, and replies to send_goal, get_result and cancel.
func (c *Client) Foreign() uint64 {
	return c.foreign.Load() + c.send.Foreign() + c.result.Foreign() + c.cancel.Foreign()
}

// attachServer records the participant serving g and marks g lost at
// once if it is already gone; c.mu must be held.
func (c *Client) attachServer(g *goal, prefix wire.GUIDPrefix) {
	if prefix == (wire.GUIDPrefix{}) {
		return
	}
	g.server = prefix
	for _, d := range c.p.Participants() {
		if d.Prefix == prefix {
			return
		}
	}
	if !g.status.Terminal() {
		g.status.Lost = true
	}
}

// Attach follows a goal sent before (by an earlier run) without sending
// it: id is claimed, and the status the server's transient-local status
// topic gives is returned; a goal the server does not list is UNKNOWN
// (never sent, or forgotten after its result_timeout). Then Result asks
// for its result. It fails with ErrNoStatus when no status came by the
// end of ctx (a server that never had a goal may publish none); Result
// still answers then.
func (c *Client) Attach(ctx context.Context, id GoalID) (Status, error) {
	g, err := c.claim(id)
	if err != nil {
		return Status{}, err
	}
	var ambiguous error
	// decide reads what the status arrays say of id; c.mu must be held.
	// Before final it waits for an array from every server of the action
	// (a goal two list is pinned to neither), unless two already list it.
	decide := func(final bool) (Status, bool) {
		if !c.statusSeen || g.status.Name != "PENDING" {
			return g.status, c.statusSeen
		}
		var listers []wire.GUIDPrefix
		code := int8(0)
		servers := c.send.Servers() // a status writer that serves no send_goal pins nothing
		for w, list := range c.listed {
			if k, ok := list[id]; ok && slices.Contains(servers, w.Prefix) && !slices.Contains(listers, w.Prefix) {
				code = k
				listers = append(listers, w.Prefix)
			}
		}
		if len(listers) < 2 && !final && !c.heardAll() {
			return Status{}, false
		}
		if len(listers) > 1 { // pinned to none: nothing they say counts
			ambiguous = &service.AmbiguousError{Servers: listers}
			return Status{}, true
		}
		g.status = c.names.status(code)
		if len(listers) == 1 {
			g.server = listers[0]
		}
		return g.status, true
	}
	st, err := c.wait(ctx, func() (Status, bool) { return decide(false) })
	if err != nil && ctx.Err() != nil && !errors.Is(err, ErrClosed) {
		c.mu.Lock()
		if c.statusSeen { // some server spoke; a silent one had no goals
			st, _ = decide(true)
			err = nil
		}
		c.mu.Unlock()
	}
	if ambiguous != nil {
		return Status{}, ambiguous
	}
	if err != nil && !errors.Is(err, ErrClosed) {
		return Status{}, fmt.Errorf("%w: %w", ErrNoStatus, err)
	}
	return st, err
}

// heardAll reports whether a status array came from every participant
// serving the action; c.mu must be held.
func (c *Client) heardAll() bool {
	for _, p := range c.send.Servers() {
		if !slices.ContainsFunc(slices.Collect(maps.Keys(c.listed)), func(w wire.GUID) bool { return w.Prefix == p }) {
			return false
		}
	}
	return true
}

// Status returns what the client knows of goal id now.
func (c *Client) Status(id GoalID) (Status, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	g, ok := c.goals[id]
	if !ok {
		return Status{}, fmt.Errorf("%w: %x", ErrUnknownGoal, id[:])
	}
	return g.status, nil
}

// WaitStatus waits until cond holds for goal id's status and returns it.
// A lost goal ends the wait with ErrLost.
func (c *Client) WaitStatus(ctx context.Context, id GoalID, cond func(Status) bool) (Status, error) {
	return c.wait(ctx, func() (Status, bool) {
		g, ok := c.goals[id]
		if !ok {
			return Status{}, true
		}
		return g.status, cond(g.status) || g.status.Lost
	})
}

// wait calls check under c.mu at every change until it says done.
func (c *Client) wait(ctx context.Context, check func() (Status, bool)) (Status, error) {
	for {
		c.mu.Lock()
		st, done := check()
		ch, closed := c.changed, c.closed
		c.mu.Unlock()
		if done {
			if st.Lost {
				return st, ErrLost
			}
			if st.Name == "" {
				return st, ErrUnknownGoal
			}
			return st, nil
		}
		if closed {
			return st, ErrClosed
		}
		select {
		case <-ctx.Done():
			return st, ctx.Err()
		case <-ch:
		}
	}
}

// Feedback is goal id's feedback channel (the action's Feedback message,
// without the goal id). It is never closed; unread messages beyond 16
// are dropped oldest first.
func (c *Client) Feedback(id GoalID) (<-chan *cdr.Message, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	g, ok := c.goals[id]
	if !ok {
		return nil, fmt.Errorf("%w: %x", ErrUnknownGoal, id[:])
	}
	return g.feedback, nil
}

// Result is a goal's end as get_result reports it.
type Result struct {
	// Status is the final status; UNKNOWN means the server does not know
	// the goal (never received, or forgotten after its result_timeout):
	// the outcome is unknown and no reason to send the goal again.
	Status Status
	// Message is the action's Result (zero values when UNKNOWN).
	Message *cdr.Message
}

// Result asks the server for goal id's result; the server answers when
// the goal has ended. A server leaving first is ErrLost.
func (c *Client) Result(ctx context.Context, id GoalID) (Result, error) {
	c.mu.Lock()
	g, ok := c.goals[id]
	c.mu.Unlock()
	if !ok {
		return Result{}, fmt.Errorf("%w: %x", ErrUnknownGoal, id[:])
	}
	req := cdr.Zero(c.resultReq)
	req.Set("goal_id", uuidMessage(c.resultReq, id))
	c.mu.Lock()
	server := g.server
	c.mu.Unlock()
	rep, peer, err := c.result.ExchangeWith(ctx, req, server)
	c.mu.Lock()
	defer c.mu.Unlock()
	if errors.Is(err, service.ErrServerLost) {
		if g.server == (wire.GUIDPrefix{}) || g.server == peer.Prefix {
			if !g.status.Terminal() {
				g.status.Lost = true
			}
			c.notify()
		}
		return Result{Status: g.status}, fmt.Errorf("%w: %w", ErrLost, err)
	}
	if err != nil {
		return Result{}, err
	}
	code, _ := rep.Get("status").(int8)
	res := Result{Status: c.names.status(code)}
	res.Message, _ = rep.Get("result").(*cdr.Message)
	if g.server == (wire.GUIDPrefix{}) {
		g.server = peer.Prefix // the one server answered
	}
	if res.Status.Terminal() {
		g.status = res.Status
		c.notify()
	}
	return res, nil
}

// CancelResult is the server's answer to a cancel: return_code (the
// distro's CancelGoal ERROR_* codes: 0 none, 1 rejected, 2 unknown goal,
// 3 goal terminated) and the goals now canceling.
type CancelResult struct {
	Code      int8
	Canceling []GoalID
}

// Cancel asks goal id's server to cancel it.
func (c *Client) Cancel(ctx context.Context, id GoalID) (CancelResult, error) {
	if _, err := c.Status(id); err != nil {
		return CancelResult{}, err
	}
	return c.cancelGoals(ctx, id, c.Server(id))
}

// CancelOn asks the server on participant server (zero: the action's one
// server) to cancel goal id, whether or not this client knows it: a
// goal of an earlier run, or one whose send was given up.
func (c *Client) CancelOn(ctx context.Context, server wire.GUIDPrefix, id GoalID) (CancelResult, error) {
	return c.cancelGoals(ctx, id, server)
}

// CancelAll asks every server of the action to cancel every goal it has
// (a zero goal id and stamp), any client's, each to its own reader: a
// stop reaches a second server too. The errors of those that failed are
// joined.
func (c *Client) CancelAll(ctx context.Context) (CancelResult, error) {
	servers := c.cancel.Servers()
	if len(servers) == 0 {
		return c.cancelGoals(ctx, GoalID{}, wire.GUIDPrefix{}) // waits for one
	}
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		all  CancelResult
		errs []error
	)
	for _, p := range servers {
		wg.Go(func() {
			res, err := c.cancelGoals(ctx, GoalID{}, p)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, fmt.Errorf("server %x: %w", p[:], err))
				return
			}
			all.Code = max(all.Code, res.Code)
			all.Canceling = append(all.Canceling, res.Canceling...)
		})
	}
	wg.Wait()
	return all, errors.Join(errs...)
}

func (c *Client) cancelGoals(ctx context.Context, id GoalID, server wire.GUIDPrefix) (CancelResult, error) {
	req := cdr.Zero(c.cancelReq)
	info := req.Get("goal_info").(*cdr.Message)
	info.Set("goal_id", uuidMessage(info.Type, id))
	rep, _, err := c.cancel.ExchangeWith(ctx, req, server)
	if err != nil {
		return CancelResult{}, err
	}
	var res CancelResult
	res.Code, _ = rep.Get("return_code").(int8)
	infos, _ := rep.Get("goals_canceling").([]*cdr.Message)
	for _, gi := range infos {
		res.Canceling = append(res.Canceling, goalIDOf(gi))
	}
	return res, nil
}

// readStatus applies every status array the servers publish.
func (c *Client) readStatus(ctx context.Context) {
	defer c.wg.Done()
	for {
		s, err := c.status.Take(ctx)
		if err != nil {
			return
		}
		listed, err := parseStatus(c.statusT, s.Payload)
		if err != nil {
			c.o.Logger.Warn("action: status undecodable", "writer", s.Writer, "err", err)
			continue
		}
		c.mu.Lock()
		c.statusSeen = true
		c.listed[s.Writer] = listed
		foreign := false
		for id, code := range listed {
			g, ok := c.goals[id]
			if !ok || g.server == (wire.GUIDPrefix{}) {
				continue // not ours, or not pinned yet: nobody's word counts
			}
			if g.server != s.Writer.Prefix {
				foreign = true // another participant's word on our goal
				continue
			}
			if !g.status.Terminal() {
				lost := g.status.Lost
				g.status = c.names.status(code)
				g.status.Lost = lost && !g.status.Terminal()
			}
		}
		if foreign {
			c.foreign.Add(1)
			c.o.Logger.Warn("action: status about our goal from another participant than its server ignored", "writer", s.Writer)
		}
		c.notify()
		c.mu.Unlock()
	}
}

// readFeedback hands feedback to the goals it is for.
func (c *Client) readFeedback(ctx context.Context) {
	defer c.wg.Done()
	for {
		s, err := c.feedback.Take(ctx)
		if err != nil {
			return
		}
		id, fb, err := parseFeedback(c.feedbackT, s.Payload)
		if err != nil {
			c.o.Logger.Warn("action: feedback undecodable", "writer", s.Writer, "err", err)
			continue
		}
		c.mu.Lock()
		if g, ok := c.goals[id]; ok && g.server != s.Writer.Prefix {
			c.foreign.Add(1)
		} else if ok {
			select {
			case g.feedback <- fb:
			default:
				<-g.feedback
				g.feedback <- fb
			}
		}
		c.mu.Unlock()
	}
}

// watchServers marks the live goals of a server whose participant left
// (goodbye or lease end) as lost, and forgets its status array.
func (c *Client) watchServers(ctx context.Context) {
	defer c.wg.Done()
	for {
		_, err := c.p.WaitParticipants(ctx, func(ps []rtps.ParticipantData) bool {
			present := map[wire.GUIDPrefix]bool{}
			for _, d := range ps {
				present[d.Prefix] = true
			}
			c.mu.Lock()
			defer c.mu.Unlock()
			for w := range c.listed {
				if !present[w.Prefix] {
					delete(c.listed, w)
				}
			}
			lost := false
			for _, g := range c.goals {
				if g.server != (wire.GUIDPrefix{}) && !present[g.server] && !g.status.Lost && !g.status.Terminal() {
					g.status.Lost = true
					lost = true
				}
			}
			if lost {
				c.notify()
			}
			return false
		})
		if err != nil {
			return
		}
	}
}

// parseStatus reads a GoalStatusArray sample (t) as each goal's status
// code; a goal listed twice keeps its last entry. It reads the octets
// itself, within bounds (readStatusArray).
func parseStatus(t *cdr.Struct, payload []byte) (map[GoalID]int8, error) {
	return readStatusArray(payload)
}

// parseFeedback reads a FeedbackMessage sample (t): the goal it is for
// and the action's Feedback.
func parseFeedback(t *cdr.Struct, payload []byte) (GoalID, *cdr.Message, error) {
	m, err := cdr.Decode(t, payload)
	if err != nil {
		return GoalID{}, nil, err
	}
	id, _ := m.Get("goal_id").(*cdr.Message)
	fb, _ := m.Get("feedback").(*cdr.Message)
	if id == nil || fb == nil {
		return GoalID{}, nil, fmt.Errorf("action: %s without goal_id or feedback", t.Name())
	}
	return goalIDOf(id), fb, nil
}

// uuidMessage is id as the unique_identifier_msgs/UUID field goal_id of s.
func uuidMessage(s *cdr.Struct, id GoalID) *cdr.Message {
	u := cdr.Zero(s.Field(s.FieldIndex("goal_id")).Type.Struct)
	u.Set("uuid", append([]uint8(nil), id[:]...))
	return u
}

// goalIDOf reads the goal id of a message holding goal_id (or a UUID).
func goalIDOf(m *cdr.Message) GoalID {
	var id GoalID
	if u, ok := m.Get("goal_id").(*cdr.Message); ok {
		m = u
	}
	if b, ok := m.Get("uuid").([]uint8); ok {
		copy(id[:], b)
	}
	return id
}

// stampTime reads a builtin_interfaces/Time.
func stampTime(v any) time.Time {
	m, ok := v.(*cdr.Message)
	if !ok {
		return time.Time{}
	}
	sec, _ := m.Get("sec").(int32)
	ns, _ := m.Get("nanosec").(uint32)
	return time.Unix(int64(sec), int64(ns))
}
