package qos

import "errors"

var (
	// ErrUnknownProfile is a profile name no ROS 2 profile has.
	ErrUnknownProfile = errors.New("qos: unknown profile")
	// ErrInvalidOverride is an override field with a value ROS 2 has no
	// meaning for.
	ErrInvalidOverride = errors.New("qos: invalid override")
)
