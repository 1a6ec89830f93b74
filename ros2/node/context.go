package node

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"

	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/ros2/graph"
	"github.com/actbridge/actbridge/ros2/names"
	"github.com/actbridge/actbridge/ros2/qos"
	"github.com/actbridge/actbridge/rtps"
	"github.com/actbridge/actbridge/rtps/wire"
)

// Options configure a Context.
type Options struct {
	// Distro chooses the message definitions and the wire details that
	// differ between distros (Gid size, typehash user data).
	Distro    msgs.Distro
	Discovery Discovery
	// Remap holds `--ros-args -r` rules for every node of the Context.
	Remap names.Remap
	// QoS overrides, by fully qualified topic name after remapping
	// ("/joint_states"), change the profile a publisher or subscription of
	// that topic is created with (from config, say).
	QoS map[string]qos.Override
	// Enclave is announced in the participant's user data; default "/".
	Enclave string
	// Logger gets debug logs; nil means none.
	Logger *slog.Logger
}

// Context is one DDS participant shared by any number of nodes, as an
// rclcpp context is. It announces its nodes on ros_discovery_info and
// keeps everyone else's for the graph. Close it to leave the graph.
type Context struct {
	p      *rtps.Participant
	disc   Discovery
	distro msgs.Distro
	remap  names.Remap
	qos    map[string]qos.Override
	log    *slog.Logger
	codec  *graph.Codec
	infoW  *rtps.Writer
	infoR  *rtps.Reader

	setMu sync.Mutex // a msgs.Set caches and is not safe for concurrent use
	set   *msgs.Set

	infoMu sync.Mutex // orders our ros_discovery_info writes

	mu      sync.Mutex
	closed  bool
	nodes   []*Node
	local   map[wire.GUID]rtps.EndpointData // registered endpoints of our nodes
	infos   map[wire.GUIDPrefix]graph.ParticipantInfo
	changed chan struct{} // closed and replaced on every graph change

	// gen counts changes of what the graph is built from (our nodes and
	// endpoints, announcements, discovery); built is the graph of
	// generation builtGen, kept so that Graph costs nothing until the next.
	gen, builtGen uint64
	built         graph.Graph

	stop context.CancelFunc
	wg   sync.WaitGroup
}

// NewContext loads the distro's definitions, starts the participant and
// announces it (no nodes yet). ctx bounds the setup only.
func NewContext(ctx context.Context, o Options) (*Context, error) {
	set, err := msgs.Load(o.Distro)
	if err != nil {
		return nil, err
	}
	s, err := set.Struct(graph.InfoTypeName)
	if err != nil {
		return nil, err
	}
	codec, err := graph.NewCodec(s)
	if err != nil {
		return nil, err
	}
	cfg, err := o.Discovery.Config(ctx)
	if err != nil {
		return nil, err
	}
	if o.Enclave == "" {
		o.Enclave = "/"
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	cfg.UserData, cfg.Logger = graph.ParticipantUserData(o.Enclave), o.Logger
	c := &Context{disc: o.Discovery, distro: o.Distro, remap: o.Remap, qos: maps.Clone(o.QoS), log: o.Logger, codec: codec, set: set,
		local: map[wire.GUID]rtps.EndpointData{}, infos: map[wire.GUIDPrefix]graph.ParticipantInfo{}, changed: make(chan struct{}), gen: 1}
	if c.p, err = rtps.NewParticipant(ctx, cfg); err != nil {
		return nil, err
	}
	ud, err := c.TypeUserData(graph.InfoTypeName)
	if err != nil {
		c.p.Close()
		return nil, err
	}
	// rmw: the writer keeps the last announcement for late joiners, readers keep all.
	info := rtps.EndpointData{Topic: graph.InfoTopic, Type: graph.InfoType, UserData: ud,
		QoS: rtps.QoS{Reliability: rtps.Reliable, Durability: rtps.TransientLocal, History: rtps.KeepLast, Depth: 1}}
	if c.infoW, err = c.p.NewWriter(info); err == nil {
		info.QoS.History, info.QoS.Depth = rtps.KeepAll, 0
		c.infoR, err = c.p.NewReader(info)
	}
	if err == nil {
		err = c.publishInfo()
	}
	if err != nil {
		c.p.Close()
		return nil, err
	}
	run, stop := context.WithCancel(context.Background())
	c.stop = stop
	c.wg.Add(2)
	go c.readInfos(run)
	go c.watchDiscovery(run)
	return c, nil
}

// Distro is the distro the Context speaks.
func (c *Context) Distro() msgs.Distro { return c.distro }

// Participant is the DDS participant, for layers that make endpoints of
// their own (services, actions); they announce them with Node.Register.
func (c *Context) Participant() *rtps.Participant { return c.p }

// Struct resolves a ROS type of the distro ("sensor_msgs/msg/JointState");
// a type the distro lacks is an error naming it (ErrType and
// msgs.ErrNotInDistro).
func (c *Context) Struct(rosType string) (*cdr.Struct, error) {
	c.setMu.Lock()
	defer c.setMu.Unlock()
	s, err := c.set.Struct(rosType)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrType, err)
	}
	return s, nil
}

// TypeHash is the RIHS01 hash of rosType in the distro's definitions (as
// Iron and later announce it; computed for Humble too).
func (c *Context) TypeHash(rosType string) (string, error) {
	c.setMu.Lock()
	defer c.setMu.Unlock()
	h, err := c.set.TypeHash(rosType)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrType, err)
	}
	return h, nil
}

// TypeUserData is the user data rmw gives an endpoint of rosType:
// "typehash=RIHS01_…;" from Iron on, none on Humble. A service or action
// type ("std_srvs/srv/Trigger") gets the hash of the whole interface.
func (c *Context) TypeUserData(rosType string) ([]byte, error) {
	if c.distro == msgs.Humble {
		return nil, nil
	}
	h, err := c.TypeHash(rosType)
	if err != nil {
		return nil, err
	}
	return graph.EndpointUserData(h), nil
}

// ownInfo is our ros_discovery_info sample; c.mu must be held.
func (c *Context) ownInfo() graph.ParticipantInfo {
	info := graph.ParticipantInfo{GID: c.p.GUID()}
	for _, n := range c.nodes {
		info.Nodes = append(info.Nodes, graph.NodeInfo{Namespace: n.ns, Name: n.name,
			Readers: slices.Clone(n.readers), Writers: slices.Clone(n.writers)})
	}
	return info
}

// publishInfo announces our nodes and their endpoints again, as rmw does
// after every change.
func (c *Context) publishInfo() error {
	c.infoMu.Lock()
	defer c.infoMu.Unlock()
	c.mu.Lock()
	info := c.ownInfo()
	c.notify()
	c.mu.Unlock()
	b, err := c.codec.Encode(info)
	if err != nil {
		return err
	}
	return c.infoW.Write(b, nil)
}

// notify marks the graph changed and wakes graph waiters; c.mu must be held.
func (c *Context) notify() {
	c.stale()
	close(c.changed)
	c.changed = make(chan struct{})
}

// stale drops the graph kept: what it is built from changed; c.mu must
// be held. Changes to our nodes call it at once, not only when
// publishInfo notifies, as Graph shows them at once.
func (c *Context) stale() { c.gen++ }

// readInfos keeps the latest ros_discovery_info of every other participant.
func (c *Context) readInfos(ctx context.Context) {
	defer c.wg.Done()
	self := c.p.GUID().Prefix
	for {
		s, err := c.infoR.Take(ctx)
		if err != nil {
			return
		}
		if s.Writer.Prefix == self {
			continue
		}
		info, err := c.codec.Decode(s.Payload)
		if err == nil && info.GID.Prefix != s.Writer.Prefix {
			err = fmt.Errorf("announces participant %v", info.GID)
		}
		if err != nil {
			c.log.Debug("node: ros_discovery_info", "writer", s.Writer, "err", err)
			continue
		}
		c.mu.Lock()
		c.infos[s.Writer.Prefix] = info
		c.notify()
		c.mu.Unlock()
	}
}

// watchDiscovery turns changes of the participants and endpoints known
// into graph changes, and forgets the announcements of participants gone.
// The participant wakes it on any change of its own (an acknowledgement
// too); only a change of what graph.Build reads counts.
func (c *Context) watchDiscovery(ctx context.Context) {
	defer c.wg.Done()
	var lastParts []rtps.ParticipantData
	var lastEps []rtps.EndpointData
	first := true
	for {
		_, err := c.p.WaitEndpoints(ctx, func(eps []rtps.EndpointData) bool {
			parts := c.p.Participants()
			if !first && slices.EqualFunc(parts, lastParts, sameParticipant) && slices.EqualFunc(eps, lastEps, sameEndpoint) {
				return false
			}
			first, lastParts, lastEps = false, parts, eps
			return true
		})
		if err != nil {
			return
		}
		known := map[wire.GUIDPrefix]bool{}
		for _, p := range lastParts {
			known[p.Prefix] = true
		}
		c.mu.Lock()
		for k := range c.infos {
			if !known[k] {
				delete(c.infos, k)
			}
		}
		c.notify()
		c.mu.Unlock()
	}
}

// sameParticipant and sameEndpoint compare what graph.Build reads of a
// participant and an endpoint: a remote that announces itself again with
// other user data or QoS changes the graph as one that comes or goes.
func sameParticipant(a, b rtps.ParticipantData) bool {
	return a.Prefix == b.Prefix && a.Vendor == b.Vendor && bytes.Equal(a.UserData, b.UserData)
}

func sameEndpoint(a, b rtps.EndpointData) bool {
	return a.GUID == b.GUID && a.Writer == b.Writer && a.Topic == b.Topic && a.Type == b.Type &&
		a.QoS == b.QoS && a.Vendor == b.Vendor && bytes.Equal(a.UserData, b.UserData)
}

// Graph returns the graph as known now: other participants' and ours.
// It is built once per change and shared by every caller until the next:
// read it, never modify its slices.
func (c *Context) Graph() graph.Graph {
	c.mu.Lock()
	gen := c.gen
	if c.builtGen == gen {
		defer c.mu.Unlock()
		return c.built
	}
	c.mu.Unlock()
	parts := append(c.p.Participants(), c.p.Data())
	eps := c.p.Endpoints()
	c.mu.Lock()
	defer c.mu.Unlock()
	g := c.graph(parts, eps)
	if c.gen == gen {
		c.built, c.builtGen = g, gen
	}
	return g
}

// graph builds the graph; c.mu must be held.
func (c *Context) graph(parts []rtps.ParticipantData, eps []rtps.EndpointData) graph.Graph {
	for _, e := range c.local {
		eps = append(eps, e)
	}
	infos := []graph.ParticipantInfo{c.ownInfo()}
	for _, i := range c.infos {
		infos = append(infos, i)
	}
	return graph.Build(parts, eps, infos)
}

// WaitGraph waits until cond holds for the graph, checking at every
// change, and returns it (shared, as Graph's is). It fails with ctx's
// error or ErrClosed.
func (c *Context) WaitGraph(ctx context.Context, cond func(graph.Graph) bool) (graph.Graph, error) {
	for {
		c.mu.Lock()
		ch, closed := c.changed, c.closed
		c.mu.Unlock()
		g := c.Graph()
		if cond(g) {
			return g, nil
		}
		if closed {
			return g, ErrClosed
		}
		select {
		case <-ctx.Done():
			return g, ctx.Err()
		case <-ch:
		}
	}
}

// Watch sends the graph now and after every change (a slow receiver gets
// the newest; shared, as Graph's is); the channel is closed when ctx ends
// or the Context closes.
func (c *Context) Watch(ctx context.Context) <-chan graph.Graph {
	out := make(chan graph.Graph)
	go func() {
		defer close(out)
		for {
			c.mu.Lock()
			ch, closed := c.changed, c.closed
			c.mu.Unlock()
			select {
			case out <- c.Graph():
			case <-ctx.Done():
				return
			}
			if closed {
				return
			}
			select {
			case <-ch:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out
}

// Close closes every node and their endpoints, and the participant,
// which says goodbye.
func (c *Context) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	nodes := slices.Clone(c.nodes)
	c.mu.Unlock()
	var errs []error
	for _, n := range nodes {
		errs = append(errs, n.Close())
	}
	c.mu.Lock()
	c.closed = true
	c.notify()
	c.mu.Unlock()
	c.stop()
	errs = append(errs, c.p.Close())
	c.wg.Wait()
	return errors.Join(errs...)
}
