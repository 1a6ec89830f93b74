package rosimage

import (
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/color"
	"math"
	"sort"
	"strings"
)

// MaxSide bounds a frame's width and height: a corrupt or hostile header
// must not make the decoder allocate gigabytes.
const MaxSide = 8192

// ErrImage is wrapped by every refusal of this package.
var ErrImage = errors.New("rosimage: cannot decode")

// Raw is a sensor_msgs/Image's fields, as ROS 1 and ROS 2 both carry them.
type Raw struct {
	Width, Height, Step int
	Encoding            string
	BigEndian           bool
	Data                []byte
}

// pixelFormat describes a raw encoding: bytes per pixel and a converter.
type pixelFormat struct {
	bpp int
	px  func(p []byte, big bool) color.Color
}

func gray16(p []byte, big bool) color.Color {
	if big {
		return color.Gray16{Y: binary.BigEndian.Uint16(p)}
	}
	return color.Gray16{Y: binary.LittleEndian.Uint16(p)}
}

var pixelFormats = map[string]pixelFormat{
	"rgb8":   {3, func(p []byte, _ bool) color.Color { return color.RGBA{p[0], p[1], p[2], 255} }},
	"bgr8":   {3, func(p []byte, _ bool) color.Color { return color.RGBA{p[2], p[1], p[0], 255} }},
	"8UC3":   {3, func(p []byte, _ bool) color.Color { return color.RGBA{p[2], p[1], p[0], 255} }}, // OpenCV order
	"rgba8":  {4, func(p []byte, _ bool) color.Color { return color.NRGBA{p[0], p[1], p[2], p[3]} }},
	"bgra8":  {4, func(p []byte, _ bool) color.Color { return color.NRGBA{p[2], p[1], p[0], p[3]} }},
	"mono8":  {1, func(p []byte, _ bool) color.Color { return color.Gray{p[0]} }},
	"8UC1":   {1, func(p []byte, _ bool) color.Color { return color.Gray{p[0]} }},
	"mono16": {2, gray16},
	"16UC1":  {2, gray16},
}

// depthEncoding is shown as gray, scaled between the nearest and farthest
// finite values.
const depthEncoding = "32FC1"

// Encodings lists the raw encodings Decode reads, sorted.
func Encodings() []string {
	out := make([]string, 0, len(pixelFormats)+1)
	for k := range pixelFormats {
		out = append(out, k)
	}
	out = append(out, depthEncoding)
	sort.Strings(out)
	return out
}

// Decode turns a raw image into an image, checking the header against the
// data before reading any pixel.
func Decode(m Raw) (image.Image, error) {
	w, h := m.Width, m.Height
	if w < 1 || h < 1 || w > MaxSide || h > MaxSide {
		return nil, fmt.Errorf("%w: image of %dx%d pixels", ErrImage, w, h)
	}
	bpp := 4
	pf, ok := pixelFormats[m.Encoding]
	switch {
	case ok:
		bpp = pf.bpp
	case m.Encoding != depthEncoding:
		return nil, fmt.Errorf("%w: encoding %q is not supported (supported: %s)", ErrImage, m.Encoding, strings.Join(Encodings(), ", "))
	}
	if m.Step < w*bpp || len(m.Data) < m.Step*(h-1)+w*bpp {
		return nil, fmt.Errorf("%w: %s image %dx%d with step %d has only %d bytes", ErrImage, m.Encoding, w, h, m.Step, len(m.Data))
	}
	if !ok {
		return decodeDepth(m), nil
	}
	var img settable
	switch bpp {
	case 1:
		img = image.NewGray(image.Rect(0, 0, w, h))
	case 2:
		img = image.NewGray16(image.Rect(0, 0, w, h))
	default:
		img = image.NewNRGBA(image.Rect(0, 0, w, h))
	}
	for y := range h {
		row := m.Data[y*m.Step:]
		for x := range w {
			img.Set(x, y, pf.px(row[x*bpp:x*bpp+bpp], m.BigEndian))
		}
	}
	return img, nil
}

type settable interface {
	image.Image
	Set(x, y int, c color.Color)
}

// decodeDepth reads a 32FC1 image whose size Decode checked.
func decodeDepth(m Raw) image.Image {
	w, h := m.Width, m.Height
	order := binary.ByteOrder(binary.LittleEndian)
	if m.BigEndian {
		order = binary.BigEndian
	}
	vals := make([]float32, w*h)
	lo, hi := float32(math.Inf(1)), float32(math.Inf(-1))
	finite := func(v float32) bool { return !math.IsNaN(float64(v)) && !math.IsInf(float64(v), 0) }
	for y := range h {
		for x := range w {
			v := math.Float32frombits(order.Uint32(m.Data[y*m.Step+x*4:]))
			vals[y*w+x] = v
			if finite(v) {
				lo, hi = min(lo, v), max(hi, v)
			}
		}
	}
	img := image.NewGray(image.Rect(0, 0, w, h))
	for i, v := range vals {
		if hi > lo && finite(v) {
			img.Pix[i] = uint8(255 * (v - lo) / (hi - lo))
		}
	}
	return img
}
