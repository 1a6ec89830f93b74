package ros1

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bluenviron/goroslib/v2"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/actionlib_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/geometry_msgs"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/config"
	"github.com/actbridge/actbridge/ros1/roslink"
	"github.com/actbridge/actbridge/spline"
)

// Monitor periods: timers of the goal tracking, and how often the
// subscribers of our publishers are counted for Actuators.
const (
	tickPeriod = 100 * time.Millisecond
	busPeriod  = time.Second
)

// Options are how Open reaches ROS.
type Options struct {
	// Env locates the master; the zero value reads ROS_MASTER_URI,
	// ROS_HOSTNAME and ROS_IP (roslink.EnvFromOS).
	Env roslink.Env
	// WaitForMaster makes Open wait (until ctx ends) for a master to answer.
	WaitForMaster bool
	// CheckInterval is how often the master is polled for a restart (1 s if zero).
	CheckInterval time.Duration
	// Logf receives connection events; log.Printf if nil.
	Logf func(format string, args ...any)
	// JointStatesEvery is the shortest gap between two reads of a
	// joint_states topic (50 ms if zero); FreshJoints reads at once.
	JointStatesEvery time.Duration
}

// Robot is the ROS side of the bridge: one actionlib client per action
// with the bridge's goal ids, a cmd_vel driver, and the latest joint states
// and odometry. Everything lives outside the goroslib node, which roslink
// replaces after a master restart; only publishers and subscribers are
// made again. Close it when done.
type Robot struct {
	cfg  config.Config
	logf func(string, ...any)

	link   *roslink.Link
	bus    *selfBus
	subs   *subscriptions
	notify *actuators.Notifier

	clients  []*actionClient // config order
	byName   map[string]*actuator
	drives   []*driver // bases with a cmd_vel topic, config order
	jointSub []string  // distinct joint_states topics, config order
	joints   map[string]*jointCache
	// jointEvery paces joint_states reads (jointStatesEvery by default);
	// freshWait bounds FreshJoints (freshJointsWait; tests lengthen it).
	jointEvery, freshWait time.Duration

	life context.Context
	stop context.CancelFunc
	wg   sync.WaitGroup
}

// actuator is one configured actuator and what drives it.
type actuator struct {
	cfg    config.ActuatorConfig
	client *actionClient // nil for a base without move_base
	drive  *driver       // base with a cmd_vel topic; nil otherwise
	joints map[string]bool
	odom   *odomCache // base with an odom topic; nil otherwise
}

// Open connects to the master, sets up every actuator and starts tracking.
// ctx bounds Open only.
func Open(ctx context.Context, cfg *config.Config, opts Options) (*Robot, error) {
	if cfg == nil {
		return nil, fmt.Errorf("%w: nil config", config.ErrConfig)
	}
	c := *cfg
	c.Actuators = append([]config.ActuatorConfig(nil), cfg.Actuators...)
	c.ApplyDefaults()
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if opts.Env.MasterAddress == "" {
		env, err := roslink.EnvFromOS()
		if err != nil {
			return nil, err
		}
		opts.Env = env
	}
	if opts.Logf == nil {
		opts.Logf = log.Printf
	}
	r := newRobot(c, opts.Logf)
	if opts.JointStatesEvery > 0 {
		r.jointEvery = opts.JointStatesEvery
	}
	r.bus = newSelfBus(opts.Env.MasterAddress, absoluteName(c.NodeName))

	link, err := roslink.Open(ctx, roslink.Config{
		Env: opts.Env, Name: c.NodeName, CheckInterval: opts.CheckInterval,
		WaitForMaster: opts.WaitForMaster, Logf: opts.Logf,
	}, r.setup)
	if err != nil {
		r.stop()
		return nil, fmt.Errorf("actuators: %w", err)
	}
	r.link = link
	r.wg.Add(2)
	go func() {
		defer r.wg.Done()
		r.notify.Run(r.life)
	}()
	go func() {
		defer r.wg.Done()
		r.monitor()
	}()
	return r, nil
}

// newRobot builds the ROS-independent state.
func newRobot(c config.Config, logf func(string, ...any)) *Robot {
	r := &Robot{cfg: c, logf: logf, subs: newSubscriptions(), notify: actuators.NewNotifier(),
		byName: map[string]*actuator{}, joints: map[string]*jointCache{}, jointEvery: jointStatesEvery, freshWait: freshJointsWait}
	r.life, r.stop = context.WithCancel(context.Background())
	for _, ac := range c.Actuators {
		a := &actuator{cfg: ac, joints: map[string]bool{}}
		for _, j := range ac.Joints {
			a.joints[j] = true
		}
		if ac.Action != "" {
			a.client = newActionClient(ac, r.notify.Push)
			a.client.done = r.life.Done()
			r.clients = append(r.clients, a.client)
		}
		switch ac.Kind {
		case actuators.KindArm:
			a.client.holdGoal = holdGoal(ac.Joints)
		case actuators.KindBase:
			if ac.CmdVelTopic != "" {
				a.drive = newDriver(ac, r.notify.Push)
				r.drives = append(r.drives, a.drive)
			}
			if ac.OdomTopic != "" {
				a.odom = &odomCache{frame: ac.OdomFrame}
			}
		}
		if ac.JointStatesTopic != "" && r.joints[ac.JointStatesTopic] == nil {
			r.joints[ac.JointStatesTopic] = &jointCache{}
			r.jointSub = append(r.jointSub, ac.JointStatesTopic)
		}
		r.byName[ac.Name] = a
	}
	return r
}

// absoluteName is the name goroslib registers: ROS_NAMESPACE (which
// goroslib reads itself) joined with name.
func absoluteName(name string) string {
	ns := strings.TrimSuffix(os.Getenv("ROS_NAMESPACE"), "/")
	return ns + "/" + name
}

// setup runs on every node roslink creates: publishers and subscribers
// only; all state stays in r.
func (r *Robot) setup(n *goroslib.Node) (func(), error) {
	var teardowns []func()
	var drop []func() // run before the closes: forget wires first
	teardown := func() {
		for _, f := range drop {
			f()
		}
		closeAll(teardowns)
	}
	fail := func(err error) (func(), error) {
		teardown()
		return nil, err
	}
	count := func(topic string) (int, error) { return r.bus.count(n, topic) }

	for _, topic := range r.jointSub {
		cache := r.joints[topic]
		closeSub, err := r.subscribeJointStates(topic, cache)
		if err != nil {
			return fail(fmt.Errorf("subscribe %s: %w", topic, err))
		}
		teardowns = append(teardowns, closeSub)
	}
	for _, ac := range r.cfg.Actuators {
		a := r.byName[ac.Name]
		if a.odom != nil {
			closeSub, err := subscribe(n, r.subs, ac.OdomTopic, a.odom.store)
			if err != nil {
				return fail(fmt.Errorf("subscribe %s: %w", ac.OdomTopic, err))
			}
			teardowns = append(teardowns, closeSub)
		}
		if a.client == nil {
			continue
		}
		var td func()
		var err error
		switch a.cfg.Kind {
		case actuators.KindArm:
			td, err = setupAction(n, a.client, armTopics, r.subs, count)
		case actuators.KindGripper:
			td, err = setupAction(n, a.client, gripperTopics, r.subs, count)
		case actuators.KindBase:
			td, err = setupAction(n, a.client, moveBaseTopics, r.subs, count)
		}
		if err != nil {
			return fail(err)
		}
		teardowns = append(teardowns, td)
	}
	for _, dv := range r.drives {
		pub, err := goroslib.NewPublisher(goroslib.PublisherConf{Node: n, Topic: dv.topic, Msg: &geometry_msgs.Twist{}})
		if err != nil {
			return fail(fmt.Errorf("publish %s: %w", dv.topic, err))
		}
		w := &twistWire{pub: pub, subscribers: func() (int, error) { return count(dv.topic) }}
		dv.wire.Store(w)
		drop = append(drop, func() { dv.wire.CompareAndSwap(w, nil) })
		teardowns = append(teardowns, pub.Close)
	}
	return teardown, nil
}

// monitor runs the goal timers and refreshes connectivity until Close.
func (r *Robot) monitor() {
	t := time.NewTicker(tickPeriod)
	defer t.Stop()
	var lastBus time.Time
	for {
		select {
		case <-r.life.Done():
			return
		case <-t.C:
		}
		for _, c := range r.clients {
			c.tick()
		}
		if time.Since(lastBus) >= busPeriod {
			lastBus = time.Now()
			r.refreshBus()
		}
	}
}

// refreshBus counts our publishers' subscribers for Actuators.
func (r *Robot) refreshBus() {
	n := r.link.Node()
	var counts map[string]int
	if n != nil {
		counts, _ = r.bus.outbound(n) // on error every count reads as zero
	}
	for _, c := range r.clients {
		c.subscribed.Store(counts[c.ns+"/goal"] > 0)
	}
	for _, dv := range r.drives {
		dv.subscribed.Store(counts[dv.topic] > 0)
	}
}

// Close stops every drive (sending zero), stops tracking and closes the
// ROS node. Goals on the robot keep running: Close is not StopAll.
func (r *Robot) Close() error {
	for _, dv := range r.drives {
		dv.mu.Lock()
		dr := dv.cur
		dv.mu.Unlock()
		if dr != nil {
			dv.stop(dr, "bridge shutting down")
		}
	}
	r.stop()
	r.wg.Wait()
	if r.bus != nil {
		r.bus.hc.CloseIdleConnections()
	}
	return r.link.Close()
}

// Config is the configuration the robot was opened with.
func (r *Robot) Config() config.Config { return r.cfg }

// SetObserver installs the single receiver of goal updates. It is called
// from one goroutine, in order, never under the robot's locks; updates
// produced while no observer is set are dropped.
func (r *Robot) SetObserver(f func(actuators.GoalUpdate)) { r.notify.SetObserver(f) }

// Connected reports whether the ROS master answered its last poll.
func (r *Robot) Connected() bool { return r.link.MasterReachable() }

// Actuators reports each actuator's connectivity, in config order. An
// action is connected when its server published status within 2 s and
// subscribes to the goal topic; a cmd_vel drive when cmd_vel has a subscriber.
func (r *Robot) Actuators() []actuators.ActuatorStatus {
	out := make([]actuators.ActuatorStatus, 0, len(r.cfg.Actuators))
	for _, ac := range r.cfg.Actuators {
		a := r.byName[ac.Name]
		st := actuators.ActuatorStatus{Name: ac.Name, Kind: ac.Kind, Connected: true, Action: ac.Action}
		var details []string
		if a.client != nil {
			if ok, why := a.client.status(); !ok {
				st.Connected = false
				details = append(details, why)
			}
		}
		if a.drive != nil {
			if st.Action == "" {
				st.Action = ac.CmdVelTopic
			}
			if ok, why := a.drive.status(); !ok {
				st.Connected = false
				details = append(details, why)
			}
		}
		for i, d := range details {
			if i > 0 {
				st.Detail += "; "
			}
			st.Detail += d
		}
		out = append(out, st)
	}
	return out
}

// Joints returns the latest joint states of every joint_states topic.
func (r *Robot) Joints() actuators.JointsSnapshot {
	caches := make([]*jointCache, len(r.jointSub))
	for i, t := range r.jointSub {
		caches[i] = r.joints[t]
	}
	return mergeJoints(caches)
}

// FreshJoints is Joints once each joint_states topic's newest message is
// current by the freshness rule (actuators.Cadence, on the paced reads):
// only a topic whose newest is older than its bound has its wire read at
// once (waiting at most freshWait, or ctx), rather than the cache that is
// read every jointEvery.
func (r *Robot) FreshJoints(ctx context.Context) actuators.JointsSnapshot {
	ctx, cancel := context.WithTimeout(ctx, r.freshWait)
	defer cancel()
	var stale atomic.Bool
	if len(r.jointSub) == 1 { // the usual robot: no goroutine to hand off to
		stale.Store(!r.joints[r.jointSub[0]].current(ctx))
	} else {
		var wg sync.WaitGroup
		for _, t := range r.jointSub {
			wg.Go(func() {
				if !r.joints[t].current(ctx) {
					stale.Store(true)
				}
			})
		}
		wg.Wait()
	}
	s := r.Joints()
	s.Stale = stale.Load()
	return s
}

// Odom returns a base's latest pose; false when it has no odom topic,
// nothing arrived yet, or the last message is older than 2 s.
func (r *Robot) Odom(base string) (actuators.Pose2D, bool) {
	a := r.byName[base]
	if a == nil || a.odom == nil {
		return actuators.Pose2D{}, false
	}
	p, _, ok := a.odom.pose()
	return p, ok
}

// PrepareSend begins the check the next Send to actuator's action makes on
// the wire (that its goal topic has a subscriber, asked of our own node
// over XML-RPC), so it overlaps what the caller does first: the bridge
// commits the motion's record meanwhile. Send takes the answer only if it
// saw a subscriber at most 50 ms before, and asks again otherwise.
func (r *Robot) PrepareSend(actuator string) {
	if a := r.byName[actuator]; a != nil && a.client != nil {
		a.client.prepare()
	}
}

// Send puts goal on the wire for the named actuator under goalID and
// returns once it is written. Outcomes arrive as GoalUpdates. A trajectory
// reports progress from the feedback's desired time_from_start, and an
// aborted one is followed by a hold goal "<goalID>/hold". A drive
// publishes a twist on cmd_vel at drive_rate_hz for its duration (at most
// max_drive_duration) with a deadman: zero is sent at the end, on Cancel,
// StopAll, a node replacement, and when ctx ends; it returns once the first
// twist is on the wire, so pass a ctx that lives as long as the session
// that asked for the drive, not one that ends with the tool call.
func (r *Robot) Send(ctx context.Context, actuator, goalID string, goal actuators.Goal) error {
	a := r.byName[actuator]
	if a == nil {
		return fmt.Errorf("%w: %q", actuators.ErrUnknownActuator, actuator)
	}
	if goal == nil || a.cfg.Kind != goal.Kind() {
		return fmt.Errorf("%w: %s is a %s; it takes no %T goal", actuators.ErrInvalidArgument, actuator, a.cfg.Kind, goal)
	}
	switch g := goal.(type) {
	case actuators.Trajectory:
		return r.sendTrajectory(ctx, a, goalID, g.Joints, g.Points)
	case actuators.GripperCommand:
		return r.sendGripper(ctx, a, goalID, g.Position, g.MaxEffort)
	case actuators.Navigate:
		return r.sendNavigate(ctx, a, goalID, g.Target)
	case actuators.Drive:
		return r.drive(ctx, a, goalID, g.Linear, g.Angular, g.Duration)
	}
	return fmt.Errorf("%w: %T is not a goal this transport knows", actuators.ErrInvalidArgument, goal)
}

func (r *Robot) sendTrajectory(ctx context.Context, a *actuator, goalID string, joints []string, points []spline.Point) error {
	if err := a.ownsJoints(joints); err != nil {
		return err
	}
	g, err := trajectoryGoal(joints, points)
	if err != nil {
		return fmt.Errorf("%s: %w", a.cfg.Name, err)
	}
	build := func(id actionlib_msgs.GoalID) any { return armGoal(id, g) }
	return a.client.send(ctx, goalID, build, trajectoryProgress(points[len(points)-1].Time))
}

// ownsJoints checks that every joint is the arm's, once.
func (a *actuator) ownsJoints(joints []string) error {
	if len(joints) == 0 {
		return fmt.Errorf("%w: joints: empty", actuators.ErrInvalidArgument)
	}
	seen := map[string]bool{}
	for i, j := range joints {
		if !a.joints[j] {
			return fmt.Errorf("%w: joints[%d]: %q is not a joint of arm %s", actuators.ErrInvalidArgument, i, j, a.cfg.Name)
		}
		if seen[j] {
			return fmt.Errorf("%w: joints[%d]: %q twice", actuators.ErrInvalidArgument, i, j)
		}
		seen[j] = true
	}
	return nil
}

// sendGripper sends a GripperCommand goal (position in m, max effort in N).
func (r *Robot) sendGripper(ctx context.Context, a *actuator, goalID string, position, maxEffort float64) error {
	if !finite(position) || !finite(maxEffort) {
		return fmt.Errorf("%w: %s: position and max_effort must be finite", actuators.ErrInvalidArgument, a.cfg.Name)
	}
	start, ok := r.jointPosition(a.cfg.JointStatesTopic, a.cfg.Joints[0])
	build := func(id actionlib_msgs.GoalID) any { return gripperGoal(id, position, maxEffort) }
	return a.client.send(ctx, goalID, build, gripperProgress(start, position, ok))
}

func (r *Robot) jointPosition(topic, joint string) (float64, bool) {
	c := r.joints[topic]
	if c == nil {
		return 0, false
	}
	return c.position(joint)
}

// sendNavigate sends a move_base goal; an empty frame means the odom frame.
func (r *Robot) sendNavigate(ctx context.Context, a *actuator, goalID string, goal actuators.Pose2D) error {
	if a.client == nil {
		return fmt.Errorf("%w: base %s has no move_base action configured", actuators.ErrUnknownActuator, a.cfg.Name)
	}
	if !finite(goal.X) || !finite(goal.Y) || !finite(goal.Yaw) {
		return fmt.Errorf("%w: %s: goal pose must be finite", actuators.ErrInvalidArgument, a.cfg.Name)
	}
	if goal.Frame == "" {
		goal.Frame = a.cfg.OdomFrame
	}
	build := func(id actionlib_msgs.GoalID) any { return navigateGoal(id, goal) }
	return a.client.send(ctx, goalID, build, navigateProgress(goal))
}

// drive runs a timed twist on a base's cmd_vel.
func (r *Robot) drive(ctx context.Context, a *actuator, goalID string, linear, angular float64, d time.Duration) error {
	if a.drive == nil {
		return fmt.Errorf("%w: base %s has no cmd_vel topic configured", actuators.ErrUnknownActuator, a.cfg.Name)
	}
	if r.life.Err() != nil {
		return actuators.ErrClosed
	}
	return a.drive.start(ctx, r.life, &r.wg, goalID, linear, angular, d)
}

// Cancel cancels one goal (or drive) of an actuator. A goal still waiting
// for its connection is never published; one being published is canceled
// right after it. An id this process never sent nor tracked is canceled on
// the wire anyway (it may predate a restart). Cancel never waits for a send.
func (r *Robot) Cancel(ctx context.Context, actuatorName, goalID string) error {
	a := r.byName[actuatorName]
	if a == nil {
		return fmt.Errorf("%w: %q", actuators.ErrUnknownActuator, actuatorName)
	}
	if a.drive != nil && a.drive.cancel(goalID) {
		return nil
	}
	if a.client == nil {
		return nil // not a drive this process knows: nothing runs under that id
	}
	return a.client.cancel(goalID)
}

// StopAll cancels every goal of every action (actionlib's cancel-all: empty
// id, zero stamp), also those still being dispatched here, stops any drive
// and sends zero twists. It takes no lock a send holds while waiting. Every
// part is attempted; the error lists the parts that could not be sent.
func (r *Robot) StopAll(ctx context.Context) error {
	// Each write hands the message to its publisher's goroutine: one
	// goroutine per action and drive lets a loaded scheduler run those
	// hand-offs side by side, not one after another.
	stops := make([]func() error, 0, len(r.clients)+len(r.drives))
	for _, c := range r.clients {
		stops = append(stops, c.cancelAll)
	}
	for _, dv := range r.drives {
		stops = append(stops, func() error { return dv.stopAll(r.life, &r.wg) })
	}
	errs := make([]error, len(stops))
	var wg sync.WaitGroup
	for i, stop := range stops {
		if i == len(stops)-1 {
			errs[i] = stop() // the last on this goroutine
			break
		}
		wg.Go(func() { errs[i] = stop() })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Track re-attaches to a goal sent before a restart: its updates resume, or
// it is reported lost when the server does not report it within the
// actuator's status grace. Tracking a known goal does nothing.
func (r *Robot) Track(actuatorName, goalID string) {
	a := r.byName[actuatorName]
	if a == nil || a.client == nil {
		r.notify.Push(actuators.GoalUpdate{Actuator: actuatorName, GoalID: goalID, State: actuators.GoalLost,
			Text: fmt.Sprintf("actuator %q has no action to track goals on", actuatorName)})
		return
	}
	a.client.track(goalID)
}

// Reregistrations counts how often the node registered again after a
// master restart.
func (r *Robot) Reregistrations() uint64 { return r.link.Reregistrations() }

// Robot implements the whole contract.
var (
	_ actuators.Robot      = (*Robot)(nil)
	_ actuators.Graph      = (*Robot)(nil)
	_ actuators.Parameters = (*Robot)(nil)
	_ actuators.Services   = (*Robot)(nil)
)
