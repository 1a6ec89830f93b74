// Package ros2interop tests the ROS 2 client layer (ros2/node, ros2/graph)
// and the `actbridge ros2` commands against the CycloneDDS and Fast DDS
// peers of test/ddspeers, inside a network namespace the test made.
package ros2interop
