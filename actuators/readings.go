package actuators

import "time"

// JointReading is one joint's latest state.
type JointReading struct {
	Name     string  `json:"name"`
	Position float64 `json:"position"`
	Velocity float64 `json:"velocity"`
	Effort   float64 `json:"effort"`
}

// JointsSnapshot is the latest joint readings as received.
type JointsSnapshot struct {
	Joints   []JointReading
	Received time.Time // zero when nothing has arrived yet
	// Stale (FreshJoints only): a topic's newest sample was older than its
	// Cadence bound and no newer one came within the wait.
	Stale bool
}

// Pose2D is a planar pose in a named frame.
type Pose2D struct {
	Frame string  `json:"frame"`
	X     float64 `json:"x"`
	Y     float64 `json:"y"`
	Yaw   float64 `json:"yaw"`
}
