// Package sim is a simulated ros_control robot: joint trajectory controller,
// gripper, diff-drive base, move_base and fault injection, under the names a
// gazebo_ros_control robot offers.
package sim
