package ros2face

import "errors"

var (
	// ErrMessage is a message that does not have the fields the face fills
	// or reads: the distro's definition differs from what the face expects.
	ErrMessage = errors.New("ros2face: unexpected message layout")
	// ErrConfig is a Config the face cannot serve.
	ErrConfig = errors.New("ros2face: bad config")
)
