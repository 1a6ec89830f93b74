// Package ros1face serves a sim.Robot on ROS 1 (goroslib), under the
// names a gazebo_ros_control robot offers; it translates between ROS 1's
// messages and the sim's own types, and the sim decides.
//
// # What it serves (Serve, cmd/simrobot)
//
//	/joint_states                            sensor_msgs/JointState, 6 arm joints + gripper_finger_joint, 100 Hz (up to 1 kHz)
//	/arm_controller/state                    control_msgs/JointTrajectoryControllerState, 50 Hz
//	/arm_controller/follow_joint_trajectory  control_msgs/FollowJointTrajectory action
//	/gripper_controller/gripper_cmd          control_msgs/GripperCommand action
//	/cmd_vel                                 geometry_msgs/Twist in; stops after 0.5 s without one
//	/odom                                    nav_msgs/Odometry, 50 Hz
//	/tf, /tf_static                          tf2_msgs/TFMessage: map→odom, odom→base_footprint and the moving links, 50 Hz; the fixed links once, latched
//	/move_base                               move_base_msgs/MoveBase action, goals in the map or the odom frame
//	/camera/image_raw(/compressed)           sensor_msgs/Image and CompressedImage, 5 Hz
//	/robot_description                       the URDF (sim/assets/simrobot.urdf)
//	/robot_description_planning/joint_limits joint_limits.yaml, one parameter per key
//	/arm_controller/joints, /arm_controller/constraints/...  as joint_trajectory_controller reads them
//
// The sim's MoveIt planner (sim.Robot.Plan) is served on ROS 2 only:
// goroslib has no moveit_msgs, and the bridge plans over ROS 2 only.
//
// With a second arm (sim.Config.SecondArm) /joint_states carries both
// arms, and /arm2_controller/{state,follow_joint_trajectory,joints,
// constraints/...} serve the second arm as the names above serve the first.
//
// The action servers speak actionlib over plain topics (goroslib's servers
// hide goal ids); the sim's action servers keep the ids (see package sim).
//
// # Faults
//
// Set parameters under /<node>/faults/ (e.g. rosparam set
// /simrobot/faults/arm/tracking_offset 0.3), then call the std_srvs/Trigger
// service /<node>/apply_faults; it reads every fault parameter (unset means
// healthy) and answers with the faults in force as JSON, keyed like the
// parameters (sim.FaultParams). /<node>/clear_faults heals the robot and
// deletes /<node>/faults. The parameter exit_code (int) exits the process
// with this code (cmd/simrobot).
//
// # Goal log, collision log
//
// The std_srvs/Trigger services /<node>/goals and /<node>/collisions
// answer the sim's goal log (sim.GoalLog) and collision log
// (sim.CollisionLog) as JSON.
//
// # Access
//
// The parameters of AccessParams and the std_srvs services StatusService,
// LEDService, ResetOdomService, PowerOffService and AccessCallsService,
// under /<node>/, for the bridge's params and service tools.
package ros1face
