package ros2

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/ros2/node"
	"github.com/actbridge/actbridge/rtps/wire"
)

// jointStateType is what joint_state_broadcaster publishes.
const jointStateType = "sensor_msgs/msg/JointState"

// jointCache keeps the newest JointState of one topic.
type jointCache struct {
	mu       sync.Mutex
	readings []actuators.JointReading
	at       time.Time
	changed  chan struct{} // closed and replaced on every message
	cadence  actuators.Cadence
	waits    atomic.Int64 // FreshJoints waits for a new message (tests)
}

func newJointCache() *jointCache { return &jointCache{changed: make(chan struct{})} }

// subscribe reads topic newest-only until ctx ends (takeNewest).
func (c *jointCache) subscribe(ctx context.Context, n *node.Node, topic string, wg *sync.WaitGroup, from func(wire.GUIDPrefix) bool) error {
	return takeNewest(ctx, n, topic, jointStateType, wg, from, func(m *cdr.Message, at time.Time) { c.store(jointReadings(m), at) })
}

// jointReadings reads a JointState; missing velocities or efforts are zero.
func jointReadings(m *cdr.Message) []actuators.JointReading {
	names, _ := m.Get("name").([]string)
	pos, _ := m.Get("position").([]float64)
	vel, _ := m.Get("velocity").([]float64)
	eff, _ := m.Get("effort").([]float64)
	at := func(xs []float64, i int) float64 {
		if i < len(xs) {
			return xs[i]
		}
		return 0
	}
	out := make([]actuators.JointReading, 0, len(names))
	for i, name := range names {
		if i >= len(pos) {
			break // a joint without a position is no reading
		}
		out = append(out, actuators.JointReading{Name: name, Position: pos[i], Velocity: at(vel, i), Effort: at(eff, i)})
	}
	return out
}

func (c *jointCache) store(r []actuators.JointReading, at time.Time) {
	c.cadence.Observe(at)
	c.mu.Lock()
	c.readings, c.at = r, at
	close(c.changed)
	c.changed = make(chan struct{})
	c.mu.Unlock()
}

func (c *jointCache) load() ([]actuators.JointReading, time.Time, <-chan struct{}) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.readings, c.at, c.changed
}

// current waits (bounded by ctx) for a message received after the call
// only when the newest is older than the topic's freshness bound; false
// when it waited and none came.
func (c *jointCache) current(ctx context.Context) bool {
	_, at, changed := c.load()
	if c.cadence.Current(at, time.Now()) {
		return true
	}
	c.waits.Add(1)
	select {
	case <-changed:
		return true
	case <-ctx.Done():
		return false
	}
}
