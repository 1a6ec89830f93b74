package ros2

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/config"
	"github.com/actbridge/actbridge/ros2/node"
	"github.com/actbridge/actbridge/ros2/qos"
	"github.com/actbridge/actbridge/rtps"
)

// Velocity command types: diff_drive_controller reads TwistStamped on
// ~/cmd_vel (Jazzy and later only that; Humble when use_stamped_vel),
// and Twist on ~/cmd_vel_unstamped (Humble otherwise).
const (
	twistStampedType = "geometry_msgs/msg/TwistStamped"
	twistType        = "geometry_msgs/msg/Twist"
)

// Zero twists: how many end a drive or a StopAll, zeroGap apart, so one
// lost sample does not leave the base on its last command until the
// controller's cmd_vel_timeout.
const (
	zeroRepeats = 3
	zeroGap     = 50 * time.Millisecond
)

// drivesKept bounds how long a finished drive's id stays known here; the
// bridge's store is what guarantees an id is never reused.
const drivesKept = 10 * time.Minute

// Why a drive ended before its duration, as its ctx's cause.
var (
	errDriveCanceled = errors.New("canceled")
	errDriveStopAll  = errors.New("stopped by StopAll")
	// errDriveShutdown ends the drives of a robot that closes: Close stops
	// them first, and a drive still starting ends with its life.
	errDriveShutdown = errors.New("bridge shutting down")
)

// cmdVel is a base's driver: timed drives on its cmd_vel topic with a
// deadman. The twist is republished every period, stamped zero so that
// the robot's own clock applies (diff_drive_controller replaces a zero
// stamp by its now, then drops what is older than cmd_vel_timeout), and
// zeros go out whenever a drive ends, for any reason.
type cmdVel struct {
	name, topic    string
	stamped        bool
	period, max    time.Duration
	connectTimeout time.Duration
	pub            *node.Publisher
	notify         func(actuators.GoalUpdate)
	life           context.Context   // ends when the robot closes
	spawn          func(func()) bool // runs a goroutine Close waits for

	mu   sync.Mutex
	cur  *drive
	used map[string]time.Time // ids driven, for actuators.ErrDuplicateGoal
}

// drive is one drive. Its ctx ends on the deadman (the Send ctx), a
// stop (the cause says which) or Close. mu orders its twists against a
// stop: once stopped is set, no non-zero twist of it is written.
type drive struct {
	id   string
	goal actuators.Drive
	ctx  context.Context
	stop context.CancelCauseFunc

	mu      sync.Mutex
	stopped bool
}

// newDriver makes a's cmd_vel publisher: reliable, volatile, keep-last
// 10 (what diff_drive_controller's subscription asks), unless the
// config's qos.cmd_vel overrides it.
func (r *Robot) newDriver(a config.ActuatorConfig) (driver, error) {
	dv, err := newCmdVel(r.node, a, r.notify.Push, r.life, r.spawn)
	if err != nil {
		return nil, fmt.Errorf("ros2: %s: %w", a.Name, err)
	}
	return dv, nil
}

func newCmdVel(n *node.Node, a config.ActuatorConfig, notify func(actuators.GoalUpdate), life context.Context, spawn func(func()) bool) (*cmdVel, error) {
	typ := twistStampedType
	if !a.StampedCmdVel() {
		typ = twistType
	}
	if o, ok := a.QoS[config.QoSCmdVel]; ok {
		// A keep-all writer can block a zero behind a lagging reader, and a
		// transient-local one replays old twists to a late controller.
		if p, err := qos.Override(o).Apply(qos.Default); err == nil && (p.QoS.History == rtps.KeepAll || p.QoS.Durability == rtps.TransientLocal) {
			return nil, fmt.Errorf("%w: %s: qos.cmd_vel: a velocity command must be keep_last and volatile, got profile %q", config.ErrConfig, a.Name, o.Profile)
		}
	}
	pub, err := n.NewPublisher(a.CmdVelTopic, typ, qos.Default)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", a.CmdVelTopic, err)
	}
	return &cmdVel{
		name: a.Name, topic: a.CmdVelTopic, stamped: a.StampedCmdVel(),
		period:         time.Duration(float64(time.Second) / a.DriveRateHz),
		max:            a.MaxDriveDuration.D(),
		connectTimeout: a.GoalConnectTimeout.D(),
		pub:            pub, notify: notify, life: life, spawn: spawn,
		used: map[string]time.Time{},
	}, nil
}

// twist is a cmd_vel message: a TwistStamped whose header is zero (no
// stamp, no frame), or a Twist.
func (dv *cmdVel) twist(linear, angular float64) (*cdr.Message, error) {
	m := dv.pub.New()
	t := m
	if dv.stamped {
		t, _ = m.Get("twist").(*cdr.Message)
	}
	if t == nil {
		return nil, fmt.Errorf("%s has no twist", m.Type.Name())
	}
	lin, _ := t.Get("linear").(*cdr.Message)
	ang, _ := t.Get("angular").(*cdr.Message)
	if lin == nil || ang == nil {
		return nil, fmt.Errorf("%s has no linear and angular vectors", t.Type.Name())
	}
	if err := errors.Join(lin.Set("x", linear), ang.Set("z", angular)); err != nil {
		return nil, err
	}
	return m, nil
}

// publish writes one twist to every matched subscriber; it never waits
// for one.
func (dv *cmdVel) publish(linear, angular float64) error {
	m, err := dv.twist(linear, angular)
	if err == nil {
		err = dv.pub.Publish(m)
	}
	if errors.Is(err, node.ErrClosed) {
		return fmt.Errorf("%w: %s: %w", actuators.ErrClosed, dv.topic, err)
	}
	if err != nil {
		return fmt.Errorf("%s: %s: %w", dv.name, dv.topic, err)
	}
	return nil
}

// publishDriving writes dr's twist unless dr was stopped or its ctx ended.
func (dv *cmdVel) publishDriving(dr *drive) (bool, error) {
	dr.mu.Lock()
	defer dr.mu.Unlock()
	if dr.stopped || dr.ctx.Err() != nil {
		return false, nil
	}
	return true, dv.publish(dr.goal.Linear, dr.goal.Angular)
}

// check refuses a drive this base cannot run, before anything is sent.
func (dv *cmdVel) check(id string, g actuators.Drive) error {
	switch {
	case id == "":
		return fmt.Errorf("%w: %s: empty goal id", actuators.ErrInvalidArgument, dv.name)
	case !finiteAll(g.Linear, g.Angular):
		return fmt.Errorf("%w: %s: twist must be finite, got linear=%v angular=%v", actuators.ErrInvalidArgument, dv.name, g.Linear, g.Angular)
	case g.Duration <= 0 || g.Duration > dv.max:
		return fmt.Errorf("%w: %s: duration %s must be in (0, %s] (max_drive_duration)", actuators.ErrInvalidArgument, dv.name, g.Duration, dv.max)
	}
	return nil
}

func finiteAll(xs ...float64) bool {
	for _, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

// start waits (at most the actuator's goal_connect_timeout) for a
// subscriber on cmd_vel, publishes the first twist and hands the drive to
// a goroutine Close waits for, which republishes it until its duration
// passes, ctx (the deadman) ends, or it is stopped.
func (dv *cmdVel) start(ctx context.Context, id string, g actuators.Drive) error {
	life := dv.life
	if err := dv.check(id, g); err != nil {
		return err
	}
	dctx, stop := context.WithCancelCause(ctx)
	dr := &drive{id: id, goal: g, ctx: dctx, stop: stop}
	dv.mu.Lock()
	if dv.cur != nil {
		cur := dv.cur.id
		dv.mu.Unlock()
		stop(nil)
		return fmt.Errorf("%w: %s is driving %q", actuators.ErrBusy, dv.name, cur)
	}
	if _, ok := dv.used[id]; ok {
		dv.mu.Unlock()
		stop(nil)
		return fmt.Errorf("%w: %s drive %q was already sent", actuators.ErrDuplicateGoal, dv.name, id)
	}
	dv.cur = dr
	dv.mu.Unlock()
	unhook := context.AfterFunc(life, func() { stop(errDriveShutdown) })

	err := dv.waitSubscriber(dctx)
	sent := false
	if err == nil {
		// Publish fails only before the write (encoding, closed): unsent.
		sent, err = dv.publishDriving(dr)
		sent = sent && err == nil
	}
	if !sent {
		unhook()
		cause := context.Cause(dctx)
		stop(nil)
		recalled := errors.Is(cause, errDriveCanceled) || errors.Is(cause, errDriveStopAll)
		dv.mu.Lock()
		dv.cur = nil
		if recalled {
			dv.used[id] = time.Now()
		}
		dv.mu.Unlock()
		switch {
		case err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded):
			return err
		case recalled:
			dv.notify(actuators.GoalUpdate{Actuator: dv.name, GoalID: id, State: actuators.GoalRecalled, Text: "canceled before it was sent; nothing was published"})
			return fmt.Errorf("%w: %s drive %q", actuators.ErrCanceledBeforeSend, dv.name, id)
		case errors.Is(cause, errDriveShutdown):
			return actuators.ErrClosed
		}
		return fmt.Errorf("%s: waiting for a subscriber on %s: %w", dv.name, dv.topic, ctx.Err())
	}
	dv.mu.Lock()
	dv.used[id] = time.Now()
	dv.forgetOld()
	dv.mu.Unlock()
	dv.notify(actuators.GoalUpdate{Actuator: dv.name, GoalID: id, State: actuators.GoalActive,
		Text: fmt.Sprintf("driving linear=%g m/s angular=%g rad/s for %s", g.Linear, g.Angular, g.Duration)})
	started := time.Now()
	if !dv.spawn(func() { dv.run(dr, started, life, unhook) }) {
		stop(errDriveShutdown)
		dv.run(dr, started, life, unhook) // ends at once: zeros, then canceled
	}
	return nil
}

// waitSubscriber waits until cmd_vel has a matched subscriber; an error
// wrapping ErrNotConnected after connectTimeout, dctx's error when it
// ends first.
func (dv *cmdVel) waitSubscriber(dctx context.Context) error {
	wctx, cancel := context.WithTimeout(dctx, dv.connectTimeout)
	defer cancel()
	err := dv.pub.WaitMatched(wctx, 1)
	switch {
	case err == nil:
		return nil
	case dctx.Err() != nil:
		return dctx.Err()
	case errors.Is(err, node.ErrIncompatibleQoS):
		return fmt.Errorf("%w: %s: %w", actuators.ErrNotConnected, dv.name, err)
	}
	return fmt.Errorf("%w: %s: no subscriber on %s after %s", actuators.ErrNotConnected, dv.name, dv.topic, dv.connectTimeout)
}

// run republishes dr's twist every period until its duration passes or
// its ctx ends, then sends zeros and reports how it ended.
func (dv *cmdVel) run(dr *drive, started time.Time, life context.Context, unhook func() bool) {
	defer unhook()
	tick := time.NewTicker(dv.period)
	defer tick.Stop()
	end := time.NewTimer(dr.goal.Duration - time.Since(started))
	defer end.Stop()
	state, text := actuators.GoalSucceeded, ""
loop:
	for {
		select {
		case <-dr.ctx.Done():
			state, text = actuators.GoalCanceled, stopText(context.Cause(dr.ctx))
			break loop
		case <-end.C:
			break loop
		case <-tick.C:
			if _, err := dv.publishDriving(dr); err != nil {
				state, text = actuators.GoalAborted, "cmd_vel could not be published: "+err.Error()
				break loop
			}
		}
	}
	dr.mu.Lock()
	dr.stopped = true
	dr.mu.Unlock()
	dv.zeros(life, zeroRepeats)
	dr.stop(nil)

	dv.mu.Lock()
	if dv.cur == dr {
		dv.cur = nil
	}
	dv.mu.Unlock()
	progress := 1.0
	if state != actuators.GoalSucceeded {
		progress = min(1, time.Since(started).Seconds()/dr.goal.Duration.Seconds())
	}
	dv.notify(actuators.GoalUpdate{Actuator: dv.name, GoalID: dr.id, State: state, Progress: progress, Text: text})
}

// stopText says why a drive's ctx ended.
func stopText(cause error) string {
	for _, e := range []error{errDriveCanceled, errDriveStopAll, errDriveShutdown} {
		if errors.Is(cause, e) {
			return e.Error()
		}
	}
	return "the drive's context ended (caller or session gone)"
}

// zeros publishes n zero twists zeroGap apart (back to back once life
// ended); the first error is returned, the rest are still tried.
func (dv *cmdVel) zeros(life context.Context, n int) error {
	var first error
	for i := range n {
		if err := dv.publish(0, 0); err != nil && first == nil {
			first = err
		}
		if i < n-1 {
			select {
			case <-time.After(zeroGap):
			case <-life.Done():
			}
		}
	}
	return first
}

// halt stops dr: after it returns no non-zero twist of dr is written,
// and one zero has been.
func (dv *cmdVel) halt(dr *drive, why error) error {
	dr.stop(why)
	dr.mu.Lock()
	dr.stopped = true
	dr.mu.Unlock()
	return dv.publish(0, 0)
}

// cancel stops the drive with this id; it reports whether the id is a
// drive's (running, being started, or finished).
func (dv *cmdVel) cancel(id string) bool {
	dv.mu.Lock()
	dr := dv.cur
	_, used := dv.used[id]
	dv.mu.Unlock()
	if dr != nil && dr.id == id {
		dv.halt(dr, errDriveCanceled)
		return true
	}
	return used
}

// stop ends any drive (why is its cause) and sends zero twists, whether
// or not a drive runs (someone else may be driving): the first before it
// returns, the rest from a goroutine Close waits for. It waits for
// nothing: no lock a send holds, no discovery; a zero reaches the
// subscribers matched now.
func (dv *cmdVel) stop(_ context.Context, why error) error {
	life := dv.life
	dv.mu.Lock()
	dr := dv.cur
	dv.mu.Unlock()
	var err error
	if dr != nil {
		err = dv.halt(dr, why)
	} else {
		err = dv.publish(0, 0)
	}
	if !dv.spawn(func() {
		select {
		case <-time.After(zeroGap):
		case <-life.Done():
		}
		dv.zeros(life, zeroRepeats-1) // back to back once life ended
	}) {
		dv.zeros(life, zeroRepeats-1)
	}
	return err
}

// flush waits until cmd_vel's reliable subscribers acknowledged every
// twist published, bounded by ctx.
func (dv *cmdVel) flush(ctx context.Context) error { return dv.pub.WaitAcknowledged(ctx) }

// status is the drive side's connectivity: a subscriber on cmd_vel.
func (dv *cmdVel) status() (bool, string) {
	if len(dv.pub.Matched()) > 0 {
		return true, ""
	}
	if inc := dv.pub.Incompatible(); len(inc) > 0 {
		return false, fmt.Sprintf("the subscriber on %s has incompatible QoS: %s", dv.topic, inc[0])
	}
	return false, "no subscriber on " + dv.topic
}

// spawn runs f in a goroutine Close waits for, unless Close has begun.
func (r *Robot) spawn(f func()) bool {
	r.mu.Lock() // Close stops life under mu before it waits on wg
	defer r.mu.Unlock()
	if r.life.Err() != nil {
		return false
	}
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		f()
	}()
	return true
}

// forgetOld forgets drive ids older than drivesKept; call with mu held.
func (dv *cmdVel) forgetOld() {
	for id, at := range dv.used {
		if time.Since(at) > drivesKept {
			delete(dv.used, id)
		}
	}
}
