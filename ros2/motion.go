package ros2

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/ros2/action"
	"github.com/actbridge/actbridge/ros2/service"
)

// statusPoll is how often a goal's status is read while it is followed.
const statusPoll = 50 * time.Millisecond

// goal is one action goal sent or tracked; the fields after progress
// are guarded by Robot.mu.
type goal struct {
	act      *actuator
	lane     *lane // the action it went to; nil while a tracked goal is attached
	id       string
	uuid     action.GoalID
	progress progressFunc // nil when unknown (tracked goals)

	sending bool
	abort   context.CancelFunc // ends the send's wait for the server
	// stopped: Cancel or StopAll came while the goal was being sent.
	stopped bool
	// unanswered: send_goal got no answer; the request was withdrawn
	// unless the server acknowledged it, and the server may still hold
	// the goal (it got it, its answer was lost).
	unanswered bool
	// onSight: a Cancel or StopAll asked for this goal's end; whenever
	// its server lists it live, a cancel goes out (again until one is
	// acknowledged), whatever came before.
	onSight bool
	// cancelAcked: the server acknowledged a cancel of the goal.
	cancelAcked bool
	// superseded: this bridge sent a newer goal to the same action, which
	// preempts this one if the server accepts it.
	superseded bool
	ended      bool
}

// goalNamespace is the UUIDv5 namespace of goal ids that are not UUIDs.
func goalNamespace() uuid.UUID { return uuid.MustParse("5c0f4a8e-7d1b-4f1e-9a55-2b3c8d7e6f01") }

// GoalUUID is the goal UUID on the wire for a goal id: the id itself when
// it is a UUID (motion ids are), else its UUIDv5 in a fixed namespace, so
// an id always means the same UUID, across restarts too.
func GoalUUID(goalID string) action.GoalID {
	if u, err := uuid.Parse(goalID); err == nil {
		return action.GoalID(u)
	}
	return action.GoalID(uuid.NewSHA1(goalNamespace(), []byte(goalID)))
}

// Send sends a goal to an actuator under goalID's UUID, once: a
// trajectory to an arm, a command to a gripper, a pose to a base's
// navigation action; a Drive goes to the base's driver (base.go). An
// action goal's Send returns when the server has answered the send_goal
// request (so the goal was on the wire): accepted, or rejected (reported
// as GoalRejected). A send whose answer never came is on the wire too:
// Send returns nil and the goal is followed like any other, never sent
// again. Nothing is sent when it fails with ErrNotConnected (no server
// within the actuator's goal_connect_timeout or ctx),
// ErrCanceledBeforeSend, or a refusal of the goal (ErrUnknownActuator,
// ErrInvalidArgument). A send cut short after the request may have been
// written (the robot closed under it, an error it cannot place) fails
// with ErrMaybeSent: the goal may run.
func (r *Robot) Send(ctx context.Context, actuator, goalID string, g actuators.Goal) error {
	a := r.acts[actuator]
	if a == nil {
		return fmt.Errorf("%w: %q", actuators.ErrUnknownActuator, actuator)
	}
	if g == nil || g.Kind() != a.cfg.Kind {
		return fmt.Errorf("%w: %s is a %s; it takes no %T goal", actuators.ErrInvalidArgument, actuator, a.cfg.Kind, g)
	}
	if d, ok := g.(actuators.Drive); ok {
		if a.drive == nil {
			return fmt.Errorf("%w: base %s has no cmd_vel_topic configured", actuators.ErrUnknownActuator, actuator)
		}
		r.mu.Lock()
		_, dup := r.goals[goalID]
		closing := r.life.Err() != nil
		if !dup && !closing {
			// Close waits for the start: a twist it publishes while Close
			// stops the drives is followed by zeros before the node goes.
			r.wg.Add(1)
		}
		r.mu.Unlock()
		switch {
		case dup:
			return fmt.Errorf("%w: %s", actuators.ErrDuplicateGoal, goalID)
		case closing:
			return actuators.ErrClosed
		}
		defer r.wg.Done()
		return a.drive.start(ctx, goalID, d)
	}
	if len(a.lanes) == 0 {
		return fmt.Errorf("%w: %s has no action configured for a %T goal", actuators.ErrUnknownActuator, actuator, g)
	}
	l, err := a.laneFor(g)
	if err != nil {
		return fmt.Errorf("%s: %w", actuator, err)
	}
	msg := cdr.Zero(l.goalT)
	prog, err := a.codec.build(msg, g)
	if err != nil {
		return fmt.Errorf("%s: %w", actuator, err)
	}
	sctx, cancel := context.WithTimeout(ctx, a.cfg.GoalConnectTimeout.D())
	defer cancel()
	defer context.AfterFunc(r.life, cancel)()

	gl := &goal{act: a, lane: l, id: goalID, uuid: GoalUUID(goalID), progress: prog, sending: true, abort: cancel}
	r.mu.Lock()
	if r.life.Err() != nil {
		r.mu.Unlock()
		return actuators.ErrClosed
	}
	if _, dup := r.goals[goalID]; dup {
		r.mu.Unlock()
		return fmt.Errorf("%w: %s", actuators.ErrDuplicateGoal, goalID)
	}
	r.goals[goalID] = gl
	var older, otherLane []*goal
	for _, o := range r.goals {
		if o.act == a && o != gl && !o.ended && !o.superseded {
			o.superseded = true
			older = append(older, o)
			if o.lane != nil && o.lane != l {
				otherLane = append(otherLane, o)
			}
		}
	}
	r.mu.Unlock()
	// A server preempts its own older goal; one on another action of the
	// same actuator (a franka gripper's move while it grasps) knows
	// nothing of the new one: it is canceled first, so two commands never
	// run on one actuator at once.
	for _, o := range otherLane {
		if _, err := o.lane.client.Cancel(sctx, o.uuid); err != nil {
			r.log.Warn("ros2: canceling the goal on the actuator's other action failed", "actuator", actuator, "goal", o.id, "err", err)
		}
	}

	// The one server to send to (its participant), or why none may be:
	// nothing is sent while the graph lists more than one server of the
	// action or publisher of the actuator's state, or none of the node
	// server_node names.
	server, err := r.waitServer(sctx, a, l)
	switch {
	case errors.Is(err, actuators.ErrAmbiguousServer):
	case err != nil:
		err = fmt.Errorf("%w: no server of node %s: %w", service.ErrNoServer, a.cfg.ServerNode, err)
	default:
		_, err = l.client.SendGoalTo(sctx, server, gl.uuid, msg)
	}

	maybeSent := errors.Is(err, service.ErrUndelivered) || errors.Is(err, service.ErrNoReply) || errors.Is(err, service.ErrServerLost)
	r.mu.Lock()
	gl.sending = false
	stopped := gl.stopped
	if err != nil && !maybeSent {
		for _, o := range older { // the newer goal preempts nothing
			o.superseded = false
		}
	}
	r.mu.Unlock()
	switch {
	case err == nil:
	case maybeSent:
		// Sent once, answer unknown: the status and get_result tell.
		r.mu.Lock()
		gl.unanswered = true
		r.mu.Unlock()
		r.log.Warn("ros2: send_goal unanswered; following the goal", "actuator", actuator, "goal", goalID, "err", err)
	case errors.Is(err, service.ErrNoServer), errors.Is(err, service.ErrMixedDialects), errors.Is(err, service.ErrAmbiguousServer),
		errors.Is(err, actuators.ErrAmbiguousServer):
		if stopped {
			r.end(gl, actuators.GoalRecalled, "stopped before the goal was sent", nil)
			return fmt.Errorf("%w: %s", actuators.ErrCanceledBeforeSend, goalID)
		}
		r.mu.Lock()
		delete(r.goals, goalID) // nothing was sent: the id is free
		r.mu.Unlock()
		if r.life.Err() != nil {
			return actuators.ErrClosed
		}
		if errors.Is(err, actuators.ErrAmbiguousServer) {
			return fmt.Errorf("%s: %w", actuator, err)
		}
		if errors.Is(err, service.ErrAmbiguousServer) {
			return fmt.Errorf("%w: %s (%s): %w", actuators.ErrAmbiguousServer, actuator, l.action, err)
		}
		return fmt.Errorf("%w: %s (%s): %w", actuators.ErrNotConnected, actuator, l.action, err)
	case errors.Is(err, action.ErrRejected):
		r.end(gl, actuators.GoalRejected, "the action server rejected the goal", nil)
		return nil
	case errors.Is(err, action.ErrDuplicateGoal):
		return fmt.Errorf("%w: %s", actuators.ErrDuplicateGoal, goalID)
	case errors.Is(err, action.ErrClosed), errors.Is(err, service.ErrClosed):
		// Closed while the request may already have been written: the
		// goal may run, and the bridge must not record "nothing was sent".
		return fmt.Errorf("%w: %w: %s: send_goal: %w", actuators.ErrClosed, actuators.ErrMaybeSent, actuator, err)
	default:
		// Whether it left is not known: the id stays spent, never resent.
		r.mu.Lock()
		gl.ended = true
		r.mu.Unlock()
		return fmt.Errorf("%w: %s: send_goal: %w", actuators.ErrMaybeSent, actuator, err)
	}
	r.update(gl, actuators.GoalPending, 0, "")
	r.mu.Lock() // Close may be waiting on wg: no follower starts after it began
	if r.life.Err() != nil {
		r.mu.Unlock()
		return nil // sent; the goal's end is found by Track after a restart
	}
	r.wg.Add(1)
	r.mu.Unlock()
	if stopped {
		r.mu.Lock()
		gl.onSight = true // stopped as it left: canceled once its server lists it
		r.mu.Unlock()
	}
	go func() {
		defer r.wg.Done()
		r.follow(gl, actuators.GoalPending)
	}()
	return nil
}

// update tells the observer of g's state.
func (r *Robot) update(g *goal, s actuators.GoalState, progress float64, text string) {
	r.notify.Push(actuators.GoalUpdate{Actuator: g.act.cfg.Name, GoalID: g.id, State: s, Progress: progress, Text: text})
}

// end marks g ended and reports its terminal (or forgotten) state.
func (r *Robot) end(g *goal, s actuators.GoalState, text string, result any) {
	r.mu.Lock()
	g.ended = true
	r.mu.Unlock()
	r.notify.Push(actuators.GoalUpdate{Actuator: g.act.cfg.Name, GoalID: g.id, State: s, Result: result, Text: text})
}

type resultOf struct {
	res action.Result
	err error
}

// cancelRetry is how often a cancel the server refused or did not answer
// is sent again while the goal is live.
const cancelRetry = 500 * time.Millisecond

// follow reports g's states until it ends or the robot closes: its status
// (polled), feedback as progress, and its result from get_result, asked
// again when a lost server comes back. last is the state reported so
// far. A goal whose send_goal went unanswered is not ended by a
// get_result that says UNKNOWN (its request may reach the server's
// executor after the get_result did): it is followed until its server's
// status lists it (then get_result is asked again) or its server's
// participant leaves (lost). A goal on sight for a cancel (onSight: a
// Cancel or StopAll came) is canceled whenever its server lists it live,
// again every cancelRetry until the server acknowledges a cancel.
func (r *Robot) follow(g *goal, last actuators.GoalState) {
	c := g.lane.client
	fb, err := c.Feedback(g.uuid)
	if err != nil {
		return
	}
	results := make(chan resultOf, 1)
	asking := false
	// awaitListed: get_result said UNKNOWN for an unanswered send; ask
	// again only once the status lists the goal.
	awaitListed := false
	var asks sync.WaitGroup
	defer asks.Wait()
	ask := func() {
		asking = true
		asks.Add(1)
		go func() {
			defer asks.Done()
			res, err := c.Result(r.life, g.uuid)
			results <- resultOf{res, err}
		}()
	}
	ask()
	tick := time.NewTicker(statusPoll)
	defer tick.Stop()
	var lastCancel time.Time
	done := -1.0
	for {
		select {
		case <-r.life.Done():
			return
		case m := <-fb:
			if g.progress == nil || last != actuators.GoalActive {
				continue
			}
			if p, ok := g.progress(m); ok && p > done {
				done = p
				r.update(g, actuators.GoalActive, p, "")
			}
		case res := <-results:
			asking = false
			if res.err == nil {
				r.mu.Lock()
				superseded, unanswered := g.superseded, g.unanswered
				r.mu.Unlock()
				out := g.act.codec.outcome(res.res.Message)
				s := endState(res.res.Status.Name, out.preemption, superseded)
				if s == actuators.GoalLost && unanswered {
					if st, err := c.Status(g.uuid); err == nil && !st.Lost && st.Name == "PENDING" {
						// Never listed: the server may not have taken the
						// request yet. Not ended while it could hold it.
						awaitListed = true
						r.update(g, last, 0, "send_goal unanswered and the server does not know the goal yet: followed until its status lists it or its participant leaves")
						continue
					} else if err == nil && !st.Lost {
						// Listed since get_result answered: the server took it
						// meanwhile; ask again.
						ask()
						continue
					}
				}
				if s == actuators.GoalLost {
					out.text = "the action server does not know the goal (never received, or its result expired): outcome unknown"
				}
				r.end(g, s, out.text, out.result)
				return
			}
			if errors.Is(res.err, action.ErrLost) && last != actuators.GoalLost {
				last = actuators.GoalLost
				r.update(g, last, 0, "the action server left before the goal ended")
			} else if r.life.Err() == nil && !errors.Is(res.err, action.ErrLost) {
				r.log.Warn("ros2: get_result failed", "goal", g.id, "err", res.err)
			}
		case now := <-tick.C:
			st, err := c.Status(g.uuid)
			if err != nil {
				return
			}
			s, live := liveState(st)
			if live && s != last {
				last = s
				r.update(g, s, 0, "")
			}
			listed := st.Name != "PENDING"
			if awaitListed && (listed || st.Lost) {
				awaitListed = false
			}
			if !asking && !awaitListed && !st.Lost && r.life.Err() == nil {
				ask() // the server is back, or the status says the goal ended
			}
			r.mu.Lock()
			onSight, acked := g.onSight, g.cancelAcked
			r.mu.Unlock()
			if onSight && !acked && !st.Lost && listed && !st.Terminal() && st.Name != "CANCELING" && now.Sub(lastCancel) >= cancelRetry {
				lastCancel = now
				r.cancelOnSight(g, last)
			}
		}
	}
}

// cancelOnSight sends g's server a cancel of g, noting an acknowledgment
// (the goal canceling, or already ended); a refusal or no answer is
// reported (the goal's state text) and retried by follow.
func (r *Robot) cancelOnSight(g *goal, last actuators.GoalState) {
	ctx, stop := context.WithTimeout(r.life, stopCancelWait)
	defer stop()
	res, err := g.lane.client.Cancel(ctx, g.uuid)
	switch {
	case err != nil:
		r.log.Warn("ros2: cancel unanswered; retrying", "goal", g.id, "err", err)
		r.update(g, last, 0, "cancel unanswered; retrying until the server acknowledges or leaves: "+err.Error())
	case cancelAcknowledged(res):
		r.mu.Lock()
		g.cancelAcked = true
		r.mu.Unlock()
	default:
		r.log.Warn("ros2: cancel refused; retrying", "goal", g.id, "code", res.Code)
		r.update(g, last, 0, fmt.Sprintf("the server refused the cancel (return code %d); retrying until it acknowledges or leaves", res.Code))
	}
}

// cancelAcknowledged reports whether a cancel's answer means the goal is
// being canceled or has ended: return code 0 (none) with goals canceling,
// or 3 (terminated). 1 (rejected) and 2 (unknown goal: not there yet, or
// never) are not.
func cancelAcknowledged(res action.CancelResult) bool {
	return res.Code == 0 && len(res.Canceling) > 0 || res.Code == 3
}

// Cancel asks the actuator's server to cancel a goal, or ends a drive. A
// goal still being sent is stopped before it leaves (its Send returns
// ErrCanceledBeforeSend), or canceled on the server once it got there; a
// cancel never goes out before its goal. An id this robot never sent or
// tracked runs nothing of ours: nil.
func (r *Robot) Cancel(ctx context.Context, actuator, goalID string) error {
	a := r.acts[actuator]
	if a == nil {
		return fmt.Errorf("%w: %q", actuators.ErrUnknownActuator, actuator)
	}
	if a.drive != nil && a.drive.cancel(goalID) {
		return nil
	}
	r.mu.Lock()
	g := r.goals[goalID]
	if g == nil || g.act != a {
		r.mu.Unlock()
		return nil
	}
	if g.sending {
		g.stopped = true
		g.abort()
		r.mu.Unlock()
		return nil
	}
	g.onSight = true // canceled again whenever its server lists it live
	l := g.lane
	r.mu.Unlock()
	if l == nil {
		// Tracked, its action not known yet: canceled by its UUID on
		// every action it may be on now, and again once attached.
		var errs []error
		for _, o := range a.lanes {
			if _, err := o.client.Cancel(ctx, g.uuid); err != nil {
				errs = append(errs, err)
			}
		}
		if len(errs) == len(a.lanes) {
			return contractError(actuator, errors.Join(errs...))
		}
		return nil
	}
	res, err := l.client.Cancel(ctx, g.uuid)
	if err == nil && cancelAcknowledged(res) {
		r.mu.Lock()
		g.cancelAcked = true
		r.mu.Unlock()
	}
	return contractError(actuator, err)
}

// contractError maps the client layer's errors to the contract's.
func contractError(actuator string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, service.ErrNoServer):
		return fmt.Errorf("%w: %s: %w", actuators.ErrNotConnected, actuator, err)
	case errors.Is(err, action.ErrClosed), errors.Is(err, service.ErrClosed):
		return fmt.Errorf("%w: %w", actuators.ErrClosed, err)
	}
	return fmt.Errorf("%s: %w", actuator, err)
}

// StopAll stops every send waiting for its server, asks the server of
// every configured action to cancel all its goals (a zero goal id and
// stamp: any client's), and stops every drive (a zero twist), all at
// once. It takes no lock a send holds while it waits, and waits for no
// discovery: an action whose server the graph does not list is skipped,
// as nothing of ours runs there, unless a goal of ours on it has not
// ended. The graph is rebuilt when the discovery goroutine catches up
// with the participant, so it can lag behind an action client that just
// used the server, and a server that left the graph may only be out of
// reach while our goal runs on: such an action is asked all the same,
// and reported when it cannot be reached within stopCancelWait. The
// error lists what failed.
func (r *Robot) StopAll(ctx context.Context) error {
	r.mu.Lock()
	// Actions with a goal of ours sent and not ended; one still being
	// sent is stopped here, and canceled by its own follower if it left.
	// Every goal not known to have ended is canceled by its UUID too (a
	// cancel-all reaches only goals the server already has) and stays on
	// sight: canceled whenever its server lists it live.
	ours := map[*actuator]bool{}
	var live []*goal
	for _, g := range r.goals {
		switch {
		case g.sending:
			g.stopped = true
			g.abort()
		case !g.ended:
			ours[g.act] = true
			g.onSight = true
			if g.lane != nil { // nil: tracked, its action not known yet
				live = append(live, g)
			}
		}
	}
	r.mu.Unlock()
	served := r.served()
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	wg.Go(func() {
		if err := r.stopDrives(ctx, errDriveStopAll); err != nil {
			mu.Lock()
			errs = append(errs, err)
			mu.Unlock()
		}
	})
	for _, g := range live {
		wg.Go(func() {
			cctx, cancel := context.WithTimeout(ctx, stopCancelWait)
			defer cancel()
			res, err := g.lane.client.Cancel(cctx, g.uuid)
			switch {
			case err != nil:
				mu.Lock()
				errs = append(errs, fmt.Errorf("goal %s: cancel unanswered (retried until acknowledged or its server leaves): %w", g.id, contractError(g.act.cfg.Name, err)))
				mu.Unlock()
			case cancelAcknowledged(res):
				r.mu.Lock()
				g.cancelAcked = true
				r.mu.Unlock()
			case res.Code == 1:
				mu.Lock()
				errs = append(errs, fmt.Errorf("%s: goal %s: the server refused the cancel (retried until acknowledged or it leaves)", g.act.cfg.Name, g.id))
				mu.Unlock()
			}
		})
	}
	for _, a := range r.order {
		for _, l := range a.lanes {
			if !served[l.sendGoal] && !ours[a] {
				continue
			}
			wg.Go(func() {
				cctx, cancel := context.WithTimeout(ctx, stopCancelWait)
				defer cancel()
				if _, err := l.client.CancelAll(cctx); err != nil {
					mu.Lock()
					errs = append(errs, contractError(a.cfg.Name, err))
					mu.Unlock()
				}
			})
		}
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Track re-attaches to a goal sent before a restart, without sending it:
// the status the server's transient-local status topic holds, then
// get_result. A goal the server does not list (never received, or
// forgotten 10 s after it ended since Iron) is reported lost; so is one
// whose server published no status within the actuator's status_grace,
// until it does. Tracking a goal already known does nothing.
func (r *Robot) Track(actuator, goalID string) {
	a := r.acts[actuator]
	if a == nil || len(a.lanes) == 0 {
		r.notify.Push(actuators.GoalUpdate{Actuator: actuator, GoalID: goalID, State: actuators.GoalLost,
			Text: fmt.Sprintf("actuator %q has no action to track goals on", actuator)})
		return
	}
	r.mu.Lock()
	if _, known := r.goals[goalID]; known || r.life.Err() != nil {
		r.mu.Unlock()
		return
	}
	g := &goal{act: a, id: goalID, uuid: GoalUUID(goalID)}
	if len(a.lanes) == 1 {
		g.lane = a.lanes[0]
	}
	r.goals[goalID] = g
	r.wg.Add(1)
	r.mu.Unlock()
	go func() {
		defer r.wg.Done()
		ctx, cancel := context.WithTimeout(r.life, a.cfg.StatusGrace.D())
		l, st, err := attach(ctx, a.lanes, g.uuid)
		cancel()
		r.mu.Lock()
		g.lane = l
		r.mu.Unlock()
		var last actuators.GoalState
		switch {
		case errors.Is(err, action.ErrNoStatus):
			last = actuators.GoalLost
			r.update(g, last, 0, "the action server published no status within the status grace")
		case errors.Is(err, service.ErrAmbiguousServer):
			// Pinned to none: nothing either says of it counts.
			r.end(g, actuators.GoalLost, "more than one action server lists the goal, so none is believed: outcome unknown ("+err.Error()+")", nil)
			return
		case err != nil:
			r.log.Warn("ros2: attach failed", "goal", goalID, "err", err)
			return
		default:
			if s, ok := liveState(st); ok {
				last = s
				r.update(g, s, 0, "")
			}
		}
		r.follow(g, last)
	}()
}

// attach attaches to goal id on every lane at once and returns the lane
// whose server lists it in a real state, else one that answers UNKNOWN or
// PENDING, else the first lane's answer (one action alone: its own).
func attach(ctx context.Context, lanes []*lane, id action.GoalID) (*lane, action.Status, error) {
	if len(lanes) == 1 {
		st, err := lanes[0].client.Attach(ctx, id)
		return lanes[0], st, err
	}
	type answer struct {
		st  action.Status
		err error
	}
	answers := make([]answer, len(lanes))
	var wg sync.WaitGroup
	for i, l := range lanes {
		wg.Go(func() {
			st, err := l.client.Attach(ctx, id)
			answers[i] = answer{st, err}
		})
	}
	wg.Wait()
	// A server that lists the goal in a real state is its lane; UNKNOWN
	// is a server whose status lists other goals only (a franka gripper's
	// ~/move after an opening, when the goal was a grasp), PENDING one
	// that published no status yet: either only when no lane lists it.
	for _, weak := range []string{"", "UNKNOWN", "PENDING"} {
		for i, a := range answers {
			if a.err != nil {
				continue
			}
			switch a.st.Name {
			case "PENDING", "UNKNOWN":
				if a.st.Name != weak {
					continue
				}
			default:
				if weak != "" {
					continue
				}
			}
			return lanes[i], a.st, nil
		}
	}
	return lanes[0], answers[0].st, answers[0].err
}
