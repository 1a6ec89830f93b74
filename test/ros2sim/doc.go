// Package ros2sim tests `simrobot --ros 2`, the built binary, with the
// pure-Go ROS 2 client layer, inside a network namespace the test made.
package ros2sim
