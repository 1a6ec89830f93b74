package ros2

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/ros2/node"
	"github.com/actbridge/actbridge/rosimage"
)

// Image topic types Snapshot reads.
const (
	TypeImage           = "sensor_msgs/msg/Image"
	TypeCompressedImage = "sensor_msgs/msg/CompressedImage"
)

// Snapshot waits up to timeout (at most actuators.MaxSampleTimeout) for one frame
// of an image topic and decodes it with package rosimage; compressed
// bytes are kept as received in Raw.
func (r *Robot) Snapshot(ctx context.Context, topic string, timeout time.Duration) (actuators.Frame, error) {
	if timeout <= 0 || timeout > actuators.MaxSampleTimeout {
		timeout = actuators.MaxSampleTimeout
	}
	topic = absolute(topic)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	t, typ, err := r.published(ctx, topic)
	if err != nil {
		return actuators.Frame{}, err
	}
	if typ != TypeImage && typ != TypeCompressedImage {
		return actuators.Frame{}, fmt.Errorf("%w: %s has type %s, not an image (%s or %s)", actuators.ErrUnsupportedType, topic, typ, TypeImage, TypeCompressedImage)
	}
	sub, err := r.subscribe(ctx, t, typ, node.SubscriptionOptions{LatestOnly: true})
	if err != nil {
		return actuators.Frame{}, err
	}
	defer sub.Close()
	var m *cdr.Message
	for m == nil {
		m, _, err = sub.Take(ctx)
		switch {
		case errors.Is(ctx.Err(), context.DeadlineExceeded):
			return actuators.Frame{}, fmt.Errorf("%w on %s (%s) within %s", actuators.ErrNoMessages, topic, typ, timeout)
		case ctx.Err() != nil:
			return actuators.Frame{}, ctx.Err()
		case errors.Is(err, node.ErrClosed):
			return actuators.Frame{}, fmt.Errorf("%w: %w", actuators.ErrClosed, err)
		}
	}
	return frame(topic, typ, m)
}

// frame decodes an Image or CompressedImage message.
func frame(topic, typ string, m *cdr.Message) (actuators.Frame, error) {
	f := actuators.Frame{Topic: topic, Type: typ}
	f.FrameID, f.Stamp = header(m)
	data, _ := m.Get("data").([]uint8)
	var err error
	if typ == TypeCompressedImage {
		f.Source, _ = m.Get("format").(string)
		f.Image, f.RawExt, err = rosimage.DecodeCompressed(data)
		f.Raw = data
	} else {
		w, _ := m.Get("width").(uint32)
		h, _ := m.Get("height").(uint32)
		step, _ := m.Get("step").(uint32)
		big, _ := m.Get("is_bigendian").(uint8)
		f.Source, _ = m.Get("encoding").(string)
		f.Image, err = rosimage.Decode(rosimage.Raw{Width: int(w), Height: int(h), Step: int(step), Encoding: f.Source, BigEndian: big != 0, Data: data})
	}
	if err != nil {
		return actuators.Frame{}, fmt.Errorf("%w: %s: %v", actuators.ErrUnsupportedType, topic, err)
	}
	return f, nil
}
