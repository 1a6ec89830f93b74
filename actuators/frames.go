package actuators

import (
	"time"

	"github.com/actbridge/actbridge/tf"
)

// Frames answers where one frame lies in another, from the robot's /tf
// and /tf_static. A transport that reads them implements it; without it
// a base's goals and fence stay in its odometry frame.
type Frames interface {
	// Transform returns source's pose in target at the newest time every
	// link between them knows, and that time. It refuses with a *tf.Error
	// (errors.Is tf.ErrUnknownFrame, tf.ErrStale, ...) naming the frame
	// when one is unknown or the newest link is older than maxAge.
	Transform(target, source string, maxAge time.Duration) (tf.Transform, time.Time, error)
}
