// Package msgs defines the ROS message types goroslib lacks or names
// wrongly: control_msgs FollowJointTrajectory and GripperCommand, and
// move_base_msgs MoveBase, each with its named action wrappers so rostopic
// and rospy see the official types. Tests compare every MD5 sum and
// definition with the official ROS generators.
package msgs
