// Package ros2 is the ROS 2 transport: the robot contract of package
// actuators over the pure-Go ROS 2 client layer beside it (ros2/node,
// ros2/action), with no ROS installation.
//
// Every actuator with an action has one action client and one goal
// machinery (motion.go): the goal UUID is the bridge's goal id
// (GoalUUID), never sent twice; an action type is a goalCodec that builds
// goals and reads results: control_msgs/action/FollowJointTrajectory for
// arms (always with a goal_time_tolerance), GripperCommand or
// ParallelGripperCommand for grippers (the config's action_type), and
// nav2_msgs/action/NavigateToPose for a base. A goal preempted by a newer
// one of ours is reported canceled whichever way the distro ends it.
// After a restart, Track re-attaches through the status topic and
// get_result; a goal the server forgot is lost. A base's velocity drive
// and odometry are its driver and odometer (base.go). Joint states and
// odometry are read newest-only.
package ros2
