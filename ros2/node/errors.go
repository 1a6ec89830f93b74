package node

import "errors"

// Errors of this package; compare with errors.Is.
var (
	// ErrEnv means a ROS 2 environment variable holds a value ROS 2 has
	// no meaning for, or values that contradict each other.
	ErrEnv = errors.New("node: bad ROS 2 environment")
	// ErrNoDiscovery means the discovery settings would find nothing.
	ErrNoDiscovery = errors.New("node: discovery finds nothing")
	// ErrClosed means the Context, node or endpoint was closed.
	ErrClosed = errors.New("node: closed")
	// ErrType means a message type the distro lacks, or a message of
	// another type than the endpoint's.
	ErrType = errors.New("node: wrong message type")
	// ErrIncompatibleQoS means an endpoint of the same topic and type
	// exists but cannot match ours because of reliability or durability.
	ErrIncompatibleQoS = errors.New("node: incompatible QoS")
)
