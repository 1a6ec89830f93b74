// Package action is a ROS 2 action client over an rtps.Participant: the
// five entities of an action (send_goal, cancel_goal and get_result
// services, feedback and status topics), goals named by UUIDs the caller
// chooses.
//
// The one rule it enforces: a goal UUID is sent at most once per Client.
// rclcpp_action answers "accepted" to a UUID it already knows and then
// throws, taking the server's process down (ros2/rclcpp #3120), so a
// second SendGoal of a UUID, or one after Attach, is refused with
// ErrDuplicateGoal, and a send whose outcome is unknown is never retried.
// Keep one Client per action for the life of the process, and persist
// the UUIDs sent across restarts (Attach re-attaches without sending).
package action
