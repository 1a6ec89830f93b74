// Package action is ROS 2 actions over an rtps.Participant: the five
// entities of an action (send_goal, cancel_goal and get_result services,
// feedback and status topics), client and server, goals named by UUIDs
// the client chooses.
//
// The client's one rule: a goal UUID is sent at most once per Client.
// rclcpp_action answers "accepted" to a UUID it already knows and then
// throws, taking the server's process down (ros2/rclcpp #3120), so a
// second SendGoal of a UUID, or one after Attach, is refused with
// ErrDuplicateGoal, and a send whose outcome is unknown is never retried.
// Keep one Client per action for the life of the process, and persist
// the UUIDs sent across restarts (Attach re-attaches without sending).
//
// The Server plays an rclcpp action server: the owner decides on goals
// and cancels (Handlers) and runs each accepted ServerGoal to its end;
// ended goals are remembered for the distro's result timeout, then
// get_result answers STATUS_UNKNOWN. A send_goal naming a UUID it holds is
// a client fault it survives: not run again, reported (OnDuplicate,
// Duplicates) and answered as rclcpp answers it.
package action
