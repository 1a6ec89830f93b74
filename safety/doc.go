// Package safety owns robot limits (URDF plus joint_limits.yaml), trajectory
// checks, base speed caps and geofence, the tier policy and the e-stop latch.
// It imports nothing of ours but spline, so the checks see exactly the motion
// ros_control's joint_trajectory_controller would command.
//
// Everything here is pure and IO-free; values built from configuration
// (*Limits, *Base, *Policy) are immutable and safe for concurrent use.
package safety
