package ros1

import (
	"context"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/nav_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/sensor_msgs"

	"github.com/actbridge/actbridge/actuators"
)

// odomStale: Odom reports no pose when the last /odom is older than this.
const odomStale = 2 * time.Second

// jointCache keeps the latest joint_states message and when it was read.
// Every message is decoded into a fresh value that nobody changes, so
// keeping the pointer costs no copy and readers may keep it.
type jointCache struct {
	mu  sync.Mutex
	msg *sensor_msgs.JointState
	at  time.Time
	// fresher is the current subscription (nil while none): the cache is
	// refreshed every jointStatesEvery, a fresher reads the wire now.
	fresher fresher
	cadence actuators.Cadence // of the publisher's messages, not of the reads
	waits   atomic.Int64      // refreshes FreshJoints asked for (tests)
}

// fresher waits until a message read after the call reached the cache.
type fresher interface {
	Fresh(ctx context.Context) error
}

// follow makes f the cache's fresher; the returned func removes it unless
// a newer subscription replaced it meanwhile.
func (c *jointCache) follow(f fresher) (remove func()) {
	c.mu.Lock()
	c.fresher = f
	c.mu.Unlock()
	return func() {
		c.mu.Lock()
		if c.fresher == f {
			c.fresher = nil
		}
		c.mu.Unlock()
	}
}

// current reads the wire (bounded by ctx) only when the newest message
// is older than the topic's freshness bound; false when it is still.
// With no subscription or no publisher the cache stays as it is.
func (c *jointCache) current(ctx context.Context) bool {
	c.mu.Lock()
	f, at := c.fresher, c.at
	c.mu.Unlock()
	if c.cadence.Current(at, time.Now()) {
		return true
	}
	c.waits.Add(1)
	if f != nil {
		_ = f.Fresh(ctx) // silence shows as the age checked below
	}
	_, at2 := c.load()
	return at2.After(at)
}

// counted learns the publisher's period from a batch of n messages read
// now (the reads are paced: their own gaps are not the topic's).
func (c *jointCache) counted(n int) { c.cadence.ObserveBatch(time.Now(), n) }

func (c *jointCache) store(m *sensor_msgs.JointState) {
	now := time.Now()
	c.mu.Lock()
	c.msg, c.at = m, now
	c.mu.Unlock()
}

func (c *jointCache) load() (*sensor_msgs.JointState, time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.msg, c.at
}

// position returns one joint's latest position.
func (c *jointCache) position(name string) (float64, bool) {
	m, _ := c.load()
	if m == nil {
		return 0, false
	}
	for i, n := range m.Name {
		if n == name && i < len(m.Position) {
			return m.Position[i], true
		}
	}
	return 0, false
}

// odomCache keeps the latest odometry message.
type odomCache struct {
	frame string // used when the message has no frame_id
	mu    sync.Mutex
	msg   *nav_msgs.Odometry
	at    time.Time
}

func (c *odomCache) store(m *nav_msgs.Odometry) {
	now := time.Now()
	c.mu.Lock()
	c.msg, c.at = m, now
	c.mu.Unlock()
}

// pose returns the latest pose, when there is one younger than odomStale.
func (c *odomCache) pose() (actuators.Pose2D, time.Time, bool) {
	c.mu.Lock()
	m, at := c.msg, c.at
	c.mu.Unlock()
	if m == nil {
		return actuators.Pose2D{}, time.Time{}, false
	}
	frame := m.Header.FrameId
	if frame == "" {
		frame = c.frame
	}
	p, q := m.Pose.Pose.Position, m.Pose.Pose.Orientation
	yaw := math.Atan2(2*(q.W*q.Z+q.X*q.Y), 1-2*(q.Y*q.Y+q.Z*q.Z))
	return actuators.Pose2D{Frame: frame, X: p.X, Y: p.Y, Yaw: yaw}, at, time.Since(at) <= odomStale
}

// mergeJoints builds a snapshot from several joint_states caches: joints in
// topic order, the first reading of a name wins, and Received is the oldest
// topic's time (zero if any topic has nothing yet), so staleness is never
// understated.
func mergeJoints(caches []*jointCache) actuators.JointsSnapshot {
	var snap actuators.JointsSnapshot
	var oldest time.Time
	complete := true
	seen := map[string]bool{}
	for _, c := range caches {
		m, at := c.load()
		if m == nil {
			complete = false
			continue
		}
		if oldest.IsZero() || at.Before(oldest) {
			oldest = at
		}
		for k, name := range m.Name {
			if seen[name] {
				continue
			}
			seen[name] = true
			snap.Joints = append(snap.Joints, actuators.JointReading{
				Name: name, Position: at0(m.Position, k), Velocity: at0(m.Velocity, k), Effort: at0(m.Effort, k),
			})
		}
	}
	if complete {
		snap.Received = oldest
	}
	return snap
}

func at0(xs []float64, i int) float64 {
	if i < len(xs) {
		return xs[i]
	}
	return 0
}
