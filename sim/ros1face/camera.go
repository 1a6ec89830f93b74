package ros1face

import (
	"context"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/sensor_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_msgs"

	"github.com/actbridge/actbridge/sim"
)

// The camera's topics: the sim's test picture, raw and JPEG-compressed.
const (
	TopicCameraImage      = "/camera/image_raw"
	TopicCameraCompressed = "/camera/image_raw/compressed"
)

// camera holds the frames, encoded once.
type camera struct {
	raw        []byte // rgb8 rows
	compressed []byte // JPEG
	seq        uint32
}

func newCamera() *camera {
	raw, compressed := sim.CameraPictures()
	return &camera{raw: raw, compressed: compressed}
}

// frames are the next raw and compressed messages.
func (c *camera) frames(stamp time.Time) []wireMsg {
	c.seq++
	h := std_msgs.Header{Seq: c.seq, Stamp: stamp, FrameId: sim.CameraFrame}
	return []wireMsg{
		{TopicCameraImage, &sensor_msgs.Image{Header: h, Height: sim.CameraHeight, Width: sim.CameraWidth,
			Encoding: "rgb8", Step: sim.CameraWidth * 3, Data: c.raw}},
		{TopicCameraCompressed, &sensor_msgs.CompressedImage{Header: h, Format: "jpeg", Data: c.compressed}},
	}
}

// runCamera publishes frames at sim.CameraHz of wall time, stamped with
// simulated time, until ctx ends.
func (s *server) runCamera(ctx context.Context) {
	cam := newCamera()
	t := time.NewTicker(time.Second / sim.CameraHz)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			s.write(cam.frames(s.r.Now()))
		}
	}
}
