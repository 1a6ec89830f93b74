// Package ros1 is the ROS 1 transport: one driver per actuator kind (arm,
// gripper, base, stop) that speaks ROS through goroslib, including the
// actionlib client protocol with bridge-owned goal ids.
//
// Open a Robot from a config.Config (config.Load reads launch/robots/*.yaml). It
// implements the robot contract of package actuators: goals, states and
// errors are the contract's; actionlib's state numbers become
// actuators.GoalState here and nowhere else.
//
// Things that will bite you:
//   - A goal is published only once the action server subscribes to the
//     goal topic and publishes status: goroslib drops messages published
//     before a subscriber connects. Sends wait for that, bounded by
//     goal_connect_timeout and ctx, without holding any lock Cancel or
//     StopAll needs.
//   - A cancel never goes out before its goal. A cancel (or StopAll) that
//     arrives while a send still waits for its connection means the goal is
//     never published: the send fails with actuators.ErrCanceledBeforeSend and
//     the observer gets GoalRecalled. One that arrives while the goal is being
//     written is sent right after it.
//   - An aborted arm goal is followed by a hold goal "<id>/hold" (an empty
//     trajectory): ROS 1's joint_trajectory_controller keeps executing an
//     aborted trajectory.
//   - A Drive lives only as long as the ctx passed to it (the deadman).
//   - "lost" is not final: a goal the server reports again gets its real
//     state. With no status at all (master restart) goals are declared lost
//     only after a long silence, not after the grace period.
package ros1
