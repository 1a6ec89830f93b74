package ros1

import (
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgproc"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/sensor_msgs"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/ros1/tcpros"
)

// jointStatesEvery is the shortest gap between two joint_states messages
// taken from one publisher. Each wake-up of the process costs ~150 µs of
// CPU on a small VM (scheduler, sysmon, epoll), so 1,000 a second cost
// several times the ingest budget; at 50 ms the cached state is at most
// that much older than the newest on the wire, and its receive time (the
// read) understates its age by at most that much.
// Robot.FreshJoints reads the wire at once for callers about to act.
const jointStatesEvery = 50 * time.Millisecond

// freshJointsWait bounds FreshJoints' read of the wire: the rule's wait,
// the same on both transports.
const freshJointsWait = actuators.FreshWait

// subscribeJointStates feeds cache and the topic's taps over raw TCPROS
// with a hand-written decoder: goroslib's subscriber (reflection decoding,
// a goroutine hop, a read per message) cost ~15 % of a core at 1 kHz. It
// registers under our node's name and URI, so ROS tools list our node.
func (r *Robot) subscribeJointStates(topic string, cache *jointCache) (func(), error) {
	var zero sensor_msgs.JointState
	typ, err1 := msgproc.Type(zero)
	md5, err2 := msgproc.MD5(zero)
	def, err3 := msgproc.Definition(zero)
	if err := errors.Join(err1, err2, err3); err != nil {
		return nil, fmt.Errorf("sensor_msgs/JointState: %w", err)
	}
	var bad atomic.Bool // log a run of undecodable messages once
	sub, err := tcpros.Subscribe(r.life, tcpros.Config{
		Master: r.bus.master, CallerID: r.bus.name, Topic: topic,
		Type: typ, MD5: md5, Definition: def, Every: r.jointEvery, Logf: r.logf, Count: cache.counted,
	}, func(b []byte) {
		m, err := decodeJointState(b)
		if err != nil {
			if !bad.Swap(true) {
				r.logf("%s: dropping messages that do not decode: %v", topic, err)
			}
			return
		}
		if bad.Load() {
			bad.Store(false)
		}
		cache.store(m)
		r.subs.deliver(topic, m)
	})
	if err != nil {
		return nil, err
	}
	release := r.subs.own(topic)
	unfollow := cache.follow(sub)
	return func() {
		unfollow()
		_ = sub.Close() // a master that is gone has forgotten us anyway
		release()
	}, nil
}
