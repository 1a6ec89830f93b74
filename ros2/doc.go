// Package ros2 is the ROS 2 transport: the robot contract of package
// actuators over the pure-Go ROS 2 client layer beside it (ros2/node,
// ros2/action), with no ROS installation.
//
// This version serves arms: control_msgs/action/FollowJointTrajectory on
// each arm's configured action, the goal UUID being the bridge's goal id
// (GoalUUID), never sent twice; joint states newest-only. A goal always
// carries a goal_time_tolerance, and a goal preempted by a newer one of
// ours (ABORTED on Jazzy, CANCELED on Humble) is reported canceled. After a
// restart, Track re-attaches through the status topic and get_result; a
// goal the server forgot is lost. Grippers, bases, parameters, services
// and topics are not served yet; config refuses those actuators.
package ros2
