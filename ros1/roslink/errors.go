package roslink

import "errors"

var (
	// ErrMasterUnreachable means no ROS master answered at the configured
	// address; Open returns it (wrapped with the address) unless told to wait.
	ErrMasterUnreachable = errors.New("ROS master unreachable")

	// ErrCloseTimeout means a node or a teardown did not finish within
	// CloseTimeout; Close returned anyway and left it running.
	ErrCloseTimeout = errors.New("node did not close in time")
)
