// Package actuatorsfake is an in-memory robot for the tests of the
// packages above the contract (bridge, console, metrics, cmd). It records
// everything that reaches it, so a test can prove what was sent, and it
// passes the contract's conformance suite (actuatorstest), so it cannot
// drift from the real transports.
//
// By default it reports no goal updates of its own: a test says what the
// robot answers with Emit. Options.Run makes it run every goal to its end
// by itself, as the conformance suite needs.
package actuatorsfake

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/actbridge/actbridge/actuators"
)

// Options shape a fake robot.
type Options struct {
	// Actuators are the configured actuators, in order; nil means an arm,
	// a gripper and a base named after their kinds.
	Actuators []actuators.ActuatorStatus
	// Joints are the joints read back, in order, at position 0 unless
	// Positions says otherwise; nil means j1, j2 and finger (at 0.02).
	Joints    []string
	Positions map[string]float64
	// Run, when positive, makes every goal go pending, active and, Run
	// later, succeeded; cancels and StopAll end it canceled. Zero: goals
	// stay where Emit puts them.
	Run time.Duration
	// Hold names actuators whose sends never reach the wire: they wait
	// until their ctx ends (ErrNotConnected) or a cancel or StopAll comes
	// (ErrCanceledBeforeSend), as a send waiting for its server does.
	Hold []string
}

// Robot is the fake. Its zero value is not usable; call New.
type Robot struct {
	opts Options

	mu         sync.Mutex
	statuses   []actuators.ActuatorStatus
	joints     map[string]float64
	pose       actuators.Pose2D
	wire       []string       // goal ids as they reached the robot
	sent       []Sent         // the same, with actuator and goal
	attempts   map[string]int // Send calls per goal id
	known      map[string]*goal
	cancels    []string
	stops      int
	tracked    []string
	freshReads int
	freshWaits int
	// The joint_states topic the fake plays: published every fakePeriod
	// (its cadence), the newest sample age old; silent publishes none.
	cadence    actuators.Cadence
	age        time.Duration
	silent     bool
	sendDelay  time.Duration
	sendErr    error // returned by a send after its goal is on the wire
	onSend     func(goalID string)
	observer   func(actuators.GoalUpdate)
	stopAllGen chan struct{} // closed by StopAll: held sends give up

	queue  []actuators.GoalUpdate // updates waiting for delivery
	closed bool

	// deliverMu keeps deliveries in order: held while the queue is taken
	// and handed to the observer, never with mu.
	deliverMu sync.Mutex
}

type goal struct {
	actuator string
	state    actuators.GoalState
	timer    *time.Timer
	cancel   chan struct{} // closed by Cancel while a held send waits
}

// New makes a fake robot. Close it when Run is set: its goals end on
// timers.
func New(o Options) *Robot {
	if o.Actuators == nil {
		o.Actuators = []actuators.ActuatorStatus{{Name: "arm", Kind: actuators.KindArm}, {Name: "gripper", Kind: actuators.KindGripper}, {Name: "base", Kind: actuators.KindBase}}
	}
	if o.Joints == nil {
		o.Joints = []string{"j1", "j2", "finger"}
		if o.Positions == nil {
			o.Positions = map[string]float64{"finger": 0.02}
		}
	}
	r := &Robot{opts: o, joints: map[string]float64{}, pose: actuators.Pose2D{Frame: "odom"},
		attempts: map[string]int{}, known: map[string]*goal{}, stopAllGen: make(chan struct{})}
	for _, a := range o.Actuators {
		a.Connected = true
		r.statuses = append(r.statuses, a)
	}
	for _, j := range o.Joints {
		r.joints[j] = o.Positions[j]
	}
	t0 := time.Now().Add(-time.Second)
	for i := range 17 {
		r.cadence.Observe(t0.Add(time.Duration(i) * fakePeriod))
	}
	return r
}

// fakePeriod is the period of the fake's joint_states topic.
const fakePeriod = 10 * time.Millisecond

// Close stops the goal timers; no update comes after it returns.
func (r *Robot) Close() error {
	r.mu.Lock()
	r.closed = true
	for _, g := range r.known {
		if g.timer != nil {
			g.timer.Stop()
		}
	}
	r.queue = nil
	r.mu.Unlock()
	return nil
}

// Actuators reports the configured actuators and their connectivity.
func (r *Robot) Actuators() []actuators.ActuatorStatus {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]actuators.ActuatorStatus(nil), r.statuses...)
}

// Joints returns the joints' positions as set, received age ago (now
// unless SetJointsAge said otherwise).
func (r *Robot) Joints() actuators.JointsSnapshot {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.jointsLocked()
}

func (r *Robot) jointsLocked() actuators.JointsSnapshot {
	js := make([]actuators.JointReading, 0, len(r.opts.Joints))
	for _, n := range r.opts.Joints {
		js = append(js, actuators.JointReading{Name: n, Position: r.joints[n]})
	}
	return actuators.JointsSnapshot{Joints: js, Received: time.Now().Add(-r.age)}
}

// FreshJoints applies the freshness rule (actuators.Cadence, the fake's
// topic at 100 Hz) and counts calls (FreshReads) and waits (FreshWaits):
// a sample older than the bound is waited for, and a new one arrives
// unless the topic is silent (then the snapshot is Stale).
func (r *Robot) FreshJoints(context.Context) actuators.JointsSnapshot {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.freshReads++
	now := time.Now()
	if r.cadence.Current(now.Add(-r.age), now) {
		return r.jointsLocked()
	}
	r.freshWaits++
	if r.silent {
		s := r.jointsLocked()
		s.Stale = true
		return s
	}
	r.age = 0 // the sample waited for
	return r.jointsLocked()
}

// Odom returns the pose as set (odom frame at the origin at first) for
// any base.
func (r *Robot) Odom(base string) (actuators.Pose2D, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	a, ok := r.status(base)
	if !ok || a.Kind != actuators.KindBase {
		return actuators.Pose2D{}, false
	}
	return r.pose, true
}

// Connected is always true: the fake's graph is always reachable.
func (r *Robot) Connected() bool { return true }

func (r *Robot) status(name string) (actuators.ActuatorStatus, bool) {
	for _, a := range r.statuses {
		if a.Name == name {
			return a, true
		}
	}
	return actuators.ActuatorStatus{}, false
}

// Send records the goal on the wire once, as the contract says.
func (r *Robot) Send(ctx context.Context, actuator, goalID string, g actuators.Goal) error {
	r.mu.Lock()
	r.attempts[goalID]++
	delay, onSend := r.sendDelay, r.onSend
	a, ok := r.status(actuator)
	var err error
	switch {
	case !ok:
		err = fmt.Errorf("%w: %q", actuators.ErrUnknownActuator, actuator)
	case g == nil || g.Kind() != a.Kind:
		err = fmt.Errorf("%w: %s is a %s; it takes no %T goal", actuators.ErrInvalidArgument, actuator, a.Kind, g)
	case goalID == "":
		err = fmt.Errorf("%w: empty goal id", actuators.ErrInvalidArgument)
	case r.known[goalID] != nil:
		err = fmt.Errorf("%w: %s goal %q", actuators.ErrDuplicateGoal, actuator, goalID)
	}
	if err != nil {
		r.mu.Unlock()
		return err
	}
	gl := &goal{actuator: actuator, cancel: make(chan struct{})}
	r.known[goalID] = gl // claimed: a concurrent Send of the same id is a duplicate
	stopAll := r.stopAllGen
	r.mu.Unlock()

	if err := r.wait(ctx, actuator, goalID, gl, stopAll, delay); err != nil {
		return err
	}
	r.mu.Lock()
	if !r.connected(actuator) {
		delete(r.known, goalID) // nothing went out: the id may be sent later
		r.mu.Unlock()
		return fmt.Errorf("%w: %s: no subscriber on goal topic", actuators.ErrNotConnected, actuator)
	}
	for _, st := range r.statuses {
		if st.Name == actuator && st.Ambiguous != "" {
			delete(r.known, goalID)
			r.mu.Unlock()
			return fmt.Errorf("%w: %s: %s", actuators.ErrAmbiguousServer, actuator, st.Ambiguous)
		}
	}
	r.wire = append(r.wire, goalID)
	r.sent = append(r.sent, Sent{Actuator: actuator, GoalID: goalID, Goal: g})
	sendErr := r.sendErr
	r.mu.Unlock()
	if onSend != nil {
		onSend(goalID)
	}
	if sendErr != nil {
		return fmt.Errorf("%s goal %q: %w", actuator, goalID, sendErr)
	}
	if r.opts.Run > 0 {
		r.run(goalID, gl)
	}
	return nil
}

// wait is the time before a goal reaches the wire: the send delay, or
// forever for a held actuator, ending early on ctx, Cancel or StopAll.
func (r *Robot) wait(ctx context.Context, actuator, goalID string, gl *goal, stopAll chan struct{}, delay time.Duration) error {
	held := false
	for _, h := range r.opts.Hold {
		held = held || h == actuator
	}
	var timeout <-chan time.Time
	if !held {
		if delay <= 0 {
			return r.unless(ctx, actuator, goalID)
		}
		t := time.NewTimer(delay)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case <-timeout:
		return r.unless(ctx, actuator, goalID)
	case <-ctx.Done():
		r.forget(goalID)
		return fmt.Errorf("%w: %s: %v", actuators.ErrNotConnected, actuator, ctx.Err())
	case <-gl.cancel:
	case <-stopAll:
	}
	r.mu.Lock()
	gl.state = actuators.GoalRecalled
	r.push(actuators.GoalUpdate{Actuator: actuator, GoalID: goalID, State: actuators.GoalRecalled, Text: "canceled before it was sent"})
	r.mu.Unlock()
	r.flush()
	return fmt.Errorf("%w: %s goal %q", actuators.ErrCanceledBeforeSend, actuator, goalID)
}

// unless fails a send whose ctx ended before the goal went out, as the
// real sends do.
func (r *Robot) unless(ctx context.Context, actuator, goalID string) error {
	if err := ctx.Err(); err != nil {
		r.forget(goalID)
		return err
	}
	return nil
}

func (r *Robot) forget(goalID string) {
	r.mu.Lock()
	delete(r.known, goalID)
	r.mu.Unlock()
}

func (r *Robot) connected(actuator string) bool {
	a, _ := r.status(actuator)
	return a.Connected
}

// run takes a goal through pending and active, and ends it Run later.
func (r *Robot) run(goalID string, gl *goal) {
	defer r.flush()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed || gl.state.Terminal() {
		return
	}
	r.setState(goalID, gl, actuators.GoalPending, "")
	r.setState(goalID, gl, actuators.GoalActive, "")
	gl.timer = time.AfterFunc(r.opts.Run, func() {
		defer r.flush()
		r.mu.Lock()
		defer r.mu.Unlock()
		if !r.closed && !gl.state.Terminal() {
			r.setState(goalID, gl, actuators.GoalSucceeded, "")
		}
	})
}

// setState records and reports a state; r.mu is held.
func (r *Robot) setState(goalID string, gl *goal, s actuators.GoalState, text string) {
	gl.state = s
	u := actuators.GoalUpdate{Actuator: gl.actuator, GoalID: goalID, State: s, Text: text}
	if s == actuators.GoalSucceeded {
		u.Progress = 1
	}
	r.push(u)
}

// endRunning cancels a goal on the wire that has not ended; r.mu is held.
func (r *Robot) endRunning(goalID string, gl *goal, why string) {
	if r.opts.Run <= 0 || gl.state.Terminal() || gl.state == "" {
		return
	}
	if gl.timer != nil {
		gl.timer.Stop()
	}
	r.setState(goalID, gl, actuators.GoalCanceling, why)
	r.setState(goalID, gl, actuators.GoalCanceled, why)
}

// Cancel records the cancel; a held send gives up, a running goal ends
// canceled (with Run).
func (r *Robot) Cancel(_ context.Context, actuator, goalID string) error {
	defer r.flush()
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.status(actuator); !ok {
		return fmt.Errorf("%w: %q", actuators.ErrUnknownActuator, actuator)
	}
	r.cancels = append(r.cancels, goalID)
	if gl := r.known[goalID]; gl != nil && gl.actuator == actuator {
		select {
		case <-gl.cancel:
		default:
			close(gl.cancel)
		}
		r.endRunning(goalID, gl, "canceled")
	}
	return nil
}

// StopAll counts the stop, ends every running goal and every held send.
// It fails only when its caller already gave up, like a real one.
func (r *Robot) StopAll(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	defer r.flush()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stops++
	close(r.stopAllGen)
	r.stopAllGen = make(chan struct{})
	for id, gl := range r.known {
		r.endRunning(id, gl, "stopped")
	}
	return nil
}

// Track records the goal; with Run, a goal the robot never had is lost.
func (r *Robot) Track(actuator, goalID string) {
	defer r.flush()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.tracked = append(r.tracked, goalID)
	if r.opts.Run > 0 && r.known[goalID] == nil {
		r.push(actuators.GoalUpdate{Actuator: actuator, GoalID: goalID, State: actuators.GoalLost, Text: "the robot does not know the goal"})
	}
}

// SetObserver installs the receiver of updates.
func (r *Robot) SetObserver(f func(actuators.GoalUpdate)) {
	r.mu.Lock()
	r.observer = f
	r.mu.Unlock()
}

// push queues an update; r.mu is held. The method that pushed flushes
// once it has let go of r.mu.
func (r *Robot) push(u actuators.GoalUpdate) {
	if r.observer != nil && !r.closed {
		r.queue = append(r.queue, u)
	}
}

// flush hands queued updates to the observer in order, outside r.mu.
func (r *Robot) flush() {
	r.deliverMu.Lock()
	defer r.deliverMu.Unlock()
	r.mu.Lock()
	batch, obs := r.queue, r.observer
	r.queue = nil
	r.mu.Unlock()
	for _, u := range batch {
		obs(u)
	}
}

// Emit hands u to the observer at once, in the caller's goroutine: the
// test plays the robot's answer and sees its effect when Emit returns.
func (r *Robot) Emit(u actuators.GoalUpdate) {
	r.deliverMu.Lock()
	defer r.deliverMu.Unlock()
	r.mu.Lock()
	obs := r.observer
	r.mu.Unlock()
	if obs != nil {
		obs(u)
	}
}
