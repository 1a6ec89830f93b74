// Package sim is a simulated ros_control robot: joint trajectory controller,
// gripper, diff-drive base, move_base and fault injection, under the names a
// gazebo_ros_control robot offers.
//
// # What it serves (Serve, cmd/simrobot)
//
//	/joint_states                            sensor_msgs/JointState, 6 arm joints + gripper_finger_joint, 100 Hz (up to 1 kHz)
//	/arm_controller/state                    control_msgs/JointTrajectoryControllerState, 50 Hz
//	/arm_controller/follow_joint_trajectory  control_msgs/FollowJointTrajectory action
//	/gripper_controller/gripper_cmd          control_msgs/GripperCommand action
//	/cmd_vel                                 geometry_msgs/Twist in; stops after 0.5 s without one
//	/odom, /tf                               nav_msgs/Odometry and odom→base_footprint, 50 Hz
//	/move_base                               move_base_msgs/MoveBase action, goals in the odom frame
//	/robot_description                       the URDF (assets/simrobot.urdf)
//	/robot_description_planning/joint_limits joint_limits.yaml, one parameter per key
//	/arm_controller/joints, /arm_controller/constraints/...  as joint_trajectory_controller reads them
//
// With Config.SecondArm (simrobot --second-arm) it is a dual-arm cell: the
// URDF is assets/simrobot-dual-arm.urdf, whose second arm's joints are the
// first arm's prefixed arm2_; /joint_states carries both arms, and
// /arm2_controller/{state,follow_joint_trajectory,joints,constraints/...}
// serve the second arm as the names above serve the first. Its goals are
// logged under "arm2"; faults act on the first arm only.
//
// The action servers speak actionlib over plain topics (goroslib's servers
// hide goal ids): a goal whose id the server already knows is ignored and
// logged as a duplicate; a cancel that arrives before its goal (by id, or by
// a stamp at or after the goal's) makes the goal RECALLED when it arrives;
// an empty id with a zero stamp cancels everything; finished goals stay in
// the status list for StatusListTimeout (5 s), ids are remembered longer.
//
// The arm follows joint_trajectory_controller: the goal must name every arm
// joint exactly once (else REJECTED, INVALID_JOINTS); the trajectory starts
// at the header stamp (now if zero) from the current desired state, with
// the spline package's interpolation and shortest-way wraparound on
// continuous joints; a new goal preempts the active one (PREEMPTED); cancel
// holds position; a goal with the joint names and no points holds and
// succeeds; path and goal tolerances come from the goal (> 0 overrides, < 0
// disables) or the defaults (0.2 rad path, 0.02 rad goal, 0.5 s goal time)
// and end the goal ABORTED with PATH_ or GOAL_TOLERANCE_VIOLATED. Like ROS
// 1's controller, an aborted trajectory keeps running unless
// Config.HoldOnAbort is set. Joints stop at their URDF limits.
//
// # Time
//
// Physics runs in fixed steps of simulated time (Config.Step, 1 ms); Run
// paces steps to the wall clock times TimeScale and drops time it cannot
// catch up on beyond MaxLag, so a busy machine slows the simulation but
// never changes a step. Tests drive a Robot with Advance and read what it
// would publish with Drain, without ROS.
//
// # Faults
//
// Set parameters under /<node>/faults/ (e.g. rosparam set
// /simrobot/faults/arm/tracking_offset 0.3), then call the std_srvs/Trigger
// service /<node>/apply_faults; it reads every fault parameter (unset means
// healthy) and answers with the faults in force as JSON, keyed like the
// parameters. /<node>/clear_faults heals the robot and deletes
// /<node>/faults. In Go: Robot.SetFaults. The parameters (FaultParams):
//
//	arm|gripper|move_base/ignore_goals  bool   log new goals, then drop them unanswered and unremembered
//	arm|gripper|move_base/delay_ms      int    delay every status change, feedback and result
//	arm|gripper|move_base/mute_status   bool   publish no status at all
//	arm/abort_after                     float  abort each goal this many seconds after it starts
//	arm/abort_error_code                int    its error_code (default -4 PATH_TOLERANCE_VIOLATED)
//	arm/tracking_offset                 float  rad added to every arm joint's actual position
//	arm/lag                             float  time constant (s) of the joints' lag
//	gripper/stall                       bool   finger blocked; goals end ABORTED, stalled=true
//	move_base/abort_after               float  abort each goal this many seconds after it starts
//	joint_states/mute                   bool   stop publishing /joint_states
//	exit_code                           int    exit the process with this code (cmd/simrobot)
//
// # Goal log
//
// Every goal and cancel message each action server received is logged,
// duplicates and ignored goals included: Robot.Goals in Go, or the
// std_srvs/Trigger service /<node>/goals, whose message is the GoalLog as
// JSON:
//
//	{"arm": {"ns": "/arm_controller/follow_joint_trajectory",
//	         "received": 2, "duplicates": 1, "ignored": 0, "cancels": 0,
//	         "goals": [{"id": "m1", "stamp": "<RFC 3339>", "received": "<wall clock>",
//	                    "sim_time": "<simulated>", "duplicate": false, "ignored": false,
//	                    "state": "SUCCEEDED"}, ...],
//	         "cancel_log": [{"id": "", "stamp": "...", "received": "...", "sim_time": "..."}]},
//	 "gripper": {...}, "move_base": {...}}
package sim
