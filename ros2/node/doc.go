// Package node is a ROS 2 client on the pure-Go RTPS participant: a
// Context is one participant (user data "enclave=/;") configured from
// ROS 2's environment variables, with the distro's message definitions;
// its Nodes have names, namespaces and `-r` remapping; their Publishers
// and Subscriptions speak ROS names ("rt/…") and types
// ("pkg::msg::dds_::Type_", typehash user data from Iron on) and encode
// messages with the distro's definitions. The Context announces its
// nodes on ros_discovery_info, as rmw does, and reads everyone else's
// into a graph (package ros2/graph) that callers read or wait on.
package node
