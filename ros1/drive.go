package ros1

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bluenviron/goroslib/v2"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/geometry_msgs"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/config"
)

// zeroRepeats: how many zero twists end a drive or a StopAll, zeroGap apart.
const (
	zeroRepeats = 3
	zeroGap     = 50 * time.Millisecond
)

// twistWire is one node incarnation's cmd_vel publisher.
type twistWire struct {
	pub         *goroslib.Publisher
	subscribers func() (int, error)
}

func (w *twistWire) write(linear, angular float64) {
	w.pub.Write(&geometry_msgs.Twist{
		Linear:  geometry_msgs.Vector3{X: linear},
		Angular: geometry_msgs.Vector3{Z: angular},
	})
}

// driver runs timed cmd_vel drives with a deadman: the twist is republished
// at a fixed rate (above the robot's cmd_vel timeout rate) and zero is sent
// whenever the drive ends for any reason.
type driver struct {
	name, topic    string
	period         time.Duration
	max            time.Duration
	connectTimeout time.Duration
	notify         func(actuators.GoalUpdate)
	onWire         func(linear, angular float64) // tests

	wire       atomic.Pointer[twistWire]
	subscribed atomic.Bool

	mu   sync.Mutex
	cur  *drive
	used map[string]time.Time // ids already driven, for actuators.ErrDuplicateGoal
}

// drive is one running drive. pubMu orders its twists against stop: once
// stopped is set under pubMu, no non-zero twist of this drive follows.
type drive struct {
	id              string
	linear, angular float64
	d               time.Duration
	stopCh          chan struct{}
	stopOnce        sync.Once
	reason          atomic.Pointer[string]

	pubMu   sync.Mutex
	stopped bool
}

func newDriver(a config.ActuatorConfig, notify func(actuators.GoalUpdate)) *driver {
	return &driver{
		name: a.Name, topic: a.CmdVelTopic,
		period:         time.Duration(float64(time.Second) / a.DriveRateHz),
		max:            a.MaxDriveDuration.D(),
		connectTimeout: a.GoalConnectTimeout.D(),
		notify:         notify,
		used:           map[string]time.Time{},
	}
}

func (dv *driver) currentWire() *twistWire { return dv.wire.Load() }

func (dv *driver) write(w *twistWire, linear, angular float64) {
	w.write(linear, angular)
	if dv.onWire != nil {
		dv.onWire(linear, angular)
	}
}

// start validates, waits for a cmd_vel subscriber, publishes the first
// twist and leaves the rest to a goroutine in wg that runs until d passes,
// ctx ends, or the drive is stopped.
func (dv *driver) start(ctx, life context.Context, wg *sync.WaitGroup, id string, linear, angular float64, d time.Duration) error {
	switch {
	case id == "":
		return fmt.Errorf("%w: %s: empty goal id", actuators.ErrInvalidArgument, dv.name)
	case !finite(linear) || !finite(angular):
		return fmt.Errorf("%w: %s: twist must be finite, got linear=%v angular=%v", actuators.ErrInvalidArgument, dv.name, linear, angular)
	case d <= 0 || d > dv.max:
		return fmt.Errorf("%w: %s: duration %s must be in (0, %s] (max_drive_duration)", actuators.ErrInvalidArgument, dv.name, d, dv.max)
	}
	dr := &drive{id: id, linear: linear, angular: angular, d: d, stopCh: make(chan struct{})}
	dv.mu.Lock()
	if dv.cur != nil {
		cur := dv.cur.id
		dv.mu.Unlock()
		return fmt.Errorf("%w: %s is driving %q", actuators.ErrBusy, dv.name, cur)
	}
	if _, ok := dv.used[id]; ok {
		dv.mu.Unlock()
		return fmt.Errorf("%w: %s drive %q was already sent", actuators.ErrDuplicateGoal, dv.name, id)
	}
	dv.cur = dr
	dv.mu.Unlock()

	w, err := dv.waitConnected(ctx, dr)
	if err == nil {
		dr.pubMu.Lock()
		if dr.stopped {
			err = errStopped
		} else {
			dv.write(w, linear, angular)
		}
		dr.pubMu.Unlock()
	}
	if err != nil {
		dv.mu.Lock()
		dv.cur = nil
		if err == errStopped {
			dv.used[id] = time.Now()
		}
		dv.mu.Unlock()
		if err == errStopped {
			dv.notify(actuators.GoalUpdate{Actuator: dv.name, GoalID: id, State: actuators.GoalRecalled, Text: "canceled before it was sent; nothing was published"})
			return fmt.Errorf("%w: %s drive %q", actuators.ErrCanceledBeforeSend, dv.name, id)
		}
		return err
	}
	dv.mu.Lock()
	dv.used[id] = time.Now()
	dv.gc()
	dv.mu.Unlock()
	dv.notify(actuators.GoalUpdate{Actuator: dv.name, GoalID: id, State: actuators.GoalActive,
		Text: fmt.Sprintf("driving linear=%g m/s angular=%g rad/s for %s", linear, angular, d)})

	wg.Add(1)
	go func() {
		defer wg.Done()
		dv.run(ctx, life, dr, w)
	}()
	return nil
}

var errStopped = fmt.Errorf("stopped")

func (dv *driver) waitConnected(ctx context.Context, dr *drive) (*twistWire, error) {
	deadline := time.NewTimer(dv.connectTimeout)
	defer deadline.Stop()
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	why := "no ROS link"
	for {
		if w := dv.currentWire(); w != nil {
			n, err := w.subscribers()
			switch {
			case err != nil:
				why = fmt.Sprintf("cannot list connections of %s: %v", dv.topic, err)
			case n == 0:
				why = "no subscriber on " + dv.topic
			default:
				return w, nil
			}
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%s: waiting for %s (%s): %w", dv.name, dv.topic, why, ctx.Err())
		case <-deadline.C:
			return nil, fmt.Errorf("%w: %s: %s after %s", actuators.ErrNotConnected, dv.name, why, dv.connectTimeout)
		case <-dr.stopCh:
			return nil, errStopped
		case <-tick.C:
		}
	}
}

// run republishes the twist until the drive ends, then sends zeros and
// reports the outcome. A drive is bound to the publisher it started on: if
// the ROS node is replaced (master restart) it ends as aborted.
func (dv *driver) run(ctx, life context.Context, dr *drive, w *twistWire) {
	started := time.Now()
	t := time.NewTicker(dv.period)
	defer t.Stop()
	state, text := actuators.GoalSucceeded, ""
loop:
	for {
		select {
		case <-ctx.Done():
			state, text = actuators.GoalCanceled, "the drive's context ended (caller or session gone)"
			break loop
		case <-life.Done():
			state, text = actuators.GoalCanceled, "bridge shutting down"
			break loop
		case <-dr.stopCh:
			state, text = actuators.GoalCanceled, *dr.reason.Load()
			break loop
		case <-t.C:
		}
		if time.Since(started) >= dr.d {
			break
		}
		if dv.currentWire() != w {
			state, text = actuators.GoalAborted, "the ROS node was replaced (master restart?); drive stopped"
			break
		}
		dr.pubMu.Lock()
		if !dr.stopped {
			dv.write(w, dr.linear, dr.angular)
		}
		dr.pubMu.Unlock()
	}
	dr.pubMu.Lock()
	dr.stopped = true
	dr.pubMu.Unlock()
	dv.zeros(life)

	dv.mu.Lock()
	if dv.cur == dr {
		dv.cur = nil
	}
	dv.mu.Unlock()
	progress := min(1, time.Since(started).Seconds()/dr.d.Seconds())
	if state == actuators.GoalSucceeded {
		progress = 1
	}
	dv.notify(actuators.GoalUpdate{Actuator: dv.name, GoalID: dr.id, State: state, Progress: progress, Text: text})
}

// zeros publishes a zero twist zeroRepeats times on the current wire.
func (dv *driver) zeros(life context.Context) {
	for i := range zeroRepeats {
		if w := dv.currentWire(); w != nil {
			dv.write(w, 0, 0)
		}
		if i < zeroRepeats-1 {
			select {
			case <-time.After(zeroGap):
			case <-life.Done():
			}
		}
	}
}

// stop ends a drive: after it returns no non-zero twist of it is written,
// and one zero has been.
func (dv *driver) stop(dr *drive, reason string) {
	dr.reason.CompareAndSwap(nil, &reason)
	dr.pubMu.Lock()
	dr.stopped = true
	dr.pubMu.Unlock()
	dr.stopOnce.Do(func() { close(dr.stopCh) })
	if w := dv.currentWire(); w != nil {
		dv.write(w, 0, 0)
	}
}

// cancel stops the drive with this id; it reports whether the id is a
// drive's (running, being started, or finished).
func (dv *driver) cancel(id string) bool {
	dv.mu.Lock()
	dr := dv.cur
	_, used := dv.used[id]
	dv.mu.Unlock()
	if dr == nil || dr.id != id {
		return used
	}
	dv.stop(dr, "canceled")
	return true
}

// stopAll stops any drive and sends zero twists (the first before it
// returns, the rest from a goroutine in wg), whether or not a drive runs:
// someone else may be publishing.
func (dv *driver) stopAll(life context.Context, wg *sync.WaitGroup) error {
	dv.mu.Lock()
	dr := dv.cur
	dv.mu.Unlock()
	if dr != nil {
		dv.stop(dr, "stopped by StopAll")
	}
	w := dv.currentWire()
	if w == nil {
		return fmt.Errorf("%w: %s: zero twist not sent: no ROS link", actuators.ErrNotConnected, dv.name)
	}
	dv.write(w, 0, 0)
	wg.Add(1)
	go func() {
		defer wg.Done()
		dv.zeros(life)
	}()
	return nil
}

// status is the drive side's connectivity.
func (dv *driver) status() (bool, string) {
	switch {
	case dv.currentWire() == nil:
		return false, "no ROS link (master unreachable?)"
	case !dv.subscribed.Load():
		return false, "no subscriber on " + dv.topic
	}
	return true, ""
}

// gc forgets drive ids older than keepFinal; call with mu held.
func (dv *driver) gc() {
	for id, at := range dv.used {
		if time.Since(at) > keepFinal {
			delete(dv.used, id)
		}
	}
}
