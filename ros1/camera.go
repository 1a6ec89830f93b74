package ros1

import (
	"context"
	"fmt"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/sensor_msgs"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/rosimage"
)

// Image topic types Snapshot reads.
const (
	TypeImage           = "sensor_msgs/Image"
	TypeCompressedImage = "sensor_msgs/CompressedImage"
)

// Snapshot waits up to timeout for one frame of an image topic and decodes
// it with package rosimage (compressed bytes are kept as received in Raw).
func (r *Robot) Snapshot(ctx context.Context, topic string, timeout time.Duration) (actuators.Frame, error) {
	if timeout <= 0 || timeout > actuators.MaxSampleTimeout {
		timeout = actuators.MaxSampleTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	topics, err := r.masterTopics(ctx)
	if err != nil {
		return actuators.Frame{}, err
	}
	info, ok := topics[topic]
	if !ok {
		return actuators.Frame{}, fmt.Errorf("%w: %s is not published (see Topics)", actuators.ErrUnknownTopic, topic)
	}
	var sub sampler
	switch info.Type {
	case TypeImage:
		sub = samplerOf[sensor_msgs.Image]()
	case TypeCompressedImage:
		sub = samplerOf[sensor_msgs.CompressedImage]()
	default:
		return actuators.Frame{}, fmt.Errorf("%w: %s has type %s, not an image (%s or %s)", actuators.ErrUnsupportedType, topic, info.Type, TypeImage, TypeCompressedImage)
	}
	m, err := r.receiveOne(ctx, topic, sub)
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			return actuators.Frame{}, fmt.Errorf("%w on %s (%s) within %s", actuators.ErrNoMessages, topic, info.Type, timeout)
		}
		return actuators.Frame{}, err
	}
	f := actuators.Frame{Topic: topic, Type: info.Type}
	switch msg := m.(type) {
	case *sensor_msgs.Image:
		f.Stamp, f.FrameID, f.Source = msg.Header.Stamp, msg.Header.FrameId, msg.Encoding
		f.Image, err = rosimage.Decode(rosimage.Raw{Width: int(msg.Width), Height: int(msg.Height), Step: int(msg.Step),
			Encoding: msg.Encoding, BigEndian: msg.IsBigendian != 0, Data: msg.Data})
	case *sensor_msgs.CompressedImage:
		f.Stamp, f.FrameID, f.Source = msg.Header.Stamp, msg.Header.FrameId, msg.Format
		f.Image, f.RawExt, err = rosimage.DecodeCompressed(msg.Data)
		f.Raw = msg.Data
	}
	if err != nil {
		return actuators.Frame{}, fmt.Errorf("%w: %s: %v", actuators.ErrUnsupportedType, topic, err)
	}
	return f, nil
}

// receiveOne returns the next message of topic, tapping our own subscriber
// when the node already has one (goroslib allows one per topic).
func (r *Robot) receiveOne(ctx context.Context, topic string, sub sampler) (any, error) {
	var ch <-chan any
	if r.subs.isOwned(topic) {
		tch, stop := r.subs.tap(topic, 1)
		defer stop()
		ch = tch
	} else {
		node := r.link.Node()
		if node == nil {
			return nil, fmt.Errorf("%w: no ROS node", actuators.ErrNotConnected)
		}
		out := make(chan any, 1)
		closeSub, err := sub(node, topic, out)
		if err != nil {
			return nil, fmt.Errorf("subscribe %s: %w", topic, err)
		}
		defer closeSub()
		ch = out
	}
	select {
	case m := <-ch:
		return m, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
