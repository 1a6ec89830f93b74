// Package spline interpolates joint trajectories exactly as ROS 1
// ros_control's joint_trajectory_controller does (QuinticSplineSegment), so
// the safety checks and the simulated robot see the motion the real
// controller would command.
//
// Per segment, all joints use the lowest common specification of the two
// ends: positions only → linear, positions+velocities → cubic, positions,
// velocities and accelerations → quintic. The first segment runs from the
// start (current) state at time 0 to the first point. Outside [0, Duration]
// the trajectory holds the start or end position with zero velocity and
// acceleration, as QuinticSplineSegment::sampleWithTimeBounds does.
package spline
