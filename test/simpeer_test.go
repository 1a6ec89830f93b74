package test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/ros2/node"
	"github.com/actbridge/actbridge/ros2/param"
	"github.com/actbridge/actbridge/ros2/qos"
	"github.com/actbridge/actbridge/ros2/service"
)

// ros2Distro is the distro the ROS 2 worlds' sim serves and
// launch/robots/sim-ros2.yaml names.
const ros2Distro = msgs.Jazzy

// simPeerWait bounds a call to the sim's services and parameters,
// discovery of the server included.
const simPeerWait = 20 * time.Second

// simPeer is the test's own participant on a ROS 2 world's domain,
// through our ROS 2 client layer: it calls the sim's Trigger services
// (goal log, faults), sets its fault parameters and counts the base's
// velocity commands, as the ROS 1 worlds do through goroslib.
type simPeer struct {
	ctx    *node.Context
	set    *msgs.Set
	params *param.Client

	mu           sync.Mutex
	triggers     map[string]*service.Client
	triggerTypes service.Types
	node         *node.Node // the test's node, for subscriptions
}

// simPeer is the world's simPeer, made on first use and closed with the test.
func (w *world) simPeer() *simPeer {
	w.t.Helper()
	if w.peer != nil {
		return w.peer
	}
	c, err := node.NewContext(context.Background(), node.Options{Distro: ros2Distro,
		Discovery: node.Discovery{Domain: w.domain, Range: node.Localhost}})
	if err != nil {
		w.t.Fatal(err)
	}
	p := &simPeer{ctx: c, triggers: map[string]*service.Client{}}
	w.t.Cleanup(p.close)
	if p.set, err = msgs.Load(ros2Distro); err != nil {
		w.t.Fatal(err)
	}
	if p.triggerTypes, err = service.ResolveTypes(p.set, "std_srvs/srv/Trigger"); err != nil {
		w.t.Fatal(err)
	}
	if p.params, err = param.NewClient(c.Participant(), p.set, "/simrobot", service.Options{}); err != nil {
		w.t.Fatal(err)
	}
	w.peer = p
	return p
}

func (p *simPeer) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.triggers {
		c.Close()
	}
	if p.params != nil {
		p.params.Close()
	}
	p.ctx.Close()
}

// trigger calls a std_srvs/srv/Trigger service and returns its message;
// the service's client is kept for the next call.
func (p *simPeer) trigger(t *testing.T, name string) string {
	t.Helper()
	p.mu.Lock()
	c, ok := p.triggers[name]
	if !ok {
		var err error
		if c, err = service.NewClient(p.ctx.Participant(), p.triggerTypes, name, service.Options{}); err != nil {
			p.mu.Unlock()
			t.Fatal(err)
		}
		p.triggers[name] = c
	}
	p.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), simPeerWait)
	defer cancel()
	if _, err := c.WaitServer(ctx); err != nil {
		t.Fatalf("%s: no server: %v", name, err)
	}
	rep, err := c.Call(ctx, cdr.Zero(p.triggerTypes.Request))
	if err != nil || rep.Get("success") != true {
		t.Fatalf("%s: %v %v", name, err, rep)
	}
	return rep.Get("message").(string)
}

// setFault sets the sim node's parameter faults.<key with dots>; apply_faults
// puts it in force.
func (p *simPeer) setFault(t *testing.T, key string, v any) {
	t.Helper()
	if i, ok := v.(int); ok {
		v = int64(i)
	}
	name := "faults." + strings.ReplaceAll(key, "/", ".")
	ctx, cancel := context.WithTimeout(context.Background(), simPeerWait)
	defer cancel()
	for {
		res, err := p.params.Set(ctx, param.Parameter{Name: name, Value: param.Value{V: v}})
		if err == nil {
			if !res[0].Successful {
				t.Fatalf("set %s: %s", name, res[0].Reason)
			}
			return
		}
		// Until discovery matched the parameter service, nothing is sent.
		if !errors.Is(err, service.ErrNoServer) || ctx.Err() != nil {
			t.Fatalf("set %s: %v", name, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// ownNode is the test's node on the domain, made on first use; p.mu is held.
func (p *simPeer) ownNode(t *testing.T) *node.Node {
	t.Helper()
	if p.node == nil {
		var err error
		if p.node, err = p.ctx.NewNode("e2e", "/"); err != nil {
			t.Fatal(err)
		}
	}
	return p.node
}

// cmdVelTopic is diff_drive_controller's command input as the ROS 2 sim serves it.
const cmdVelTopic = "/diff_drive_controller/cmd_vel"

// countCmdVel counts the geometry_msgs/msg/TwistStamped messages on
// cmdVelTopic from now until t ends; the returned func reads the count.
func (p *simPeer) countCmdVel(t *testing.T) func() int64 {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	s, err := p.ownNode(t).NewSubscription(cmdVelTopic, "geometry_msgs/msg/TwistStamped", qos.Default, node.SubscriptionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var n atomic.Int64
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { // owned by t: its cleanup cancels and waits
		defer close(done)
		for {
			_, _, err := s.Take(ctx)
			if ctx.Err() != nil || errors.Is(err, node.ErrClosed) {
				return
			}
			if err == nil {
				n.Add(1)
			}
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
	return n.Load
}

// domainPool hands each ROS 2 world a domain of its own, so a world's
// sim never hears an earlier world's participants: domains go round
// (1..232: 232 is the last whose ports fit), and one is handed out again
// only once its world has ended and the others were used.
type domainPool struct {
	mu   sync.Mutex
	used map[int]bool
	last int
}

// domains is this test process's pool.
var domains domainPool

// take reserves the next free domain until t ends.
func (d *domainPool) take(t *testing.T) int {
	t.Helper()
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.used == nil {
		d.used = map[int]bool{}
	}
	for i := range 232 {
		id := (d.last+i)%232 + 1
		if !d.used[id] {
			d.used[id], d.last = true, id
			t.Cleanup(func() {
				d.mu.Lock()
				defer d.mu.Unlock()
				delete(d.used, id)
			})
			return id
		}
	}
	t.Fatal("no free ROS 2 domain")
	return 0
}

// jointPositions takes the next sensor_msgs/msg/JointState the sim
// publishes on /joint_states (best effort, so any publisher's QoS
// matches) and returns its positions by joint name.
func (p *simPeer) jointPositions(t *testing.T) map[string]float64 {
	t.Helper()
	p.mu.Lock()
	s, err := p.ownNode(t).NewSubscription("/joint_states", "sensor_msgs/msg/JointState", qos.SensorData, node.SubscriptionOptions{})
	p.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), simPeerWait)
	defer cancel()
	m, _, err := s.Take(ctx)
	if err != nil {
		t.Fatalf("/joint_states: %v", err)
	}
	names, _ := m.Get("name").([]string)
	pos, _ := m.Get("position").([]float64)
	if len(names) != len(pos) {
		t.Fatalf("/joint_states: %d names, %d positions", len(names), len(pos))
	}
	out := map[string]float64{}
	for i, n := range names {
		out[n] = pos[i]
	}
	return out
}
