// Package actuators holds one driver per actuator kind (arm, gripper, base,
// stop) that speaks ROS through goroslib, including the actionlib client
// protocol with bridge-owned goal ids.
package actuators
