package ros2

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/msgs/ros2"
)

// The sim's camera reads as on ROS 1: the raw rgb8 frame decoded, the
// compressed one decoded with its JPEG bytes kept; a topic that is no
// image is refused by type.
func TestSnapshotOfTheSimsCameraRawAndCompressed(t *testing.T) {
	r, sim := accessRig(t, msgs.Jazzy, 141)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	raw, err := r.Snapshot(ctx, "/camera/image_raw", 5*time.Second)
	if err != nil {
		t.Fatalf("raw: %v\nsim:\n%s", err, sim.Output())
	}
	if b := raw.Image.Bounds(); b.Dx() != 320 || b.Dy() != 240 || raw.Source != "rgb8" || raw.Type != TypeImage || raw.FrameID == "" || raw.Stamp.IsZero() {
		t.Fatalf("raw frame %+v %v", raw, raw.Image.Bounds())
	}
	jpg, err := r.Snapshot(ctx, "camera/image_raw/compressed", 5*time.Second)
	if err != nil {
		t.Fatalf("compressed: %v", err)
	}
	if b := jpg.Image.Bounds(); b.Dx() != 320 || b.Dy() != 240 || jpg.RawExt != "jpg" || len(jpg.Raw) == 0 || jpg.Type != TypeCompressedImage {
		t.Fatalf("compressed frame %+v", jpg)
	}
	if _, err := r.Snapshot(ctx, "/joint_states", time.Second); !errors.Is(err, actuators.ErrUnsupportedType) {
		t.Fatalf("joint_states as a camera: %v", err)
	}
}
