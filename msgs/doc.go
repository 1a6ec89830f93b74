// Package msgs defines the ROS message types goroslib lacks or names
// wrongly: named action wrappers for control_msgs and move_base_msgs.
package msgs
