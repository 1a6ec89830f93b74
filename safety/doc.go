// Package safety owns robot limits (URDF plus joint_limits.yaml), trajectory
// checks, the tier policy and the e-stop latch. It imports nothing of ours.
package safety
