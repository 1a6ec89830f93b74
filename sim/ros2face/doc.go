// Package ros2face serves a sim.Robot on ROS 2, under the names a
// ros2_control robot offers, through the pure-Go client layer (ros2/node):
//
//	/joint_states                    sensor_msgs/JointState, as joint_state_broadcaster
//	/robot_description               std_msgs/String, latched (transient_local, keep-last 1), as robot_state_publisher
//	/diff_drive_controller/cmd_vel   geometry_msgs/TwistStamped in; the 0.5 s timeout runs from the stamp, a zero stamp is now
//	/diff_drive_controller/odom      nav_msgs/Odometry
//	/camera/image_raw(/compressed)   sensor_msgs/Image and CompressedImage, as the ROS 1 face
//
// The sim core stays transport-free: the face converts what Robot.Run
// hands it and calls the Robot's methods for what arrives.
package ros2face
