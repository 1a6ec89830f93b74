// Package sim is a simulated ros_control robot: joint trajectory controller,
// gripper, diff-drive base, move_base and fault injection. It is
// transport-free: goals come in and messages go out as the sim's own types
// (messages.go), and a face translates them to and from its wire —
// sim/ros1face (ROS 1, goroslib) and sim/ros2face (ROS 2) beside it. The
// core imports no goroslib, no ros1, no ros2 and no msgs (deps_test.go).
//
// With Config.SecondArm it is a dual-arm cell: the URDF is
// assets/simrobot-dual-arm.urdf, whose second arm's joints are the first
// arm's prefixed arm2_; JointState carries both arms, and the action Arm2
// serves the second arm as Arm serves the first. Its goals are logged
// under "arm2"; faults act on the first arm only.
//
// The action servers follow actionlib's server side and keep the client's
// goal ids: a goal whose id the server already knows is ignored and logged
// as a duplicate; a cancel that arrives before its goal (by id, or by
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
// Robot.SetFaults puts faults in force; the faces read them from
// parameters (ReadFaults) keyed like FaultParams:
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
// Every goal and cancel each action server received is logged, duplicates
// and ignored goals included: Robot.Goals in Go, or a face's goals
// service, whose message is the GoalLog as JSON (the ns are ROS 1's on
// either face):
//
//	{"arm": {"ns": "/arm_controller/follow_joint_trajectory",
//	         "received": 2, "duplicates": 1, "ignored": 0, "cancels": 0,
//	         "goals": [{"id": "m1", "stamp": "<RFC 3339>", "received": "<wall clock>",
//	                    "sim_time": "<simulated>", "duplicate": false, "ignored": false,
//	                    "state": "SUCCEEDED"}, ...],
//	         "cancel_log": [{"id": "", "stamp": "...", "received": "...", "sim_time": "..."}]},
//	 "gripper": {...}, "move_base": {...}}
//
// # Frames
//
// The base's true pose is in the map frame. /tf carries map→odom,
// odom→base_footprint and every moving joint's link (Config.TFHz, 50 Hz
// as ROS 1's robot_state_publisher and diff_drive_controller default to);
// StaticTransforms, the fixed joints, go once to /tf_static. With
// Config.OdomDrift (simrobot --odom-drift x,y,yaw per second) odometry
// drifts: map→odom grows by it and /odom and odom→base_footprint carry
// the drifted pose, while map→base_footprint stays the truth, as under a
// localisation. A navigation goal in the map frame is reached in the map
// frame; one in the odom frame is put in the map frame when it arrives.
//
// # World
//
// Config.Table (simrobot --table) puts a table, a box in the map frame,
// in the robot's world. At every step the sim places each link's URDF
// collision shapes (boxes, cylinders, spheres; meshes are not modelled)
// by its own forward kinematics from the base's pose and the joints'
// actual positions, and tests them against the table with its own GJK
// test (geometry.go, world.go: nothing shared with the bridge's
// kinematics, which the sim checks). Each contact is logged from when a
// link first touches the table to when it leaves: Robot.Collisions, or a
// face's collisions service, as JSON:
//
//	{"table": {"min": [0.5, -1, 0], "max": [2, 1, 0.4]}, "contacts": 1, "touching": ["forearm_link"],
//	 "collisions": [{"link": "forearm_link", "object": "table", "start": "<simulated>", "end": "<simulated, once it left>"}]}
//
// The sim does not stop a link at the table: it records, as a camera
// over a real cell would, what the motion the bridge allowed touched.
//
// # Planning
//
// Robot.Plan answers a MoveIt GetMotionPlan for the group ArmGroup
// ("arm"; Arm2 with a second arm), which sim/ros2face serves as
// /plan_kinematic_path, with code of its own, so that it and the bridge's
// kinematics check each other: a joint goal, or a pose goal (a link's
// origin within a sphere, its rotation optionally within per-axis
// tolerances, in a link's frame, map or odom) solved by damped least
// squares on the sim's FK from the start state and then from seeded
// random states; a joint-space path checked against the table every
// 0.02 rad, straight or through one via point (the arm raised, then
// seeded random ones); each leg a cubic from rest to rest whose peak speed
// is the URDF's velocity limit times the request's scaling. Refusals
// carry MoveItErrorCodes' names (GOAL_IN_COLLISION, NO_IK_SOLUTION,
// INVALID_GROUP_NAME, ...). The same request from the same state gets
// the same trajectory. Self-collision and acceleration limits are not
// modelled.
package sim
