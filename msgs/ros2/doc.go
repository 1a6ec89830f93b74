// Package msgs holds the ROS 2 interface definitions the bridge speaks,
// one set per distro (Humble, Jazzy, Kilted, Lyrical), as upstream's .msg,
// .srv and .action text embedded in the binary, and loads a set into a
// [msgdef.Registry]. The sets differ on the wire where upstream does:
// rmw_dds_common/Gid, nav2_msgs NavigateToPose's result and, in Lyrical,
// its feedback, and from Kilted control_msgs FollowJointTrajectory's
// feedback. README.md names the upstream repository and commit of every
// file.
package msgs
