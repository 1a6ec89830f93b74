// Package param is ROS 2 parameters over an rtps.Participant: a Client
// reads and changes a remote node's parameters through its rcl_interfaces
// services (list, get, set, describe), Events follows /parameter_events,
// and a Server serves a node's declared parameters (all six services)
// and refuses as rclcpp does. It needs no node of its own: names come
// fully expanded.
package param
