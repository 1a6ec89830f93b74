package ros2face

import (
	"context"
	"time"

	"github.com/actbridge/actbridge/sim"
)

// runCamera publishes the sim's test picture, raw and JPEG, at
// sim.CameraHz of wall time, stamped with simulated time, as the ROS 1
// face does.
func (f *face) runCamera(ctx context.Context) error {
	raw, jpg := sim.CameraPictures()
	t := time.NewTicker(time.Second / sim.CameraHz)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		now := f.r.Now()
		header := func(fl *fields) {
			fl.stamp("header.stamp", now)
			fl.set("header.frame_id", sim.CameraFrame)
		}
		f.send(TopicCameraImage, f.image, func(fl *fields) {
			header(fl)
			fl.set("height", uint32(sim.CameraHeight))
			fl.set("width", uint32(sim.CameraWidth))
			fl.set("encoding", "rgb8")
			fl.set("step", uint32(sim.CameraWidth*3))
			fl.set("data", raw)
		})
		f.send(TopicCameraCompressed, f.compressed, func(fl *fields) {
			header(fl)
			fl.set("format", "jpeg")
			fl.set("data", jpg)
		})
	}
}
