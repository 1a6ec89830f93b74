// Package graph is the ROS 2 graph as rmw builds it from DDS discovery:
// participants (with their enclave), nodes (from each participant's
// ros_discovery_info), topics and services with their types in ROS's
// form, and every publisher, subscriber, server and client with the node
// that owns it (when announced) and its DDS vendor.
//
// It owns the wire form of ros_discovery_info
// (rmw_dds_common/msg/ParticipantEntitiesInfo, whose Gid is 24 bytes on
// Humble and 16 from Iron on) and the "key=value;" user data rmw puts on
// participants and endpoints. Build is a pure function of what discovery
// learned, so the graph is tested without a network.
package graph
