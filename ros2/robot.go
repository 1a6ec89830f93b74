package ros2

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/config"
	"github.com/actbridge/actbridge/ros2/action"
	"github.com/actbridge/actbridge/ros2/msgs"
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
}

// Robot is the ROS 2 side of the bridge: one participant (a node named
// after the config's node_name), one action client per arm with the
// bridge's goal UUIDs, and the newest joint states. Close it when done.
type Robot struct {
	cfg    config.Config
	log    *slog.Logger
	rctx   *node.Context
	node   *node.Node
	notify *actuators.Notifier
	access access // topics, parameters and services: topics.go, params.go, services.go

	arms  map[string]*arm
	order []*arm // config order
	// goalT is the arms' goal type from the definitions the action
	// clients were made with: SendGoal takes no other.
	goalT  *cdr.Struct
	joints []*jointCache

	mu    sync.Mutex
	goals map[string]*goal // every goal sent or tracked, by goal id

	life context.Context
	stop context.CancelFunc
	wg   sync.WaitGroup
}

// arm is one configured arm and its action client.
type arm struct {
	cfg      config.ActuatorConfig
	client   *action.Client
	sendGoal string // the action's send_goal service, looked up in the graph
	joints   map[string]bool
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
	r := &Robot{cfg: c, log: o.Logger, rctx: rctx, notify: actuators.NewNotifier(), arms: map[string]*arm{}, goals: map[string]*goal{}}
	r.life, r.stop = context.WithCancel(context.Background())
	if err := r.setup(distro); err != nil {
		r.Close()
		return nil, err
	}
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		r.notify.Run(r.life)
	}()
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
	set, err := msgs.Load(distro) // read by the action clients while they are made only
	if err != nil {
		return err
	}
	if r.goalT, err = set.Struct(followJointTrajectory + "_Goal"); err != nil {
		return err
	}
	caches := map[string]*jointCache{}
	for _, ac := range r.cfg.Actuators {
		if ac.Kind != actuators.KindArm {
			return fmt.Errorf("%w: %s: transport ros2 does not serve a %s yet", config.ErrConfig, ac.Name, ac.Kind)
		}
		an, err := names.ActionNames(ac.Action)
		if err != nil {
			return fmt.Errorf("%w: %s: action: %w", config.ErrConfig, ac.Name, err)
		}
		cl, err := action.NewClient(r.rctx.Participant(), set, ac.Action, followJointTrajectory, service.Options{Endpoints: n.Announce, Logger: r.log})
		if err != nil {
			return fmt.Errorf("ros2: %s: %w", ac.Name, err)
		}
		a := &arm{cfg: ac, client: cl, sendGoal: an.SendGoal, joints: map[string]bool{}}
		for _, j := range ac.Joints {
			a.joints[j] = true
		}
		r.arms[ac.Name] = a
		r.order = append(r.order, a)
		if caches[ac.JointStatesTopic] == nil {
			jc := newJointCache()
			if err := jc.subscribe(r.life, n, ac.JointStatesTopic, &r.wg); err != nil {
				return fmt.Errorf("ros2: %s: %w", ac.JointStatesTopic, err)
			}
			caches[ac.JointStatesTopic] = jc
			r.joints = append(r.joints, jc)
		}
	}
	return nil
}

// Close cancels nothing on the robot: goals run on, and a new process
// re-attaches with Track. It leaves the graph.
func (r *Robot) Close() error {
	r.mu.Lock() // Send and Track add to wg under mu only while life lasts
	r.stop()
	r.mu.Unlock()
	var errs []error
	for _, a := range r.order {
		errs = append(errs, a.client.Close())
	}
	r.wg.Wait()
	errs = append(errs, r.access.close())
	if r.node != nil {
		errs = append(errs, r.node.Close())
	}
	errs = append(errs, r.rctx.Close())
	return errors.Join(errs...)
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

// Actuators reports each arm as connected when the graph lists a server
// of its action's send_goal service.
func (r *Robot) Actuators() []actuators.ActuatorStatus {
	served := r.served()
	out := make([]actuators.ActuatorStatus, 0, len(r.order))
	for _, a := range r.order {
		st := actuators.ActuatorStatus{Name: a.cfg.Name, Kind: a.cfg.Kind, Action: a.cfg.Action, Connected: served[a.sendGoal]}
		if !st.Connected {
			st.Detail = "no action server for " + a.cfg.Action + " discovered"
		}
		out = append(out, st)
	}
	return out
}

// Connected reports whether discovery has found the server of at least
// one configured action: the robot's graph is reachable.
func (r *Robot) Connected() bool {
	served := r.served()
	for _, a := range r.order {
		if served[a.sendGoal] {
			return true
		}
	}
	return false
}

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

// FreshJoints waits (bounded by ctx and half a second) until every
// joint_states topic delivered a message after the call.
func (r *Robot) FreshJoints(ctx context.Context) actuators.JointsSnapshot {
	ctx, cancel := context.WithTimeout(ctx, freshJointsWait)
	defer cancel()
	for _, c := range r.joints {
		_, _, changed := c.load()
		select {
		case <-changed:
		case <-ctx.Done():
		}
	}
	return r.Joints()
}

// Odom: no base is served over ROS 2 yet.
func (r *Robot) Odom(string) (actuators.Pose2D, bool) { return actuators.Pose2D{}, false }

// SetObserver installs the receiver of goal updates.
func (r *Robot) SetObserver(f func(actuators.GoalUpdate)) { r.notify.SetObserver(f) }

// Robot implements the motion contract.
var _ actuators.Robot = (*Robot)(nil)
