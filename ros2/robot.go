package ros2

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/config"
	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/ros2/action"
	"github.com/actbridge/actbridge/ros2/names"
	"github.com/actbridge/actbridge/ros2/node"
	"github.com/actbridge/actbridge/ros2/qos"
	"github.com/actbridge/actbridge/ros2/service"
)

// stopCancelWait bounds each action's cancel-all in StopAll.
const stopCancelWait = 2 * time.Second

// Options are how Open reaches the ROS 2 graph beyond the config.
type Options struct {
	// Logger gets connection events and what a server sent that could
	// not be read; nil means none.
	Logger *slog.Logger
	// LookupEnv reads ROS 2's discovery variables (os.LookupEnv) for what
	// the config leaves unset; nil means no environment.
	LookupEnv func(string) (string, bool)
	// Observe opens the robot to look at it, not to drive it: Close sends
	// zero twists only to end a drive of its own, not, as it otherwise
	// does, whether or not one runs (in case someone else drives).
	// actbridge doctor opens it so.
	Observe bool
}

// Robot is the ROS 2 side of the bridge: one participant (a node named
// after the config's node_name), one action client per actuator with an
// action (arm, gripper, a base's navigation) with the bridge's goal
// UUIDs, a base's drive and odometry, and the newest joint states. Close
// it when done.
type Robot struct {
	cfg     config.Config
	observe bool // Options.Observe
	log     *slog.Logger
	rctx    *node.Context
	node    *node.Node
	notify  *actuators.Notifier
	access  access // topics, parameters and services: topics.go, params.go, services.go

	acts   map[string]*actuator
	order  []*actuator // config order
	joints []*jointCache

	mu    sync.Mutex
	goals map[string]*goal // every goal sent or tracked, by goal id

	life context.Context
	stop context.CancelFunc
	wg   sync.WaitGroup

	// The notifier outlives life: a goroutine of wg (a drive that Close
	// stopped) reports its end after life ended.
	stopNotify context.CancelFunc
	notified   chan struct{}
}

// actuator is one configured actuator: its action client when it has an
// action, and a base's topic side (drive.go, odom.go).
type actuator struct {
	cfg config.ActuatorConfig
	// lanes are its actions (none without one; more than one where a
	// codec splits goals over several: laneCodec), codec their goals'.
	lanes []*lane
	codec goalCodec
	drive driver   // a base with a cmd_vel_topic; nil otherwise
	odom  odometer // a base with an odom_topic; nil otherwise
}

// lane is one action an actuator's goals go to: its client, its send_goal
// service (looked up in the graph) and its goal type from the definitions
// the client was made with (SendGoal takes no other).
type lane struct {
	action   string
	client   *action.Client
	sendGoal string
	goalT    *cdr.Struct
}

// laneFor is the lane g goes to: the only one, or the codec's choice.
func (a *actuator) laneFor(g actuators.Goal) (*lane, error) {
	lc, ok := a.codec.(laneCodec)
	if !ok {
		return a.lanes[0], nil
	}
	i, err := lc.laneOf(g)
	if err != nil {
		return nil, err
	}
	return a.lanes[i], nil
}

// Open joins the graph the config describes (distro, domain, discovery)
// and makes the actuators' clients and subscriptions. It waits for no
// server: Actuators reports who is there. ctx bounds Open only.
func Open(ctx context.Context, cfg *config.Config, o Options) (*Robot, error) {
	if cfg == nil {
		return nil, fmt.Errorf("%w: nil config", config.ErrConfig)
	}
	c := *cfg
	c.Actuators = slices.Clone(cfg.Actuators)
	c.ApplyDefaults()
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if c.Transport != config.TransportROS2 {
		return nil, fmt.Errorf("%w: transport: %q, want %s", config.ErrConfig, c.Transport, config.TransportROS2)
	}
	distro, err := msgs.ParseDistro(c.Distro)
	if err != nil {
		return nil, fmt.Errorf("%w: distro: %w", config.ErrConfig, err)
	}
	overrides := map[string]qos.Override{}
	for topic, ov := range c.QoSByTopic() {
		o := qos.Override(ov)
		if _, err := o.Apply(qos.Default); err != nil {
			return nil, fmt.Errorf("%w: qos of %s: %w", config.ErrConfig, topic, err)
		}
		overrides[topic] = o
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	d, err := Discovery(c.ROS2, o.LookupEnv)
	if err != nil {
		return nil, err
	}
	rctx, err := node.NewContext(ctx, node.Options{Distro: distro, Discovery: d, QoS: overrides, Logger: o.Logger})
	if err != nil {
		return nil, fmt.Errorf("ros2: join domain: %w", err)
	}
	r := &Robot{cfg: c, observe: o.Observe, log: o.Logger, rctx: rctx, notify: actuators.NewNotifier(), acts: map[string]*actuator{}, goals: map[string]*goal{}}
	r.life, r.stop = context.WithCancel(context.Background())
	var notifying context.Context
	notifying, r.stopNotify = context.WithCancel(context.Background())
	r.notified = make(chan struct{})
	go func() {
		defer close(r.notified)
		r.notify.Run(notifying)
	}()
	if err := r.setup(distro); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// Discovery is the discovery a config describes, as the client layer
// takes it: what the config sets wins; what it leaves unset comes from
// ROS 2's variables (ROS_DOMAIN_ID, ROS_STATIC_PEERS, ...) read through
// lookup (nil: none), then ROS 2's defaults, localhost-only discovery
// among them. serve and the ros2 commands share it.
func Discovery(c config.ROS2, lookup func(string) (string, bool)) (node.Discovery, error) {
	if lookup == nil {
		lookup = func(string) (string, bool) { return "", false }
	}
	d, err := node.DiscoveryFromEnv(lookup)
	if err != nil {
		return d, err
	}
	if c.DomainID != nil {
		d.Domain = *c.DomainID
	}
	if len(c.StaticPeers) > 0 {
		d.StaticPeers = c.StaticPeers
	}
	if len(c.DiscoveryServer) > 0 {
		d.Servers = nil
		for i, e := range c.DiscoveryServer {
			s, err := node.ParseDiscoveryServer(e)
			if err != nil {
				return d, err
			}
			s.Index = i
			d.Servers = append(d.Servers, s)
		}
	}
	switch c.DiscoveryRange {
	case config.DiscoveryLocalhost:
		d.Range = node.Localhost
	case config.DiscoverySubnet:
		d.Range = node.Subnet
	case config.DiscoveryOff:
		d.Range = node.Off
	}
	return d, nil
}

func (r *Robot) setup(distro msgs.Distro) error {
	n, err := r.rctx.NewNode(r.cfg.NodeName, "")
	if err != nil {
		return fmt.Errorf("ros2: node: %w", err)
	}
	r.node = n
	r.rctx.Participant().Protect(protectedTopics(r.cfg.Actuators)...)
	set, err := msgs.Load(distro) // read by the action clients while they are made only
	if err != nil {
		return err
	}
	caches := map[string]*jointCache{}
	for _, ac := range r.cfg.Actuators {
		a := &actuator{cfg: ac}
		r.acts[ac.Name] = a
		r.order = append(r.order, a)
		if ac.Action != "" {
			if err := r.openAction(a, set); err != nil {
				return err
			}
		}
		if ac.Kind == actuators.KindBase {
			if err := r.openBase(a); err != nil {
				return err
			}
		}
		if ac.JointStatesTopic != "" && caches[ac.JointStatesTopic] == nil {
			jc := newJointCache()
			if err := jc.subscribe(r.life, n, ac.JointStatesTopic, &r.wg, r.stateSource(ac.JointStatesTopic)); err != nil {
				return fmt.Errorf("ros2: %s: %w", ac.JointStatesTopic, err)
			}
			caches[ac.JointStatesTopic] = jc
			r.joints = append(r.joints, jc)
		}
	}
	return nil
}

// openAction makes a's action client, of the type its kind's codec speaks.
func (r *Robot) openAction(a *actuator, set *msgs.Set) error {
	ac := a.cfg
	codec, err := r.codecOf(ac)
	if err != nil {
		return err
	}
	specs := []laneSpec{{typ: codec.actionType()}}
	if lc, ok := codec.(laneCodec); ok {
		specs = lc.lanes()
	}
	a.codec = codec
	for _, sp := range specs {
		name := ac.Action + sp.suffix
		an, err := names.ActionNames(name)
		if err != nil {
			return fmt.Errorf("%w: %s: action: %w", config.ErrConfig, ac.Name, err)
		}
		l := &lane{action: name, sendGoal: an.SendGoal}
		if l.goalT, err = set.Struct(sp.typ + "_Goal"); err != nil {
			return err
		}
		if l.client, err = action.NewClient(r.rctx.Participant(), set, name, sp.typ, service.Options{Endpoints: r.node.Announce, Logger: r.log}); err != nil {
			return fmt.Errorf("ros2: %s: %w", ac.Name, err)
		}
		a.lanes = append(a.lanes, l)
	}
	return nil
}

// codecOf is the goal codec of an actuator's action, by kind; a codec
// reads the distro's layout from the messages it is given.
func (r *Robot) codecOf(ac config.ActuatorConfig) (goalCodec, error) {
	switch ac.Kind {
	case actuators.KindArm:
		return newTrajectoryCodec(ac.Joints), nil
	case actuators.KindGripper:
		if ac.ActionType == config.GripperActionFranka {
			return newFrankaCodec(ac, r.jointPosition), nil
		}
		return newGripperCodec(ac, r.jointPosition)
	case actuators.KindBase:
		frame := ac.OdomFrame
		if frame == "" {
			frame = config.DefaultOdomFrame
		}
		return navigateCodec{frame: frame}, nil
	}
	return nil, fmt.Errorf("%w: %s: transport ros2 has no action for a %s yet", config.ErrConfig, ac.Name, ac.Kind)
}

// Close cancels no action goal on the robot: goals run on, and a new
// process re-attaches with Track. Drives stop (their deadman is this
// process). It leaves the graph.
func (r *Robot) Close() error {
	if !r.observe {
		if err := r.stopDrives(context.Background(), errDriveShutdown); err != nil {
			r.log.Warn("ros2: a drive's zero twist failed on close", "err", err)
		}
	}
	r.mu.Lock() // Send and Track add to wg under mu only while life lasts
	r.stop()
	r.mu.Unlock()
	var errs []error
	for _, a := range r.order {
		for _, l := range a.lanes {
			errs = append(errs, l.client.Close())
		}
	}
	r.wg.Wait()
	if !r.observe {
		r.flushDrives()
	}
	r.stopNotify() // after wg: the last updates of what wg ran are pushed
	<-r.notified
	errs = append(errs, r.access.close())
	if r.node != nil {
		errs = append(errs, r.node.Close())
	}
	errs = append(errs, r.rctx.Close())
	return errors.Join(errs...)
}

// closeFlushWait bounds how long Close waits for cmd_vel subscribers to
// acknowledge the last zero twists before the participant goes.
const closeFlushWait = 500 * time.Millisecond

// flushDrives waits, bounded, until every reliable subscriber of each
// base's cmd_vel has acknowledged the zero twists Close sent: a datagram
// lost on the way is repaired only while our participant lives.
func (r *Robot) flushDrives() {
	ctx, cancel := context.WithTimeout(context.Background(), closeFlushWait)
	defer cancel()
	for _, a := range r.order {
		if a.drive == nil {
			continue
		}
		if err := a.drive.flush(ctx); err != nil {
			r.log.Warn("ros2: cmd_vel subscribers did not acknowledge the zero twists before close", "actuator", a.cfg.Name, "err", err)
		}
	}
}

// Distro is the distro the robot speaks.
func (r *Robot) Distro() msgs.Distro { return r.rctx.Distro() }

// served reports whether the graph lists a server of each send_goal service.
func (r *Robot) served() map[string]bool {
	g := r.rctx.Graph()
	out := map[string]bool{}
	for _, s := range g.Services {
		if len(s.Servers) > 0 {
			out[s.Name] = true
		}
	}
	return out
}

// Actuators reports each actuator as connected when the graph lists a
// server of its action's send_goal service and, for a drive, when its
// cmd_vel topic has a subscriber; as ambiguous when more than one server
// of its action or publisher of its state is listed where the config
// names none (nothing is sent to it then); and the messages about its
// goals ignored because another participant than the goal's server sent
// them.
func (r *Robot) Actuators() []actuators.ActuatorStatus {
	g := r.rctx.Graph()
	served := r.served()
	out := make([]actuators.ActuatorStatus, 0, len(r.order))
	for _, a := range r.order {
		st := actuators.ActuatorStatus{Name: a.cfg.Name, Kind: a.cfg.Kind, Action: a.cfg.Action, Connected: true}
		if err := r.ambiguity(g, a); err != nil {
			st.Ambiguous = err.Error()
		}
		var why []string
		for _, l := range a.lanes {
			st.Foreign += l.client.Foreign()
			if a.cfg.ServerNode != "" {
				if _, found, _ := r.goalServer(g, a, l); !found && served[l.sendGoal] && st.Ambiguous == "" {
					st.Connected = false
					why = append(why, "node "+a.cfg.ServerNode+" (server_node) serves no "+l.action)
				}
			}
			if !served[l.sendGoal] {
				st.Connected = false
				why = append(why, "no action server for "+l.action+" discovered")
			}
		}
		if a.drive != nil {
			if st.Action == "" {
				st.Action = a.cfg.CmdVelTopic
			}
			if ok, w := a.drive.status(); !ok {
				st.Connected = false
				why = append(why, w)
			}
		}
		st.Detail = strings.Join(why, "; ")
		out = append(out, st)
	}
	return out
}

// Connected reports whether discovery has found the server of at least
// one configured action, or a subscriber of a drive's cmd_vel: the
// robot's graph is reachable.
func (r *Robot) Connected() bool {
	served := r.served()
	for _, a := range r.order {
		for _, l := range a.lanes {
			if served[l.sendGoal] {
				return true
			}
		}
		if a.drive != nil {
			if ok, _ := a.drive.status(); ok {
				return true
			}
		}
	}
	return false
}

// Peers is how many other DDS participants discovery knows now: none
// means a wrong domain, discovery range or network rather than a robot
// that serves nothing yet.
func (r *Robot) Peers() int { return len(r.rctx.Participant().Participants()) }

// DiscoveryAdvice says which participants discovery cannot reach and
// what to set, or "" (node.Context.Advice).
func (r *Robot) DiscoveryAdvice() string { return r.rctx.Advice() }

// Joints returns the newest readings of every joint_states topic.
func (r *Robot) Joints() actuators.JointsSnapshot {
	var s actuators.JointsSnapshot
	for _, c := range r.joints {
		rs, at, _ := c.load()
		s.Joints = append(s.Joints, rs...)
		if at.After(s.Received) {
			s.Received = at
		}
	}
	return s
}

// jointPosition is a joint's newest position from any joint_states topic.
func (r *Robot) jointPosition(joint string) (float64, bool) {
	for _, c := range r.joints {
		rs, _, _ := c.load()
		for _, j := range rs {
			if j.Name == joint {
				return j.Position, true
			}
		}
	}
	return 0, false
}

// FreshJoints returns the newest joint states once each joint_states
// topic's is current by the freshness rule (actuators.Cadence): it waits
// (bounded by ctx and actuators.FreshWait) only on a topic whose newest
// message is older than the topic's bound.
func (r *Robot) FreshJoints(ctx context.Context) actuators.JointsSnapshot {
	ctx, cancel := context.WithTimeout(ctx, actuators.FreshWait)
	defer cancel()
	stale := false
	for _, c := range r.joints {
		if !c.current(ctx) {
			stale = true
		}
	}
	s := r.Joints()
	s.Stale = stale
	return s
}

// Odom returns a base's newest odometry pose; false when it has no
// odom_topic, or no fresh pose.
func (r *Robot) Odom(base string) (actuators.Pose2D, bool) {
	a := r.acts[base]
	if a == nil || a.odom == nil {
		return actuators.Pose2D{}, false
	}
	return a.odom.pose()
}

// SetObserver installs the receiver of goal updates.
func (r *Robot) SetObserver(f func(actuators.GoalUpdate)) { r.notify.SetObserver(f) }

// Robot implements the motion contract.
var _ actuators.Robot = (*Robot)(nil)

// ActionType is the ROS 2 action type the transport drives the actuator
// with ("control_msgs/action/FollowJointTrajectory"), once the config's
// defaults are applied; "" for an actuator without an action.
func ActionType(a config.ActuatorConfig) (string, error) {
	if a.Action == "" {
		return "", nil
	}
	var r Robot // codecOf reads nothing of it
	c, err := r.codecOf(a)
	if err != nil {
		return "", err
	}
	return c.actionType(), nil
}
