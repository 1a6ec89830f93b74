package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/inflight"
)

// MotionStore is the part of the in-flight store the motion tools use.
type MotionStore interface {
	PutPreview(ctx context.Context, p inflight.Preview) error
	GetPreview(id string) (inflight.Preview, error)
	ConfirmPreview(ctx context.Context, p inflight.Preview, m inflight.Motion) (inflight.Motion, bool, error)
	Transition(ctx context.Context, id string, to inflight.State, mutate func(*inflight.Motion)) (inflight.Motion, error)
	Get(id string) (inflight.Motion, error)
	NonTerminal() ([]inflight.Motion, error)
	List(f inflight.Filter, cursor string, limit int) ([]inflight.Motion, int, string, error)
	Healthy() error
}

// Motions owns the life of every motion after its preview: confirmation,
// dispatch (durable record first, then the goal), tracking from goal
// updates, status, cancel. Previews are built by the actuator tools.
type Motions struct {
	Robot  actuators.Robot
	Store  MotionStore
	Signer PreviewSigner
	Now    func() time.Time
	// Confirmer says, per actuator, who may confirm: planner or operator.
	Confirmer func(actuator string) Role
	// ConsoleURL is where an operator approves previews (for hints).
	ConsoleURL string
	// StaleAfter is the oldest joint state a confirm acts on
	// (freshJoints); StartTolerance is how far (rad or m) a joint, and
	// PoseTolerance how far a base (m, rad), may drift between preview
	// and confirm before the preview is stale (restate.go).
	StaleAfter     time.Duration
	StartTolerance float64
	PoseTolerance  float64
	// Bases are the base models the previews used (the Previewer's): a
	// base fenced outside its odometry's frame has its odom→fence link
	// read again at confirm (restate.go).
	Bases []*BaseModel
	// Arms are the arm models the previews used: a pose given in a frame
	// TF places has that frame read again at confirm (restate.go).
	Arms []*ArmModel
	// EStop reports whether the e-stop is latched, and which event.
	EStop func() (latched bool, event uint64, reason string)
	// Changed is called after every motion state change (events, metrics).
	Changed func(m inflight.Motion)
	// Approvals, when set, refuses previews an operator denied and may ask
	// the MCP client's user to approve operator-policy previews (elicit.go).
	Approvals *Approvals
	// Lifetime bounds every drive (the bridge's run context); nil means
	// background.
	Lifetime context.Context
	// ROS runs confirmed service_call previews (servicecall.go); nil refuses them.
	ROS ROSAccess
	// Description holds motions while the robot publishes a URDF other
	// than the one the limits came from; nil holds nothing.
	Description *DescriptionGuard

	mu     sync.Mutex
	drives map[string][]string // MCP session → drive motion ids (deadman)
	// sessions holds a context per MCP session that lives until the session
	// ends: drives run under it, so a lost planner stops the base.
	sessions map[string]context.CancelFunc
	sessCtx  map[string]context.Context
	// ended remembers sessions that ended (for endedMemory), so a confirm
	// racing its session's end gets a context that is already over.
	ended   map[string]time.Time
	active  map[string]string // actuator → non-terminal motion id
	waiters map[string][]chan struct{}
	// dispatching holds the motions between their last e-stop check and
	// the return of their send (a robot_stop that latches meanwhile ends
	// their send's context and marks them: its StopAll may have run before
	// the transport knew the goal).
	dispatching map[string]*dispatch
	// driveStops ends a drive's send context when its motion ends.
	driveStops map[string]context.CancelFunc
	// committed holds the motions this process committed whose dispatch
	// has not begun: only these can still be stopped before their send.
	committed map[string]bool
	// cancelEarly holds motions motion_cancel asked for after their record
	// was committed but before their dispatch began: the send never starts.
	cancelEarly map[string]bool
	// unknownHeld holds motions that are unknown but may still run (a send
	// that may have left, a motion unknown before a restart): each keeps
	// its actuator busy until it ends, the transport reports it lost, or
	// the actuator's server is gone.
	unknownHeld map[string]bool
}

// dispatch is one send between its e-stop check and its return.
type dispatch struct {
	stopped  bool               // a robot_stop latched during the send
	canceled bool               // motion_cancel asked for the motion during the send
	cancel   context.CancelFunc // ends the send's context
	// service: a service call, whose request may be out as soon as it is
	// dispatching and which no cancel reaches; motion_cancel leaves it be
	// (only robot_stop ends its wait).
	service bool
}

// Start re-attaches to every motion a previous run left non-terminal and
// begins receiving goal updates. A dispatching record whose goal may or may
// not have been published is tracked like a sent one: if the server never
// reports it, it becomes unknown; it is never resent.
func (m *Motions) Start() error {
	m.mu.Lock()
	m.active = map[string]string{}
	m.drives = map[string][]string{}
	m.sessions = map[string]context.CancelFunc{}
	m.sessCtx = map[string]context.Context{}
	m.ended = map[string]time.Time{}
	m.waiters = map[string][]chan struct{}{}
	m.dispatching = map[string]*dispatch{}
	m.driveStops = map[string]context.CancelFunc{}
	m.cancelEarly = map[string]bool{}
	m.committed = map[string]bool{}
	m.unknownHeld = map[string]bool{}
	m.mu.Unlock()
	m.Robot.SetObserver(m.onUpdate)
	open, err := m.Store.NonTerminal()
	if err != nil {
		return fmt.Errorf("reading in-flight motions: %w", err)
	}
	for _, mo := range open {
		if mo.State == inflight.StateConfirmed {
			continue
		}
		if mo.Tool != "base_drive" || mo.State != inflight.StateUnknown {
			// An unknown motion may still run: it holds its actuator until
			// the robot reports its end or that it lost it (Track), or the
			// actuator's server is gone.
			m.hold(mo.Actuator, mo.ID, mo.State == inflight.StateUnknown)
		}
		if mo.Tool == "base_drive" {
			// A drive is a stream of twists owned by the process that died;
			// the base stopped on its command timeout.
			m.transition(context.Background(), mo.ID, inflight.StateUnknown, "bridge restarted during a drive; the base's command timeout stopped it")
			continue
		}
		m.Robot.Track(mo.Actuator, mo.ID)
	}
	return nil
}

// hold makes id the motion that holds actuator busy; unknown says it is
// an unknown motion that may still run (unknownHeld).
func (m *Motions) hold(actuator, id string, unknown bool) {
	m.mu.Lock()
	m.active[actuator] = id
	if unknown {
		m.unknownHeld[id] = true
	}
	m.mu.Unlock()
}

// heldUnknown reports whether id holds its actuator as an unknown motion.
func (m *Motions) heldUnknown(id string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.unknownHeld[id]
}

// releaseUnknown frees the actuator an unknown motion held, once the
// robot says it no longer holds the goal.
func (m *Motions) releaseUnknown(actuator, id string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.unknownHeld[id] {
		return
	}
	delete(m.unknownHeld, id)
	if m.active[actuator] == id {
		delete(m.active, actuator)
	}
}

// ActiveOn returns the non-terminal motion on an actuator, if any.
// An unknown motion stops holding it once the actuator's server is gone:
// whatever ran there is no longer running.
func (m *Motions) ActiveOn(actuator string) (string, bool) {
	m.mu.Lock()
	id, ok := m.active[actuator]
	unknown := ok && m.unknownHeld[id]
	m.mu.Unlock()
	if unknown && !m.serverPresent(actuator) {
		m.releaseUnknown(actuator, id)
		return "", false
	}
	return id, ok
}

// serverPresent reports whether the transport sees actuator's server
// (asked outside m.mu: the transport takes its own locks).
func (m *Motions) serverPresent(actuator string) bool {
	for _, a := range m.Robot.Actuators() {
		if a.Name == actuator {
			return a.Connected
		}
	}
	return false
}

// Goal states → motion states. GoalCanceling is missing: a cancel in
// progress leaves the motion where it is (onUpdate).
var updateStates = map[actuators.GoalState]inflight.State{
	actuators.GoalPending:   inflight.StateSent,
	actuators.GoalActive:    inflight.StateActive,
	actuators.GoalSucceeded: inflight.StateSucceeded,
	actuators.GoalAborted:   inflight.StateAborted,
	actuators.GoalCanceled:  inflight.StatePreempted,
	actuators.GoalRejected:  inflight.StateRejected,
	actuators.GoalRecalled:  inflight.StateRecalled,
	actuators.GoalLost:      inflight.StateUnknown,
}

func (m *Motions) onUpdate(u actuators.GoalUpdate) {
	to, ok := updateStates[u.State]
	if !ok && u.State != actuators.GoalCanceling {
		return
	}
	cur, err := m.Store.Get(u.GoalID)
	if err != nil {
		return // not ours (a hold goal, another client's goal)
	}
	if u.State == actuators.GoalLost {
		// The robot no longer holds it: an unknown motion frees its actuator.
		defer m.releaseUnknown(cur.Actuator, u.GoalID)
	}
	if u.State == actuators.GoalCanceling {
		// Being canceled: still running if it ran, else still only sent.
		to = inflight.StateSent
		if cur.State == inflight.StateActive {
			to = inflight.StateActive
		}
	}
	if cur.State == inflight.StateDispatching && to != inflight.StateSent && to != inflight.StateUnknown {
		// The robot answered before confirm recorded "sent": the goal is out.
		if mo, err := m.transitionWith(context.Background(), u.GoalID, inflight.StateSent, "goal seen by the robot", nil); err == nil {
			cur = mo
		}
	}
	if cur.State == to && u.Progress <= cur.Progress && u.Result == nil {
		return
	}
	if cur.State == to || !inflight.CanTransition(cur.State, to) {
		if cur.State == to && !inflight.IsTerminal(to) && u.Progress > cur.Progress {
			// progress only
			m.transitionWith(context.Background(), u.GoalID, to, "", func(mo *inflight.Motion) { mo.Progress = u.Progress })
		}
		return
	}
	m.transitionWith(context.Background(), u.GoalID, to, u.Text, func(mo *inflight.Motion) {
		if u.Progress > mo.Progress {
			mo.Progress = u.Progress
		}
		if to == inflight.StateSucceeded {
			mo.Progress, mo.ErrorText = 1, ""
		}
		if u.Result != nil {
			if b, err := json.Marshal(u.Result); err == nil {
				mo.Result = b
			}
		}
		// Only a failure's text is an error; "driving …" on the way is a note.
		if inflight.IsTerminal(to) && to != inflight.StateSucceeded && u.Text != "" {
			mo.ErrorText = u.Text
		}
	})
}

func (m *Motions) transition(ctx context.Context, id string, to inflight.State, note string) {
	m.transitionWith(ctx, id, to, note, nil)
}

func (m *Motions) transitionWith(ctx context.Context, id string, to inflight.State, note string, mutate func(*inflight.Motion)) (inflight.Motion, error) {
	mo, err := m.Store.Transition(ctx, id, to, func(mo *inflight.Motion) {
		mo.Note = note
		if mutate != nil {
			mutate(mo)
		}
	})
	if err != nil {
		return mo, err
	}
	m.mu.Lock()
	if inflight.IsTerminal(mo.State) {
		delete(m.unknownHeld, id)
	}
	if inflight.IsTerminal(mo.State) || (mo.State == inflight.StateUnknown && !m.unknownHeld[id]) {
		if m.active[mo.Actuator] == id {
			delete(m.active, mo.Actuator)
		}
		if stop := m.driveStops[id]; stop != nil {
			stop()
			delete(m.driveStops, id)
		}
	}
	ws := m.waiters[id]
	delete(m.waiters, id)
	m.mu.Unlock()
	for _, w := range ws {
		close(w)
	}
	if m.Changed != nil {
		m.Changed(mo)
	}
	return mo, nil
}

// watch returns a channel closed at motion id's next change, and unwatch,
// which forgets the channel if that change has not come. watch before
// reading the motion: a change between the read and a later watch would
// be missed, and a wait for it would last its whole timeout.
func (m *Motions) watch(id string) (changed <-chan struct{}, unwatch func()) {
	ch := make(chan struct{})
	m.mu.Lock()
	if m.waiters == nil { // Start never ran: the store failed to open
		m.waiters = map[string][]chan struct{}{}
	}
	m.waiters[id] = append(m.waiters[id], ch)
	m.mu.Unlock()
	return ch, func() {
		m.mu.Lock()
		defer m.mu.Unlock()
		ws := m.waiters[id]
		if i := slices.Index(ws, ch); i >= 0 {
			ws = slices.Delete(ws, i, i+1)
			if len(ws) == 0 {
				delete(m.waiters, id)
			} else {
				m.waiters[id] = ws
			}
		}
	}
}

// await blocks until ch (from watch) closes or d passes or ctx ends.
func await(ctx context.Context, ch <-chan struct{}, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
	case <-t.C:
	case <-ctx.Done():
	}
}

// storeUnavailable maps a store failure to the refusal irreversible calls get.
func storeUnavailable(err error) *Error {
	return StateError(CodeUnavailable, "motion store unavailable: "+err.Error(),
		"when the store is writable again (disk space, permissions, lock); reads keep working",
		"irreversible actions are refused while motions cannot be recorded durably")
}

// confirm is motion_confirm: it runs exactly the previewed goal. It checks
// the signed id, the policy, the e-stop, the actuator, the robot's state
// against the preview, then commits the motion record durably and only
// then publishes the goal. A confirm of a preview that already ran returns
// that motion unchanged (res.Replay). It fills res as it learns the motion,
// so a refusal names the motion and the preview's tool too.
func (m *Motions) confirm(ctx context.Context, c *Call, b boundPreviewID, res *Result) (map[string]any, error) {
	previewID, pid, perr := b.raw, b.id, b.err
	if perr != nil {
		return nil, perr
	}
	pv, err := m.Store.GetPreview(pid.UUID)
	if err != nil {
		if errors.Is(err, inflight.ErrNotFound) {
			e := RuleError(CodeInvalidArgument, "preview_id_authentic", "preview_id", "no preview with this id: it was never issued here, or was compacted away")
			e.Expected, e.Actual = "a preview_id returned by a preview tool", quote(previewID)
			return nil, e.WithHint("call the motion tool again to get a fresh preview")
		}
		return nil, storeUnavailable(err)
	}
	if verr := m.Signer.Verify(pid, previewBinding{Actuator: pv.Actuator, Tool: pv.Tool, ArgsDigest: pv.ArgsDigest, StateDigest: pv.StateDigest}); verr != nil {
		return nil, verr
	}
	motionID := inflight.MotionID(pv.Tool, pv.Args, pv.ID)
	res.MotionID, res.PreviewOf = motionID, pv.Tool
	if pv.UsedBy != "" {
		res.Replay = true
		return m.replay(pv.UsedBy)
	}
	if e := m.Approvals.refusal(pv); e != nil {
		return nil, e
	}
	if !m.Now().Before(pv.ExpiresAt) {
		e := RuleError(CodePreviewExpired, "preview_fresh", "preview_id",
			fmt.Sprintf("preview expired at %s; nothing was sent", pv.ExpiresAt.UTC().Format(time.RFC3339)))
		return nil, e.WithHint("call " + pv.Tool + " again for a new preview, then confirm it")
	}
	if e := m.authorize(ctx, c, pv, previewID, res); e != nil {
		return nil, e
	}
	if err := m.Store.Healthy(); err != nil {
		return nil, storeUnavailable(err)
	}
	if latched, ev, reason := m.EStop(); latched {
		return nil, StateError(CodeEstopLatched, fmt.Sprintf("e-stop latched (event %d: %s)", ev, reason),
			"an operator calls estop_reset for that event", "e-stop is latched; nothing was sent")
	}
	if pv.Tool == ServiceCallTool {
		return m.confirmServiceCall(ctx, c, pv, motionID, res)
	}
	if e := m.Description.Hold(); e != nil {
		return nil, e
	}
	if e := m.actuatorReady(pv.Actuator); e != nil {
		return nil, e
	}
	if e := m.free(pv.Actuator); e != nil {
		return nil, e
	}
	// Decoded once: the state check and the send read the same goal.
	g := new(previewGoal)
	why := "stored preview unreadable"
	if json.Unmarshal(pv.Goal, g) == nil {
		var e *Error
		if why, e = m.restate(ctx, pv.Actuator, g); e != nil {
			return nil, e // the robot's state is not known well enough to compare: the preview still stands
		}
	}
	if why != "" {
		e := StateError(CodeStalePreview, "robot moved since the preview: "+why,
			"preview again from the current state", "the preview no longer matches the robot; nothing was sent")
		return nil, e.WithHint("call " + pv.Tool + " again, show the new preview, and confirm that")
	}
	// From before the commit until beginDispatch, a motion_cancel that
	// reads the committed record stops the send (cancelUnsent).
	m.mu.Lock()
	m.committed[motionID] = true
	m.mu.Unlock()
	if sp, ok := m.Robot.(SendPreparer); ok {
		sp.PrepareSend(pv.Actuator) // its round trip overlaps the commit's fsync
	}
	if out, publish, err := m.commit(ctx, c, pv, motionID, res); !publish {
		m.mu.Lock()
		delete(m.committed, motionID)
		delete(m.cancelEarly, motionID)
		m.mu.Unlock()
		return out, err
	}
	// The record is durable: only now may the goal go out.
	crashpoint("after_commit")
	return m.dispatch(ctx, c, pv, motionID, g)
}

// authorize holds a confirm to its policy: who confirms the preview's
// actuator (or the operator, for a preview issued for one or a recovery),
// and, for the operator's, an approval the MCP client's user may give
// (elicit.go), which res records.
func (m *Motions) authorize(ctx context.Context, c *Call, pv inflight.Preview, previewID string, res *Result) *Error {
	who, what, where := m.Confirmer(pv.Actuator), pv.Actuator+" motions are", " at "+m.ConsoleURL
	if pv.Role == string(RoleOperator) && who != RoleOperator {
		// The preview asked for one (a recovery, or issued under operator
		// policy), whatever the policy says now.
		who, what = RoleOperator, "this preview was issued for an operator and is"
	}
	if who == RoleOperator && c.Role != RoleOperator {
		approved, denial, aerr := m.Approvals.approve(ctx, c, pv, previewID)
		res.Denial = denial
		if approved {
			res.Via = ViaElicitation // the operator confirmed, not the planner whose call carried it
		}
		if aerr != nil {
			return aerr
		} else if !approved {
			// Read only here: it decodes the preview's summary, which a
			// confirm that passes never needs.
			if isRecovery(pv) {
				// Never by elicitation (approve refuses it): only the console or the operator token.
				what, where = "a recovery from outside a limit is", " at "+m.ConsoleURL+" or confirm it with the operator token (MCP elicitation cannot approve a recovery)"
			}
			e := RuleError(CodePermissionDenied, "operator_confirms", "preview_id",
				"policy: "+what+" confirmed by an operator, not the planner; nothing was sent")
			return e.WithHint("ask the operator to approve preview " + previewID + where + "; then poll motion_status")
		}
	}
	return nil
}

// free refuses a confirm on an actuator that runs a motion, or is held by
// one that is unknown and may still run.
func (m *Motions) free(actuator string) *Error {
	if holder, busy := m.ActiveOn(actuator); busy {
		if m.heldUnknown(holder) {
			return StateError(CodeBusy, fmt.Sprintf("%s is held by motion %s, which is unknown and may still run", actuator, holder),
				"when the robot reports that goal ended or lost, or its server is gone (motion_cancel and robot_stop cancel it on the robot; the hold stays until the robot says so)", actuator+" is busy; nothing was sent")
		}
		return StateError(CodeBusy, fmt.Sprintf("%s is running motion %s", actuator, holder),
			"when that motion ends (poll motion_status) or after motion_cancel", actuator+" is busy; nothing was sent")
	}
	return nil
}

// dispatch sends a committed motion's goal, exactly as previewed, once,
// and records how it went: sent, unknown (it may have left), rejected
// (it never left: a stop or a cancel came first, or the send failed).
func (m *Motions) dispatch(ctx context.Context, c *Call, pv inflight.Preview, motionID string, g *previewGoal) (map[string]any, error) {
	// A drive outlives this call: it runs under the session's context and
	// stops when the session ends (the deadman). A robot_stop that latches
	// while the goal is being sent ends sctx, so the send gives up before
	// the wire if it still can.
	base := ctx
	_, drive := g.Goal.(actuators.Drive)
	if drive {
		base = m.sessionContext(c.Session)
	}
	sctx, stopSend := context.WithCancel(base)
	if canceled, e := m.beginDispatch(motionID, pv.Actuator, stopSend); e != nil || canceled {
		stopSend()
		if canceled {
			return m.endedBeforeSend(motionID, "not sent: motion_cancel arrived before the goal left")
		}
		m.transition(context.Background(), motionID, inflight.StateRejected, "not sent: the e-stop latched before the goal left")
		return nil, e.WithDetails(map[string]any{"motion_id": motionID, "state": "rejected"})
	}
	if pv.Tool == "base_drive" && c.Session != "" {
		m.mu.Lock()
		m.drives[c.Session] = append(m.drives[c.Session], motionID)
		m.mu.Unlock()
	}
	// A drive's sctx is its deadman: the session's context.
	var serr error
	if g.Goal == nil {
		serr = errors.New("stored goal is empty")
	} else {
		serr = m.Robot.Send(sctx, pv.Actuator, motionID, g.Goal)
	}
	d := m.endDispatch(motionID)
	stopped := d.stopped
	m.keepSendContext(motionID, drive && serr == nil, stopSend)
	note := "goal published"
	if errors.Is(serr, actuators.ErrMaybeSent) {
		// It may be on the wire: never "nothing was sent", whatever came
		// during the send. The motion is unknown and keeps its actuator
		// busy until the robot tells; a stop or cancel that came meanwhile
		// is sent after it.
		m.hold(pv.Actuator, motionID, true)
		why := "the goal may have left: " + serr.Error()
		if stopped || d.canceled {
			why += "; " + m.cancelAfterSend(ctx, pv.Actuator, motionID, stopped)
		}
		mo, err := m.transitionWith(context.Background(), motionID, inflight.StateUnknown, why, nil)
		if err != nil {
			m.releaseUnknown(pv.Actuator, motionID)
			return nil, storeUnavailable(err)
		}
		return motionResult(mo, false), nil
	}
	if d.canceled && !stopped && serr != nil {
		return m.endedBeforeSend(motionID, "not sent: motion_cancel arrived while it was being sent: "+serr.Error())
	}
	if stopped && serr != nil {
		m.transition(context.Background(), motionID, inflight.StateRejected, "not sent: robot_stop latched while it was being sent: "+serr.Error())
		latched, ev, reason := m.EStop()
		if !latched {
			reason = "reset since"
		}
		e := StateError(CodeEstopLatched, fmt.Sprintf("robot_stop latched while the goal was being sent (event %d: %s)", ev, reason),
			"an operator calls estop_reset for that event", "the goal was stopped before it left; nothing was sent")
		return nil, e.WithDetails(map[string]any{"motion_id": motionID, "state": "rejected"})
	}
	if (stopped || d.canceled) && serr == nil {
		// A robot_stop or motion_cancel came while this goal was being sent;
		// its cancel may have come before the transport knew the goal:
		// cancel it now.
		note = "goal published while " + m.cancelAfterSend(ctx, pv.Actuator, motionID, stopped)
	}
	if serr != nil {
		m.transition(context.Background(), motionID, inflight.StateRejected, "not sent: "+serr.Error())
		e := StateError(CodeUnavailable, "goal could not be sent: "+serr.Error(),
			"when the action server is connected again", "nothing was sent; the preview is used up")
		if errors.Is(serr, actuators.ErrAmbiguousServer) {
			e = ambiguousError(pv.Actuator, "goal not sent: "+serr.Error())
		}
		return nil, e.WithHint("read state, then preview again").WithDetails(map[string]any{"motion_id": motionID, "state": "rejected"})
	}
	crashpoint("after_publish")
	mo, err := m.transitionWith(context.Background(), motionID, inflight.StateSent, note, nil)
	if err != nil {
		// The goal is out; tracking continues from status updates.
		mo, _ = m.Store.Get(motionID)
	}
	return motionResult(mo, false), nil
}

// cancelAfterSend cancels a goal whose robot_stop (stopped) or
// motion_cancel came while it was being sent, and says what it did.
func (m *Motions) cancelAfterSend(ctx context.Context, actuator, id string, stopped bool) string {
	why := "robot_stop latched"
	if !stopped {
		why = "motion_cancel asked for it"
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := m.Robot.Cancel(cctx, actuator, id); err != nil {
		return why + "; its cancel failed: " + err.Error()
	}
	return why + "; cancel sent"
}

// beginDispatch is the e-stop check right before a send, atomic with
// LatchStop: a goal that passes it holds its actuator and is known to a
// robot_stop that latches later (which calls cancel); one that fails it
// is never sent.
// It reports canceled (and registers nothing) when motion_cancel asked
// for the motion after its commit.
func (m *Motions) beginDispatch(id, actuator string, cancel context.CancelFunc) (canceled bool, e *Error) {
	return m.beginDispatchOf(id, actuator, cancel, false)
}

// beginDispatchOf is beginDispatch, for a service call when service.
func (m *Motions) beginDispatchOf(id, actuator string, cancel context.CancelFunc, service bool) (canceled bool, e *Error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.committed, id)
	if m.cancelEarly[id] {
		delete(m.cancelEarly, id)
		return true, nil
	}
	if latched, ev, reason := m.EStop(); latched {
		return false, StateError(CodeEstopLatched, fmt.Sprintf("e-stop latched (event %d: %s)", ev, reason),
			"an operator calls estop_reset for that event", "e-stop latched while confirming; nothing was sent")
	}
	m.dispatching[id] = &dispatch{cancel: cancel, service: service}
	m.active[actuator] = id
	return false, nil
}

// endDispatch ends id's dispatch and reports what came during it.
func (m *Motions) endDispatch(id string) dispatch {
	m.mu.Lock()
	defer m.mu.Unlock()
	d := m.dispatching[id]
	delete(m.dispatching, id)
	if d == nil {
		return dispatch{}
	}
	return *d
}

// cancelUnsent honours motion_cancel for a motion whose goal has not left:
// a send in progress gives up before the wire if it still can (and is
// cancelled once out if not); a committed motion not yet dispatching is
// never sent. It reports whether the motion was one of those.
func (m *Motions) cancelUnsent(id string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if d := m.dispatching[id]; d != nil {
		if d.service {
			return false // its request may be out: not withdrawn, not cut short
		}
		d.canceled = true
		d.cancel()
		return true
	}
	if m.committed[id] {
		m.cancelEarly[id] = true
		return true
	}
	return false
}

// endedBeforeSend records a motion whose goal never left and answers the
// confirm with it.
func (m *Motions) endedBeforeSend(id, why string) (map[string]any, error) {
	m.transition(context.Background(), id, inflight.StateRejected, why)
	mo, err := m.Store.Get(id)
	if err != nil {
		return nil, storeUnavailable(err)
	}
	return motionResult(mo, false), nil
}

// keepSendContext ends a send's context now, or, for a drive that runs
// under it, when the drive's motion ends.
func (m *Motions) keepSendContext(id string, running bool, stop context.CancelFunc) {
	if !running {
		stop()
		return
	}
	m.mu.Lock()
	m.driveStops[id] = stop
	m.mu.Unlock()
	if mo, err := m.Store.Get(id); err == nil && (inflight.IsTerminal(mo.State) || mo.State == inflight.StateUnknown) {
		m.mu.Lock() // it ended before it was kept
		delete(m.driveStops, id)
		m.mu.Unlock()
		stop()
	}
}

// LatchStop latches the e-stop through latch, atomically with the check
// every send makes just before it leaves, and returns the event and the
// motions then in flight (sorted). A send already past its check is
// cancelled when it returns; every later one is refused.
func (m *Motions) LatchStop(latch func() uint64) (uint64, []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	ev := latch()
	for _, d := range m.dispatching {
		d.stopped = true
		d.cancel()
	}
	ids := make([]string, 0, len(m.active))
	for _, id := range m.active { // dispatching motions are active too
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ev, ids
}

func (m *Motions) replay(id string) (map[string]any, error) {
	mo, err := m.Store.Get(id)
	if err != nil {
		return nil, storeUnavailable(err)
	}
	return motionResult(mo, true), nil
}

func (m *Motions) actuatorReady(name string) *Error {
	if e := m.unambiguous(name); e != nil {
		return e
	}
	if !m.Robot.Connected() {
		return StateError(CodeUnavailable, "ROS master unreachable", "when the master answers again; the bridge re-registers within 5 s", "cannot reach the robot; nothing was sent")
	}
	for _, a := range m.Robot.Actuators() {
		if a.Name == name {
			if !a.Connected {
				return StateError(CodeUnavailable, name+" offline: "+a.Detail, "when its controller reports status again", name+" is offline; nothing was sent")
			}
			return nil
		}
	}
	return StateError(CodeUnavailable, name+" is not configured", "never: the robot config has no such actuator", "unknown actuator")
}

// unambiguous refuses actuator name while more than one server of its
// action or publisher of its state is found (ambiguous_server): at
// preview time and again at confirm.
func (m *Motions) unambiguous(name string) *Error {
	for _, a := range m.Robot.Actuators() {
		if a.Name == name && a.Ambiguous != "" {
			return ambiguousError(name, a.Ambiguous)
		}
	}
	return nil
}

// motionResult is the shape motion_confirm and motion_status return.
func motionResult(mo inflight.Motion, replay bool) map[string]any {
	out := map[string]any{
		"motion_id": mo.ID, "state": string(mo.State), "actuator": mo.Actuator, "tool": mo.Tool,
		"progress": mo.Progress, "terminal": inflight.IsTerminal(mo.State),
		"created_at": mo.CreatedAt.UTC().Format(time.RFC3339Nano), "updated_at": mo.UpdatedAt.UTC().Format(time.RFC3339Nano),
	}
	if replay {
		out["replay"] = true
		out["note"] = "this preview was already confirmed; this is that motion, not a new one"
	}
	if len(mo.Result) > 0 {
		out["result"] = mo.Result
	}
	if mo.ErrorText != "" {
		out["error"] = mo.ErrorText
	}
	if mo.Role != "" {
		out["confirmed_by"] = mo.Role
	}
	if mo.Via != "" {
		out["confirmed_via"] = mo.Via
	}
	if mo.State == inflight.StateUnknown {
		out["note"] = "the robot no longer reports this goal; read state (joints_read) and preview again; it is never resent automatically"
	}
	return out
}

// SessionEnded stops every drive the ended MCP session started: a planner
// that lost its connection must not leave the base driving.
func (m *Motions) SessionEnded(session string) {
	m.mu.Lock()
	ids := m.drives[session]
	delete(m.drives, session)
	if cancel, ok := m.sessions[session]; ok {
		cancel()
		delete(m.sessions, session)
		delete(m.sessCtx, session)
	}
	now := time.Now()
	for s, at := range m.ended {
		if now.Sub(at) > endedMemory {
			delete(m.ended, s)
		}
	}
	if session != "" {
		m.ended[session] = now
	}
	m.mu.Unlock()
	for _, id := range ids {
		if mo, err := m.Store.Get(id); err == nil && !inflight.IsTerminal(mo.State) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			_ = m.Robot.Cancel(ctx, mo.Actuator, id)
			cancel()
		}
	}
}

// endedMemory is how long an ended session is remembered: far longer than
// any call that was in flight when it ended.
const endedMemory = 10 * time.Minute

// sessionContext returns the context that lives as long as an MCP session
// (or, for callers without a session, as long as the bridge).
func (m *Motions) sessionContext(session string) context.Context {
	m.mu.Lock()
	defer m.mu.Unlock()
	if ctx, ok := m.sessCtx[session]; ok {
		return ctx
	}
	base := m.Lifetime
	if base == nil {
		base = context.Background()
	}
	ctx, cancel := context.WithCancel(base)
	if _, gone := m.ended[session]; gone {
		cancel() // the session ended while its confirm ran: no deadman left to stop a drive
		return ctx
	}
	m.sessCtx[session], m.sessions[session] = ctx, cancel
	return ctx
}

// SendPreparer is a transport whose Send first checks the wire (ROS 1
// asks its own node whether the goal topic has a subscriber) and can begin
// that check early: the confirm begins it before its commit, so the check
// overlaps the fsync instead of following it. Send still refuses to write
// unless the check, or one of its own, saw the wire ready.
type SendPreparer interface {
	PrepareSend(actuator string)
}

// commit is the write-ahead step every confirm goes through: it consumes the
// preview and records the motion durably in one transaction. publish is
// true only for the one caller that created the record; every other caller
// gets the existing motion (a replay) or the refusal, and must send nothing.
// confirmer is who confirmed c's motion and how: an elicited approval
// (res.Via) is the operator's, whoever made the call that carried it.
func confirmer(c *Call, res *Result) (Role, string) {
	switch {
	case res.Via == ViaElicitation:
		return RoleOperator, ViaElicitation
	case c.Via == "":
		return c.Role, ViaMCP
	}
	return c.Role, c.Via
}

func (m *Motions) commit(ctx context.Context, c *Call, pv inflight.Preview, motionID string, res *Result) (out map[string]any, publish bool, err error) {
	crashpoint("before_commit")
	by, via := confirmer(c, res)
	mo, created, cerr := m.Store.ConfirmPreview(ctx, pv, inflight.Motion{
		ID: motionID, Tool: pv.Tool, Actuator: pv.Actuator, ArgsDigest: pv.ArgsDigest, Role: string(by), Via: via,
	})
	switch {
	case errors.Is(cerr, inflight.ErrPreviewUsed), cerr == nil && !created:
		res.Replay = true
		out, err = m.replay(mo.ID)
		return out, false, err
	case errors.Is(cerr, inflight.ErrPreviewExpired):
		return nil, false, RuleError(CodePreviewExpired, "preview_fresh", "preview_id", "preview expired; nothing was sent")
	case cerr != nil:
		return nil, false, storeUnavailable(cerr)
	}
	return nil, true, nil
}
