package ros1

import (
	"context"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/actionlib_msgs"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/config"
)

// Timing of the actionlib client that is not worth configuring.
const (
	// statusFresh: an action server publishes its status list periodically
	// (actionlib: 5 Hz by default); silence longer than this means the
	// server is gone or muted.
	statusFresh = 2 * time.Second
	// resultWait: how long a terminal state seen in the status list waits
	// for its result message before it is reported without one.
	resultWait = time.Second
	// cancelRetry/maxCancelSends: a cancel is resent until the server shows
	// it received it (preempting, recalling or a final state).
	cancelRetry    = time.Second
	maxCancelSends = 10
	// keepFinal bounds how long a finished goal's id stays known here; the
	// bridge's store is what guarantees an id is never reused.
	keepFinal = 10 * time.Minute
	// progressStep quantizes feedback-derived progress so updates come at
	// most every 2 %.
	progressStep = 0.02
	pollInterval = 50 * time.Millisecond
	// preparedFresh: how long before a send a count of the goal topic's
	// subscribers that PrepareSend began may stand for the send's own.
	preparedFresh = 50 * time.Millisecond
)

// actionWire is one node incarnation's publishers of an action, and a way
// to count the subscribers of its goal topic. Writes never fail visibly:
// goroslib drops what has no subscriber, which is why sends wait for one.
type actionWire interface {
	writeGoal(msg any)
	writeCancel(id actionlib_msgs.GoalID)
	goalSubscribers() (int, error)
}

type wireBox struct{ w actionWire }

type goalPhase uint8

const (
	// phaseDispatching: registered, waiting for the connection; nothing
	// published. A cancel here means the goal is never published.
	phaseDispatching goalPhase = iota
	// phasePublishing: being written. A cancel waits for the write and is
	// sent right after it.
	phasePublishing
	// phaseSent: on the wire, or tracked after a restart.
	phaseSent
)

// goal is one goal the bridge sent or tracks. Guarded by actionClient.mu.
type goal struct {
	id      string
	phase   goalPhase
	tracked bool
	since   time.Time // published or tracked
	wake    chan struct{}
	woken   bool

	cancelRequested bool // during dispatch
	cancelWanted    bool
	cancelSends     int
	lastCancel      time.Time

	state    actuators.GoalState // last state reported to the observer ("" before any)
	progress float64
	seen     bool
	lastSeen time.Time
	missing  time.Time // first status list without the goal since it was last seen
	lostAt   time.Time

	pendingState actuators.GoalState // a final state seen in the status list, waiting for its result
	pendingText  string
	pendingAt    time.Time

	final   bool
	finalAt time.Time
	result  any
	text    string // text of the last update

	// progressOf derives progress (0..1) from a feedback message; nil when
	// the goal's kind or what is known about it gives none.
	progressOf func(feedback any) (float64, bool)
}

// actionClient speaks the client side of actionlib over plain topics with
// the bridge's goal ids. Sends wait without holding mu, so Cancel and
// StopAll never wait behind a send.
type actionClient struct {
	name, ns       string
	kind           actuators.Kind
	grace          time.Duration
	connectTimeout time.Duration
	// silence: with no status at all for this long, tracked goals are lost.
	silence time.Duration
	notify  func(actuators.GoalUpdate)
	now     func() time.Time
	// holdGoal builds the goal that stops an arm after an abort; nil for
	// other kinds.
	holdGoal func(id actionlib_msgs.GoalID) any
	// onWire, when set (tests), sees every goal and cancel as it is written.
	onWire func(topic, id string)
	// done ends waits for a connection (the Robot is closing).
	done <-chan struct{}

	wire       atomic.Pointer[wireBox]
	subscribed atomic.Bool // the goal topic has a subscriber, per the last monitor poll

	mu         sync.Mutex
	goals      map[string]*goal
	lastStatus time.Time
	lastList   []actionlib_msgs.GoalStatus // the server's last status list
	prepared   *preparedCount              // begun by prepare, taken by the next send
}

// preparedCount is a count of a wire's goal subscribers begun ahead of a
// send (prepare), so its round trip to our own node overlaps the caller's
// work (the bridge's commit) instead of following it.
type preparedCount struct {
	w     actionWire
	begun time.Time
	done  chan struct{} // closed when n and err are set
	n     int
	err   error
}

func newActionClient(a config.ActuatorConfig, notify func(actuators.GoalUpdate)) *actionClient {
	return &actionClient{
		name: a.Name, kind: a.Kind, ns: a.Action,
		grace:          a.StatusGrace.D(),
		connectTimeout: a.GoalConnectTimeout.D(),
		silence:        max(10*time.Second, 3*a.StatusGrace.D()),
		notify:         notify,
		now:            time.Now,
		goals:          map[string]*goal{},
	}
}

func (c *actionClient) wired(topic, id string) {
	if c.onWire != nil {
		c.onWire(topic, id)
	}
}

func (c *actionClient) setWire(w actionWire) *wireBox {
	b := &wireBox{w}
	c.wire.Store(b)
	return b
}

// dropWire forgets b if it is still the current wire.
func (c *actionClient) dropWire(b *wireBox) { c.wire.CompareAndSwap(b, nil) }

func (c *actionClient) currentWire() actionWire {
	if b := c.wire.Load(); b != nil {
		return b.w
	}
	return nil
}

// send publishes one goal built by build with the bridge's id, once the
// server is connected: a goal published before the server subscribed to
// the goal topic is lost silently. It returns once the goal is written.
func (c *actionClient) send(ctx context.Context, id string, build func(actionlib_msgs.GoalID) any, progressOf func(any) (float64, bool)) error {
	if id == "" {
		return fmt.Errorf("%w: %s: empty goal id", actuators.ErrInvalidArgument, c.name)
	}
	g := &goal{id: id, phase: phaseDispatching, wake: make(chan struct{}), progressOf: progressOf}
	c.mu.Lock()
	if old, ok := c.goals[id]; ok {
		c.mu.Unlock()
		return fmt.Errorf("%w: %s goal %q is already known (%s)", actuators.ErrDuplicateGoal, c.name, id, old.describe())
	}
	c.goals[id] = g
	c.mu.Unlock()

	w, err := c.waitConnected(ctx, g)

	c.mu.Lock()
	if g.cancelRequested {
		c.recallUnsent(g)
		c.mu.Unlock()
		return fmt.Errorf("%w: %s goal %q", actuators.ErrCanceledBeforeSend, c.name, id)
	}
	if err != nil {
		delete(c.goals, id) // nothing went out: the id may be sent later
		c.mu.Unlock()
		return err
	}
	g.phase = phasePublishing
	c.mu.Unlock()

	w.writeGoal(build(actionlib_msgs.GoalID{Id: id, Stamp: time.Now()}))
	c.wired("goal", id)

	c.mu.Lock()
	g.phase, g.since = phaseSent, c.now()
	cancel := g.cancelRequested
	if cancel {
		g.cancelWanted, g.cancelSends, g.lastCancel = true, 1, g.since
	}
	c.mu.Unlock()
	if cancel {
		w.writeCancel(actionlib_msgs.GoalID{Id: id})
		c.wired("cancel", id)
	}
	return nil
}

// recallUnsent ends a goal canceled before it was published.
func (c *actionClient) recallUnsent(g *goal) {
	g.phase = phaseSent
	c.finalize(g, actuators.GoalRecalled, "canceled before it was sent; nothing was published", nil)
}

// waitConnected waits until the goal topic has a subscriber and the server
// publishes status, bounded by connectTimeout, ctx and a cancel of g.
func (c *actionClient) waitConnected(ctx context.Context, g *goal) (actionWire, error) {
	deadline := time.NewTimer(c.connectTimeout)
	defer deadline.Stop()
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	why := "no ROS link"
	for {
		w := c.currentWire()
		if w != nil {
			ok, reason := c.connectedVia(w)
			if ok {
				return w, nil
			}
			why = reason
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%s: waiting for %s (%s): %w", c.name, c.ns, why, ctx.Err())
		case <-c.done:
			return nil, fmt.Errorf("%w: %s", actuators.ErrClosed, c.name)
		case <-deadline.C:
			return nil, fmt.Errorf("%w: %s: %s after %s", actuators.ErrNotConnected, c.name, why, c.connectTimeout)
		case <-g.wake:
		case <-tick.C:
		}
		c.mu.Lock()
		canceled := g.cancelRequested
		c.mu.Unlock()
		if canceled {
			return nil, nil
		}
	}
}

// prepare begins the count the next send's connectedVia needs. The count
// ends on its own (an XML-RPC call bounded by busTimeout); a send takes it
// only if it is for the current wire, saw a subscriber and began at most
// preparedFresh before the send went on, and asks the wire again otherwise.
func (c *actionClient) prepare() {
	w := c.currentWire()
	if w == nil {
		return
	}
	p := &preparedCount{w: w, begun: c.now(), done: make(chan struct{})}
	c.mu.Lock()
	c.prepared = p
	c.mu.Unlock()
	go func() {
		defer close(p.done)
		p.n, p.err = w.goalSubscribers()
	}()
}

// goalSubscribers counts w's goal subscribers for a send: from the count
// prepare began, if it may stand for the send's own, else from the wire.
func (c *actionClient) goalSubscribers(w actionWire) (int, error) {
	c.mu.Lock()
	p := c.prepared
	c.prepared = nil
	c.mu.Unlock()
	if p != nil && p.w == w {
		<-p.done
		if p.err == nil && p.n > 0 && c.now().Sub(p.begun) <= preparedFresh {
			return p.n, nil
		}
	}
	return w.goalSubscribers()
}

// connectedVia asks the wire itself, for a send that is about to write.
func (c *actionClient) connectedVia(w actionWire) (bool, string) {
	n, err := c.goalSubscribers(w)
	switch {
	case err != nil:
		return false, fmt.Sprintf("cannot list connections of %s/goal: %v", c.ns, err)
	case n == 0:
		return false, fmt.Sprintf("no subscriber on %s/goal", c.ns)
	}
	c.mu.Lock()
	last := c.lastStatus
	c.mu.Unlock()
	if last.IsZero() || c.now().Sub(last) > statusFresh {
		return false, fmt.Sprintf("no status from %s", c.ns)
	}
	return true, ""
}

// status is the actuator's connectivity from the monitor's last poll.
func (c *actionClient) status() (bool, string) {
	if c.currentWire() == nil {
		return false, "no ROS link (master unreachable?)"
	}
	c.mu.Lock()
	last := c.lastStatus
	c.mu.Unlock()
	switch {
	case last.IsZero():
		return false, "no status from " + c.ns + " yet"
	case c.now().Sub(last) > statusFresh:
		return false, fmt.Sprintf("no status from %s for %s", c.ns, c.now().Sub(last).Round(100*time.Millisecond))
	case !c.subscribed.Load():
		return false, "no subscriber on " + c.ns + "/goal"
	}
	return true, ""
}

// cancel cancels one goal. A goal still being dispatched is canceled when
// (if ever) it is written; an unknown goal (sent before a restart and not
// tracked) is canceled on the wire all the same.
func (c *actionClient) cancel(id string) error {
	if id == "" {
		return fmt.Errorf("%w: %s: empty goal id (use StopAll to cancel everything)", actuators.ErrInvalidArgument, c.name)
	}
	c.mu.Lock()
	g := c.goals[id]
	switch {
	case g != nil && g.phase != phaseSent:
		g.cancelRequested = true
		g.wakeUp()
		c.mu.Unlock()
		return nil
	case g != nil && g.final:
		c.mu.Unlock()
		return nil
	case g != nil:
		g.cancelWanted = true
		g.cancelSends++
		g.lastCancel = c.now()
	}
	c.mu.Unlock()
	w := c.currentWire()
	if w == nil {
		// Resent by tick once the link is back (for known goals).
		return fmt.Errorf("%w: %s: cancel of %q not sent: no ROS link", actuators.ErrNotConnected, c.name, id)
	}
	w.writeCancel(actionlib_msgs.GoalID{Id: id})
	c.wired("cancel", id)
	return nil
}

// cancelAll is StopAll's part: every goal on the server (empty id, zero
// stamp), and every goal still being dispatched here.
func (c *actionClient) cancelAll() error {
	now := c.now()
	c.mu.Lock()
	for _, g := range c.goals {
		switch {
		case g.phase != phaseSent:
			g.cancelRequested = true
			g.wakeUp()
		case !g.final:
			g.cancelWanted = true
			g.cancelSends++
			g.lastCancel = now
		}
	}
	c.mu.Unlock()
	w := c.currentWire()
	if w == nil {
		return fmt.Errorf("%w: %s: cancel-all not sent: no ROS link", actuators.ErrNotConnected, c.name)
	}
	w.writeCancel(actionlib_msgs.GoalID{})
	c.wired("cancel", "")
	return nil
}

func (g *goal) wakeUp() {
	if !g.woken {
		g.woken = true
		close(g.wake)
	}
}

func (g *goal) describe() string {
	switch {
	case g.phase == phaseDispatching:
		return "dispatching"
	case g.phase == phasePublishing:
		return "being published"
	case g.state == "":
		return "sent"
	}
	return string(g.state)
}

// track re-attaches to a goal sent before a restart. For a goal this
// client already knows it repeats the last update, so the caller learns
// where the goal stands either way.
func (c *actionClient) track(id string) {
	if id == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if g, ok := c.goals[id]; ok {
		if g.state != "" {
			c.notify(actuators.GoalUpdate{Actuator: c.name, GoalID: id, State: g.state, Progress: g.progress, Result: g.result, Text: g.text})
		}
		return
	}
	c.goals[id] = &goal{id: id, phase: phaseSent, tracked: true, since: c.now(), woken: true}
}

// onStatus handles one status list.
func (c *actionClient) onStatus(list []actionlib_msgs.GoalStatus) {
	now := c.now()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lastStatus = now
	c.lastList = list
	for _, g := range c.goals {
		if g.phase != phaseSent || g.final {
			continue
		}
		if st, ok := findStatus(list, g.id); ok {
			c.seen(g, st, now)
		} else {
			c.notSeen(g, now)
		}
	}
}

func findStatus(list []actionlib_msgs.GoalStatus, id string) (actionlib_msgs.GoalStatus, bool) {
	for i := range list {
		if list[i].GoalId.Id == id {
			return list[i], true
		}
	}
	return actionlib_msgs.GoalStatus{}, false
}

func (c *actionClient) seen(g *goal, st actionlib_msgs.GoalStatus, now time.Time) {
	g.seen, g.lastSeen, g.missing = true, now, time.Time{}
	name := goalState(st.Status)
	if name.Terminal() {
		if g.pendingState == "" {
			g.pendingState, g.pendingText, g.pendingAt = name, st.Text, now
		}
		return
	}
	if name == actuators.GoalLost {
		return // actionlib's LOST is a client-side state; servers do not send it
	}
	if name != g.state {
		g.state, g.text = name, st.Text
		c.notify(actuators.GoalUpdate{Actuator: c.name, GoalID: g.id, State: name, Progress: g.progress, Text: st.Text})
	}
}

func (c *actionClient) notSeen(g *goal, now time.Time) {
	if g.missing.IsZero() {
		// A goal never seen is missing since it was sent or tracked; one
		// that was seen, since the first list without it.
		g.missing = now
		if !g.seen && g.since.Before(now) {
			g.missing = g.since
		}
	}
	if now.Sub(g.missing) < c.grace {
		return
	}
	if g.pendingState != "" {
		// Dropped from the list after it finished; the result never came.
		c.finalize(g, g.pendingState, withNote(g.pendingText, "no result message received"), nil)
		return
	}
	if g.state == actuators.GoalLost {
		return
	}
	text := fmt.Sprintf("%s no longer reports the goal and sent no result", c.ns)
	if !g.seen {
		text = fmt.Sprintf("%s did not report the goal within %s", c.ns, c.grace)
	}
	c.lose(g, now, text)
}

func (c *actionClient) lose(g *goal, now time.Time, text string) {
	g.state, g.lostAt, g.text = actuators.GoalLost, now, text
	c.notify(actuators.GoalUpdate{Actuator: c.name, GoalID: g.id, State: actuators.GoalLost, Progress: g.progress, Text: text})
}

// onResult handles a result message (status plus the kind's result shape).
func (c *actionClient) onResult(st actionlib_msgs.GoalStatus, result any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	g := c.goals[st.GoalId.Id]
	if g == nil || g.final || g.phase == phaseDispatching {
		return
	}
	name := goalState(st.Status)
	if !name.Terminal() {
		return // a result always carries a final state; ignore a broken one
	}
	c.finalize(g, name, st.Text, result)
}

// finalize reports a goal's final state once. An aborted arm goal first
// gets its hold goal on the wire: joint_trajectory_controller keeps
// executing the trajectory after an abort. The hold is written under mu so
// the update that reports it cannot be overtaken; it is one channel handoff.
func (c *actionClient) finalize(g *goal, state actuators.GoalState, text string, result any) {
	g.final, g.finalAt, g.state = true, c.now(), state
	if state == actuators.GoalSucceeded {
		g.progress = 1
	}
	if state == actuators.GoalAborted && c.holdGoal != nil && g.phase == phaseSent {
		text = withNote(text, c.hold(g.id))
	}
	g.result, g.text = result, text
	c.notify(actuators.GoalUpdate{Actuator: c.name, GoalID: g.id, State: state, Progress: g.progress, Result: result, Text: text})
}

// hold sends the hold goal for an aborted goal and says what it did. It is
// skipped when the server runs another goal, which the hold would preempt.
func (c *actionClient) hold(id string) string {
	for _, st := range c.lastList {
		switch st.Status {
		case actionlib_msgs.GoalStatus_PENDING, actionlib_msgs.GoalStatus_ACTIVE:
			if st.GoalId.Id != id {
				return fmt.Sprintf("hold goal not sent: goal %q is running on %s and would be preempted", st.GoalId.Id, c.ns)
			}
		}
	}
	w := c.currentWire()
	if w == nil {
		return "hold goal NOT sent: no ROS link"
	}
	hid := id + "/hold"
	w.writeGoal(c.holdGoal(actionlib_msgs.GoalID{Id: hid, Stamp: time.Now()}))
	c.wired("goal", hid)
	return fmt.Sprintf("hold goal %q sent to stop the arm where it is", hid)
}

func withNote(text, note string) string {
	if text == "" {
		return note
	}
	return text + "; " + note
}

// onFeedback turns feedback into progress updates for active goals.
func (c *actionClient) onFeedback(st actionlib_msgs.GoalStatus, feedback any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	g := c.goals[st.GoalId.Id]
	if g == nil || g.final || g.progressOf == nil || g.state != actuators.GoalActive {
		return
	}
	p, ok := g.progressOf(feedback)
	if !ok {
		return
	}
	p = math.Floor(math.Max(0, math.Min(1, p))/progressStep) * progressStep
	if p <= g.progress {
		return
	}
	g.progress = p
	c.notify(actuators.GoalUpdate{Actuator: c.name, GoalID: g.id, State: g.state, Progress: p})
}

// tick runs the timers: results that never came, servers gone silent,
// cancels to resend, and forgetting old goals.
func (c *actionClient) tick() {
	now := c.now()
	var resend []string
	c.mu.Lock()
	for id, g := range c.goals {
		if g.final {
			if now.Sub(g.finalAt) > keepFinal {
				delete(c.goals, id)
			}
			continue
		}
		if g.phase != phaseSent {
			continue
		}
		if g.state == actuators.GoalLost && now.Sub(g.lostAt) > keepFinal {
			delete(c.goals, id)
			continue
		}
		if g.pendingState != "" && now.Sub(g.pendingAt) >= resultWait {
			c.finalize(g, g.pendingState, withNote(g.pendingText, "no result message received"), nil)
			continue
		}
		ref := g.since
		if g.lastSeen.After(ref) {
			ref = g.lastSeen
		}
		if g.state != actuators.GoalLost && now.Sub(ref) >= c.silence && (c.lastStatus.IsZero() || now.Sub(c.lastStatus) >= c.silence) {
			c.lose(g, now, fmt.Sprintf("no status from %s for %s", c.ns, c.silence))
		}
		if g.cancelWanted && g.state != actuators.GoalCanceling &&
			g.cancelSends < maxCancelSends && now.Sub(g.lastCancel) >= cancelRetry {
			g.cancelSends++
			g.lastCancel = now
			resend = append(resend, id)
		}
	}
	c.mu.Unlock()
	if w := c.currentWire(); w != nil {
		for _, id := range resend {
			w.writeCancel(actionlib_msgs.GoalID{Id: id})
			c.wired("cancel", id)
		}
	}
}
