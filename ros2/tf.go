package ros2

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/kinematics"
	"github.com/actbridge/actbridge/ros2/graph"
	"github.com/actbridge/actbridge/ros2/node"
	"github.com/actbridge/actbridge/ros2/qos"
	"github.com/actbridge/actbridge/rtps"
	"github.com/actbridge/actbridge/rtps/wire"
	"github.com/actbridge/actbridge/tf"
)

// The frame tree's default topics (config's tf_topic and tf_static_topic
// name others) and type, and the QoS tf2_ros's listener reads them with:
// /tf reliable and volatile, /tf_static reliable and transient-local (so a
// late reader gets every static broadcaster's transforms), each keep-last
// 100.
const (
	TopicTF       = "/tf"
	TopicTFStatic = "/tf_static"
	tfMessageType = "tf2_msgs/msg/TFMessage"
	tfDepth       = 100
	// tfCheck is how often WatchTF drops the claims of publishers the
	// graph no longer lists.
	tfCheck = time.Second
	// maxTransformsPerMessage bounds what one sample may add.
	maxTransformsPerMessage = 1000
)

var (
	tfQoS       = qos.Profile{Name: "tf", QoS: rtps.QoS{Reliability: rtps.Reliable, Durability: rtps.Volatile, History: rtps.KeepLast, Depth: tfDepth}}
	tfStaticQoS = qos.Profile{Name: "tf_static", QoS: rtps.QoS{Reliability: rtps.Reliable, Durability: rtps.TransientLocal, History: rtps.KeepLast, Depth: tfDepth}}
)

// WatchTF feeds buf with every transform of the config's TF topics (/tf
// and /tf_static by default) until ctx ends. Each publisher is its
// participant ("participant <hex>"), stable while it lives; pins maps a
// child frame to the one node whose transforms of it count (others are
// dropped). Publishers the graph stops listing are forgotten every
// tfCheck, so a restarted node takes its frames back at once. Malformed
// transforms are dropped and given to bad, which is called from one
// goroutine per topic at once and must be safe for that.
func (r *Robot) WatchTF(ctx context.Context, buf *tf.Buffer, pins map[string]string, bad func(err error)) error {
	dyn, err := r.node.NewSubscription(r.cfg.TFTopic, tfMessageType, tfQoS, node.SubscriptionOptions{})
	if err != nil {
		return fmt.Errorf("ros2: %s: %w", r.cfg.TFTopic, err)
	}
	defer dyn.Close()
	static, err := r.node.NewSubscription(r.cfg.TFStaticTopic, tfMessageType, tfStaticQoS, node.SubscriptionOptions{})
	if err != nil {
		return fmt.Errorf("ros2: %s: %w", r.cfg.TFStaticTopic, err)
	}
	defer static.Close()

	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	errc := make(chan error, 2)
	for _, s := range []struct {
		sub    *node.Subscription
		static bool
	}{{dyn, false}, {static, true}} {
		wg.Go(func() { errc <- r.readTF(ctx, s.sub, s.static, buf, pins, bad) })
	}
	t := time.NewTicker(tfCheck)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case err := <-errc:
			return err
		case <-t.C:
			g := r.rctx.Graph()
			live := map[string]bool{}
			for _, topic := range []string{r.cfg.TFTopic, r.cfg.TFStaticTopic} {
				for _, s := range publishersOf(g, topic) {
					live[tfSource(s.participant)] = true
				}
			}
			for _, s := range buf.Sources() {
				if !live[s] {
					buf.Forget(s)
				}
			}
		}
	}
}

// readTF takes sub's samples into buf until ctx ends or the node closes.
func (r *Robot) readTF(ctx context.Context, sub *node.Subscription, static bool, buf *tf.Buffer, pins map[string]string, bad func(error)) error {
	for {
		m, info, err := sub.Take(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if errors.Is(err, node.ErrClosed) {
			return err
		}
		if err != nil {
			bad(fmt.Errorf("%s: %w", sub.Topic(), err))
			continue
		}
		src := tfSource(info.Writer.Prefix)
		now := time.Now()
		ts, _ := m.Get("transforms").([]*cdr.Message)
		if len(ts) > maxTransformsPerMessage {
			bad(fmt.Errorf("%s: %d transforms in one message from %s, at most %d", sub.Topic(), len(ts), src, maxTransformsPerMessage))
			continue
		}
		var g graph.Graph
		if len(pins) > 0 {
			g = r.rctx.Graph()
		}
		for _, t := range ts {
			st := stampedTransform(t)
			if pin, ok := pins[st.Child]; ok && !nodeOn(g, sub.Topic(), info.Writer.Prefix, pin) {
				continue
			}
			if err := buf.Add(st, static, src, now); err != nil {
				bad(fmt.Errorf("%s from %s: %w", sub.Topic(), src, err))
			}
		}
	}
}

// tfSource names a publisher of transforms for the buffer.
func tfSource(p wire.GUIDPrefix) string { return fmt.Sprintf("participant %x", p[:]) }

// nodeOn reports whether the graph lists node as a publisher of topic on
// participant p.
func nodeOn(g graph.Graph, topic string, p wire.GUIDPrefix, node string) bool {
	for _, s := range publishersOf(g, topic) {
		if s.participant == p && s.node == node {
			return true
		}
	}
	return false
}

// stampedTransform reads a geometry_msgs/TransformStamped; what is missing
// is zero, which Buffer.Add refuses where it matters (a zero quaternion).
func stampedTransform(m *cdr.Message) tf.Stamped {
	var st tf.Stamped
	st.Parent, st.Stamp = header(m)
	if st.Stamp.Equal(time.Unix(0, 0)) {
		st.Stamp = time.Time{} // a zero stamp, as ROS 1's reader keeps it
	}
	st.Child, _ = m.Get("child_frame_id").(string)
	if t, _ := m.Get("transform").(*cdr.Message); t != nil {
		st.Transform.Translation = vec3(t.Get("translation"))
		if q, _ := t.Get("rotation").(*cdr.Message); q != nil {
			v := vec3(q)
			w, _ := q.Get("w").(float64)
			st.Transform.Rotation = kinematics.Quat{v[0], v[1], v[2], w}
		}
	}
	return st
}

// header reads a message's std_msgs/Header: frame and stamp, zero when
// missing.
func header(m *cdr.Message) (frame string, stamp time.Time) {
	h, _ := m.Get("header").(*cdr.Message)
	if h == nil {
		return "", time.Time{}
	}
	frame, _ = h.Get("frame_id").(string)
	if s, _ := h.Get("stamp").(*cdr.Message); s != nil {
		sec, _ := s.Get("sec").(int32)
		ns, _ := s.Get("nanosec").(uint32)
		stamp = time.Unix(int64(sec), int64(ns))
	}
	return frame, stamp
}

func vec3(x any) kinematics.Vec3 {
	m, _ := x.(*cdr.Message)
	if m == nil {
		return kinematics.Vec3{}
	}
	a, _ := m.Get("x").(float64)
	b, _ := m.Get("y").(float64)
	c, _ := m.Get("z").(float64)
	return kinematics.Vec3{a, b, c}
}
