// Package ros2face serves a sim.Robot on ROS 2, under the names a
// ros2_control robot offers, through the pure-Go client layer (ros2/node,
// ros2/action, ros2/service):
//
//	/joint_states                    sensor_msgs/JointState, as joint_state_broadcaster
//	/robot_description               std_msgs/String, latched (transient_local, keep-last 1), as robot_state_publisher
//	/diff_drive_controller/cmd_vel   geometry_msgs/TwistStamped in; the 0.5 s timeout runs from the stamp, a zero stamp is now
//	/diff_drive_controller/odom      nav_msgs/Odometry
//	/tf, /tf_static                  tf2_msgs/TFMessage with tf2_ros's QoS (volatile; transient-local), as robot_state_publisher
//	/plan_kinematic_path             moveit_msgs/srv/GetMotionPlan, as move_group, answered by the sim's own planner
//	/camera/image_raw(/compressed)   sensor_msgs/Image and CompressedImage, as the ROS 1 face
//	/joint_trajectory_controller/follow_joint_trajectory  control_msgs/action/FollowJointTrajectory
//	/arm2_controller/follow_joint_trajectory              the same, with a second arm
//	/gripper_controller/gripper_cmd                       control_msgs/action/GripperCommand; ParallelGripperCommand on Kilted, Lyrical
//	/navigate_to_pose                                     nav2_msgs/action/NavigateToPose (result and feedback per distro)
//	/<name>/goals, /<name>/collisions, /<name>/apply_faults, /<name>/clear_faults  std_srvs/srv/Trigger, as the ROS 1 face's
//	/<name>/set_led                  actbridge_sim_msgs/srv/SetLed: a type of the sim's own (no distro set has it), nesting messages
//	<every node>/get_type_description  type_description_interfaces/srv/GetTypeDescription (Jazzy and later)
//
// With Config.Namespace (/robot1) every node is in that namespace and
// every name above is given relative, so it lands under it
// (/robot1/joint_states, /robot1/simrobot/goals), and /tf and /tf_static
// are remapped into it (/robot1/tf), as a namespaced TurtleBot 4's launch
// files remap them; frame ids stay as they are.
//
// set_led sets the sim's status LED (the colours it cycles through) and
// answers what it showed before. Its type is defined in the sim
// (interfaces/actbridge_sim_msgs), as a robot vendor's package would be;
// a client that lacks it learns it from the node's
// ~/get_type_description, which every node serves from Jazzy on, as rcl
// does: it answers for the types the node's endpoints use, found by the
// hash the request names, and fails as rcl fails ("Type not currently in
// use by this node", "Failed to parse type hash").
//
// Parameters (rcl_interfaces services, read-only: the sim reads its
// configuration once): joint_trajectory_controller's joints,
// command_interfaces, state_interfaces,
// allow_nonzero_velocity_at_trajectory_end, constraints.goal_time and
// constraints.<joint>.{trajectory,goal}; gripper_controller's joint,
// goal_tolerance, stall_timeout; diff_drive_controller's cmd_vel_timeout,
// linear.x.max_velocity, angular.z.max_velocity, odom_frame_id,
// base_frame_id. The sim's node serves the faults of package sim as
// writable parameters faults.<key with dots> (faults.arm.abort_after),
// put in force by apply_faults as on ROS 1; exit_code is not offered, and
// mute_status mutes only the ROS 1 status topics (ros2/action's server
// owns the ROS 2 status).
//
// The arm follows ros2_controllers' joint_trajectory_controller: a last
// point with non-zero velocities is rejected before the sim sees it; the
// sim's rules apply after (see package sim), with HoldOnAbort as ROS 2's
// controller holds after an abort (cmd/simrobot sets it); a preempted goal
// ends ABORTED, INVALID_GOAL, "Current goal preempted by new incoming
// action." on Jazzy, Kilted and Lyrical (ros2_controllers 6.9.0 ends it so
// too); on Humble it ends CANCELED with a zero result, as Humble's
// controller really ends it (ros2/action's ServerGoal.Abandon says why).
// The feedback index (Kilted, Lyrical) is the last trajectory point whose
// time has come.
//
// Navigation follows Nav2's bt_navigator per distro: on Lyrical (Nav2
// 1.5) a goal in a frame the sim does not know is rejected when it
// arrives, as Nav2 now rejects a goal pose it cannot transform; up to
// Kilted it is accepted and aborted. Lyrical's feedback carries the
// tracking errors.
//
// The planning service reads a request's group (sim.ArmGroup), start
// state, velocity scaling and goal constraint sets (joint constraints, or
// one SPHERE position constraint with at most one orientation constraint
// on the same link and frame; each set in turn until one plans) and
// answers sim.Robot.Plan's trajectory, or its refusal as the distro's
// MoveItErrorCodes value with a message from Jazzy on.
//
// Goals run in the sim under their UUID's text form
// (xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx), so the goal log names them; a
// send_goal naming a UUID the server still holds is answered as rclcpp
// answers it, not run, logged and counted in the goal log as a duplicate.
//
// The sim core stays transport-free: the face converts what Robot.Run
// hands it and calls the Robot's methods for what arrives.
package ros2face
