package sim

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/jpeg"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/sensor_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_msgs"
)

// The camera: a fixed test pattern, raw and JPEG-compressed, at CameraHz
// of wall time, stamped with simulated time.
const (
	TopicCameraImage      = "/camera/image_raw"
	TopicCameraCompressed = "/camera/image_raw/compressed"
	CameraFrame           = "camera_optical_frame"
	CameraWidth           = 320
	CameraHeight          = 240
	CameraHz              = 5
)

// TestPattern draws the camera's picture: eight colour bars over a grey
// ramp, with a black cross at the centre, so scaling and channel order
// are easy to check in a decoded snapshot.
func TestPattern(w, h int) *image.RGBA {
	bars := []color.RGBA{{255, 255, 255, 255}, {255, 255, 0, 255}, {0, 255, 255, 255}, {0, 255, 0, 255},
		{255, 0, 255, 255}, {255, 0, 0, 255}, {0, 0, 255, 255}, {0, 0, 0, 255}}
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := bars[x*len(bars)/w]
			if y >= h*2/3 {
				g := uint8(255 * x / max(w-1, 1))
				c = color.RGBA{g, g, g, 255}
			}
			if (abs(x-w/2) < 2 && abs(y-h/2) < h/8) || (abs(y-h/2) < 2 && abs(x-w/2) < w/8) {
				c = color.RGBA{0, 0, 0, 255}
			}
			img.SetRGBA(x, y, c)
		}
	}
	return img
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// camera holds the frames, encoded once.
type camera struct {
	raw        []byte // rgb8 rows
	compressed []byte // JPEG
	seq        uint32
}

func newCamera() *camera {
	raw, compressed := CameraPictures()
	return &camera{raw: raw, compressed: compressed}
}

// CameraPictures is the camera's picture as rgb8 rows and as JPEG, for a
// face that builds its own image messages.
func CameraPictures() (rgb8, jpg []byte) {
	img := TestPattern(CameraWidth, CameraHeight)
	raw := make([]byte, 0, CameraWidth*CameraHeight*3)
	for i := 0; i < len(img.Pix); i += 4 {
		raw = append(raw, img.Pix[i], img.Pix[i+1], img.Pix[i+2])
	}
	var b bytes.Buffer
	_ = jpeg.Encode(&b, img, &jpeg.Options{Quality: 90})
	return raw, b.Bytes()
}

// frames are the next raw and compressed messages.
func (c *camera) frames(stamp time.Time) []Message {
	c.seq++
	h := std_msgs.Header{Seq: c.seq, Stamp: stamp, FrameId: CameraFrame}
	return []Message{
		{TopicCameraImage, &sensor_msgs.Image{Header: h, Height: CameraHeight, Width: CameraWidth,
			Encoding: "rgb8", Step: CameraWidth * 3, Data: c.raw}},
		{TopicCameraCompressed, &sensor_msgs.CompressedImage{Header: h, Format: "jpeg", Data: c.compressed}},
	}
}

// runCamera publishes frames until ctx ends.
func (s *server) runCamera(ctx context.Context) {
	cam := newCamera()
	t := time.NewTicker(time.Second / CameraHz)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			s.publish(cam.frames(s.r.Now()))
		}
	}
}
