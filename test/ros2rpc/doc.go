// Package ros2rpc proves the ROS 2 client layer (ros2/service,
// ros2/action, ros2/param) against real ROS 2 conventions: the node peers
// of test/ddspeers play rmw_cyclonedds (CycloneDDS) and rmw_fastrtps
// (Fast DDS) nodes and end loudly on a frame of the other dialect, so a
// test that passes shows we framed every request and reply as that
// vendor's rmw does. Everything runs inside a network namespace the test
// binary made. The other way round, the peers' action and parameter
// clients drive our action.Server and param.Server (servers_test.go).
// (test/ros2interop does the same for nodes, topics and the graph.)
package ros2rpc
