package ros1face

import (
	"math"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/trajectory_msgs"
)

func trajectoryPoint(pos []float64, secs float64) trajectory_msgs.JointTrajectoryPoint {
	return trajectory_msgs.JointTrajectoryPoint{Positions: pos, TimeFromStart: time.Duration(secs * float64(time.Second))}
}

func near(a, b []float64, tol float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(a[i]-b[i]) > tol {
			return false
		}
	}
	return true
}
