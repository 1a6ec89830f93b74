package ros1

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/sensor_msgs"

	"github.com/actbridge/actbridge/actuators"
)

// Image topic types Snapshot reads.
const (
	TypeImage           = "sensor_msgs/Image"
	TypeCompressedImage = "sensor_msgs/CompressedImage"
)

// maxImageSide bounds a frame's width and height (a corrupt or hostile
// header must not make the bridge allocate gigabytes).
const maxImageSide = 8192

// ImageEncodings lists the sensor_msgs/Image encodings Snapshot decodes.
func ImageEncodings() []string {
	out := make([]string, 0, len(pixelFormats))
	for k := range pixelFormats {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Snapshot waits up to timeout for one frame of an image topic and decodes
// it: raw encodings to an image, compressed JPEG or PNG with the standard
// decoders (the bytes are kept as received in Raw).
func (r *Robot) Snapshot(ctx context.Context, topic string, timeout time.Duration) (actuators.Frame, error) {
	if timeout <= 0 || timeout > MaxSampleTimeout {
		timeout = MaxSampleTimeout
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
		f.Image, err = decodeRaw(msg)
	case *sensor_msgs.CompressedImage:
		f.Stamp, f.FrameID, f.Source = msg.Header.Stamp, msg.Header.FrameId, msg.Format
		f.Image, f.RawExt, err = decodeCompressed(msg.Data)
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

// pixelFormat describes a raw encoding: bytes per pixel and a converter.
type pixelFormat struct {
	bpp int
	px  func(p []byte, big bool) color.Color
}

var pixelFormats = map[string]pixelFormat{
	"rgb8":  {3, func(p []byte, _ bool) color.Color { return color.RGBA{p[0], p[1], p[2], 255} }},
	"bgr8":  {3, func(p []byte, _ bool) color.Color { return color.RGBA{p[2], p[1], p[0], 255} }},
	"8UC3":  {3, func(p []byte, _ bool) color.Color { return color.RGBA{p[2], p[1], p[0], 255} }}, // OpenCV order
	"rgba8": {4, func(p []byte, _ bool) color.Color { return color.NRGBA{p[0], p[1], p[2], p[3]} }},
	"bgra8": {4, func(p []byte, _ bool) color.Color { return color.NRGBA{p[2], p[1], p[0], p[3]} }},
	"mono8": {1, func(p []byte, _ bool) color.Color { return color.Gray{p[0]} }},
	"8UC1":  {1, func(p []byte, _ bool) color.Color { return color.Gray{p[0]} }},
	"mono16": {2, func(p []byte, big bool) color.Color {
		if big {
			return color.Gray16{binary.BigEndian.Uint16(p)}
		}
		return color.Gray16{binary.LittleEndian.Uint16(p)}
	}},
	"16UC1": {2, func(p []byte, big bool) color.Color {
		if big {
			return color.Gray16{binary.BigEndian.Uint16(p)}
		}
		return color.Gray16{binary.LittleEndian.Uint16(p)}
	}},
}

// decodeRaw turns a sensor_msgs/Image into an image, checking the header
// against the data before reading any pixel. 32FC1 depth is shown as gray,
// scaled between the nearest and farthest finite values.
func decodeRaw(m *sensor_msgs.Image) (image.Image, error) {
	w, h := int(m.Width), int(m.Height)
	if w < 1 || h < 1 || w > maxImageSide || h > maxImageSide {
		return nil, fmt.Errorf("image of %dx%d pixels", w, h)
	}
	big := m.IsBigendian != 0
	if m.Encoding == "32FC1" {
		return decodeDepth(m, w, h, big)
	}
	pf, ok := pixelFormats[m.Encoding]
	if !ok {
		return nil, fmt.Errorf("encoding %q is not supported (supported: %s, 32FC1)", m.Encoding, strings.Join(ImageEncodings(), ", "))
	}
	step := int(m.Step)
	if step < w*pf.bpp || len(m.Data) < step*(h-1)+w*pf.bpp {
		return nil, fmt.Errorf("%s image %dx%d with step %d has only %d bytes", m.Encoding, w, h, step, len(m.Data))
	}
	var img settable
	switch pf.bpp {
	case 1:
		img = image.NewGray(image.Rect(0, 0, w, h))
	case 2:
		img = image.NewGray16(image.Rect(0, 0, w, h))
	default:
		img = image.NewNRGBA(image.Rect(0, 0, w, h))
	}
	for y := 0; y < h; y++ {
		row := m.Data[y*step:]
		for x := 0; x < w; x++ {
			img.Set(x, y, pf.px(row[x*pf.bpp:x*pf.bpp+pf.bpp], big))
		}
	}
	return img, nil
}

type settable interface {
	image.Image
	Set(x, y int, c color.Color)
}

func decodeDepth(m *sensor_msgs.Image, w, h int, big bool) (image.Image, error) {
	step := int(m.Step)
	if step < w*4 || len(m.Data) < step*(h-1)+w*4 {
		return nil, fmt.Errorf("32FC1 image %dx%d with step %d has only %d bytes", w, h, step, len(m.Data))
	}
	order := binary.ByteOrder(binary.LittleEndian)
	if big {
		order = binary.BigEndian
	}
	vals := make([]float32, w*h)
	lo, hi := float32(math.Inf(1)), float32(math.Inf(-1))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			v := math.Float32frombits(order.Uint32(m.Data[y*step+x*4:]))
			vals[y*w+x] = v
			if !math.IsNaN(float64(v)) && !math.IsInf(float64(v), 0) {
				lo, hi = min(lo, v), max(hi, v)
			}
		}
	}
	img := image.NewGray(image.Rect(0, 0, w, h))
	for i, v := range vals {
		if hi > lo && !math.IsNaN(float64(v)) && !math.IsInf(float64(v), 0) {
			img.Pix[i] = uint8(255 * (v - lo) / (hi - lo))
		}
	}
	return img, nil
}

// decodeCompressed decodes JPEG or PNG bytes, by their magic number, after
// checking the declared size.
func decodeCompressed(data []byte) (image.Image, string, error) {
	var ext string
	switch {
	case bytes.HasPrefix(data, []byte{0xFF, 0xD8}):
		ext = "jpg"
	case bytes.HasPrefix(data, []byte("\x89PNG")):
		ext = "png"
	default:
		return nil, "", fmt.Errorf("compressed image is neither JPEG nor PNG")
	}
	var cfg image.Config
	var err error
	if ext == "jpg" {
		cfg, err = jpeg.DecodeConfig(bytes.NewReader(data))
	} else {
		cfg, err = png.DecodeConfig(bytes.NewReader(data))
	}
	if err != nil {
		return nil, "", err
	}
	if cfg.Width < 1 || cfg.Height < 1 || cfg.Width > maxImageSide || cfg.Height > maxImageSide {
		return nil, "", fmt.Errorf("compressed image of %dx%d pixels", cfg.Width, cfg.Height)
	}
	var img image.Image
	if ext == "jpg" {
		img, err = jpeg.Decode(bytes.NewReader(data))
	} else {
		img, err = png.Decode(bytes.NewReader(data))
	}
	return img, ext, err
}
