// Package param reads and changes the parameters of a remote ROS 2 node
// through its rcl_interfaces services (list, get, set, describe) and
// follows /parameter_events, over an rtps.Participant. It needs no node
// of its own: names come fully expanded.
package param
