package ros1

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgproc"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/tf2_msgs"

	"github.com/actbridge/actbridge/kinematics"
	"github.com/actbridge/actbridge/ros1/tcpros"
	"github.com/actbridge/actbridge/tf"
)

// The frame tree's default topics (config's tf_topic and tf_static_topic
// name others).
const (
	TopicTF       = "/tf"
	TopicTFStatic = "/tf_static"
	// tfCheck is how often WatchTF lets go of publishers that left.
	tfCheck = time.Second
	// maxTransformsPerMessage bounds what one message may add.
	maxTransformsPerMessage = 1000
)

// errBadTF means a tf2_msgs/TFMessage did not decode.
var errBadTF = errors.New("bad tf2_msgs/TFMessage")

// WatchTF feeds buf with every transform of the config's TF topics (/tf
// and /tf_static by default) until ctx ends, each from the node that
// published it (the name the master lists it under, which a restart
// keeps). pins maps a child frame to the one node whose transforms of it
// count. Nodes no longer connected are forgotten every tfCheck. Messages
// that do not decode, and transforms the buffer refuses, go to bad, which
// is called from one goroutine per publisher at once and must be safe for
// that.
func (r *Robot) WatchTF(ctx context.Context, buf *tf.Buffer, pins map[string]string, bad func(error)) error {
	var zero tf2_msgs.TFMessage
	typ, err1 := msgproc.Type(zero)
	md5, err2 := msgproc.MD5(zero)
	def, err3 := msgproc.Definition(zero)
	if err := errors.Join(err1, err2, err3); err != nil {
		return fmt.Errorf("tf2_msgs/TFMessage: %w", err)
	}
	var subs []*tcpros.Subscription
	defer func() {
		for _, s := range subs {
			_ = s.Close()
		}
	}()
	for _, topic := range []string{r.cfg.TFTopic, r.cfg.TFStaticTopic} {
		static := topic == r.cfg.TFStaticTopic
		s, err := tcpros.SubscribeAll(ctx, tcpros.Config{
			Master: r.bus.master, CallerID: r.bus.name, Topic: topic,
			Type: typ, MD5: md5, Definition: def, Logf: r.logf,
		}, func(b []byte, publisher string) {
			ts, err := decodeTF(b)
			if err != nil {
				bad(fmt.Errorf("%s from %s: %w", topic, publisher, err))
				return
			}
			now := time.Now()
			for _, t := range ts {
				if pin, ok := pins[t.Child]; ok && pin != publisher {
					continue
				}
				if err := buf.Add(t, static, publisher, now); err != nil {
					bad(fmt.Errorf("%s from %s: %w", topic, publisher, err))
				}
			}
		})
		if err != nil {
			return fmt.Errorf("ros1: %s: %w", topic, err)
		}
		subs = append(subs, s)
	}
	t := time.NewTicker(tfCheck)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			// Who is connected, not who the master lists: a killed node
			// stays listed until someone cleans the master up.
			var live []string
			for _, s := range subs {
				live = append(live, s.Publishers()...)
			}
			for _, s := range buf.Sources() {
				if !slices.Contains(live, s) {
					buf.Forget(s)
				}
			}
		}
	}
}

// decodeTF reads a ROS 1 tf2_msgs/TFMessage: a count, then per transform
// the header (seq, stamp, frame_id), child_frame_id, translation and
// rotation. A stamp of zero stays the zero time.
func decodeTF(b []byte) ([]tf.Stamped, error) {
	w := wire{b: b, bad: errBadTF}
	// The smallest transform is 4+8+4+4+56 bytes: a count past what the
	// rest can hold is refused before anything is allocated.
	n := w.count(76)
	if n > maxTransformsPerMessage {
		return nil, fmt.Errorf("%w: %d transforms, at most %d", errBadTF, n, maxTransformsPerMessage)
	}
	out := make([]tf.Stamped, 0, n)
	for i := 0; i < n && w.err == nil; i++ {
		var s tf.Stamped
		w.u32() // seq
		secs, nsecs := w.u32(), w.u32()
		if secs != 0 || nsecs != 0 {
			s.Stamp = time.Unix(int64(secs), int64(nsecs)).UTC()
		}
		s.Parent = w.str()
		s.Child = w.str()
		s.Transform.Translation = kinematics.Vec3{w.f64(), w.f64(), w.f64()}
		s.Transform.Rotation = kinematics.Quat{w.f64(), w.f64(), w.f64(), w.f64()}
		out = append(out, s)
	}
	if w.err == nil && len(w.b) > 0 {
		w.err = fmt.Errorf("%w: %d bytes after the message", errBadTF, len(w.b))
	}
	if w.err != nil {
		return nil, w.err
	}
	return out, nil
}
