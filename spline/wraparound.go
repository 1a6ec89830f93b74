package spline

import "math"

// WrapOffset is the offset joint_trajectory_controller adds to every point of
// a continuous joint so the move from current to the first target takes the
// shortest way round (wraparoundJointOffset in ros_control).
func WrapOffset(current, target float64) float64 {
	dist := normalizeAngle(target - current) // angles::shortest_angular_distance
	if math.Abs(math.Abs(dist)-math.Pi) < 1e-9 {
		// Exactly half a turn: ros_control goes the way the raw numbers point.
		if target > current {
			dist = math.Abs(dist)
		} else {
			dist = -math.Abs(dist)
		}
	}
	return (current + dist) - target
}

// normalizeAngle maps a to (−π, π] like angles::normalize_angle.
func normalizeAngle(a float64) float64 {
	r := math.Mod(a+math.Pi, 2.0*math.Pi)
	if r <= 0.0 {
		return r + math.Pi
	}
	return r - math.Pi
}
