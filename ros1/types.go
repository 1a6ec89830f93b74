package ros1

import "time"

// These mirror bridge's types field for field (actuators must not import
// bridge), so cmd/actbridge converts them with plain struct conversions.

// ActuatorStatus is one actuator's connectivity.
type ActuatorStatus struct {
	Name      string `json:"name"`
	Kind      string `json:"kind"`
	Connected bool   `json:"connected"`
	Detail    string `json:"detail,omitempty"`
	// Action is the action namespace (or topic for cmd_vel drives).
	Action string `json:"action,omitempty"`
}

// JointReading is one joint's latest state.
type JointReading struct {
	Name     string  `json:"name"`
	Position float64 `json:"position"`
	Velocity float64 `json:"velocity"`
	Effort   float64 `json:"effort"`
}

// JointsSnapshot is the latest joint states as received.
type JointsSnapshot struct {
	Joints   []JointReading
	Received time.Time // zero when nothing has arrived yet
}

// Pose2D is a planar pose in a named frame.
type Pose2D struct {
	Frame string  `json:"frame"`
	X     float64 `json:"x"`
	Y     float64 `json:"y"`
	Yaw   float64 `json:"yaw"`
}

// GoalUpdate is news about a goal the bridge sent or tracks. State is one
// of the State* names.
type GoalUpdate struct {
	Actuator string
	GoalID   string
	State    string
	Progress float64 // 0..1, when known
	Result   any     // terminal result, actuator-specific JSON shape
	Text     string
}

// TopicInfo is one topic of the ROS graph.
type TopicInfo struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

// Goal states as GoalUpdate reports them: actionlib's names in lower case,
// plus StateLost.
const (
	StatePending    = "pending"
	StateActive     = "active"
	StatePreempted  = "preempted"
	StateSucceeded  = "succeeded"
	StateAborted    = "aborted"
	StateRejected   = "rejected"
	StatePreempting = "preempting"
	StateRecalling  = "recalling"
	StateRecalled   = "recalled"
	// StateLost: the server stopped reporting the goal (or never did)
	// without a result. It is not final: if the server reports the goal
	// again, its real state follows.
	StateLost = "lost"
)

// stateNames maps actionlib_msgs/GoalStatus numbers to state names.
var stateNames = [...]string{
	StatePending, StateActive, StatePreempted, StateSucceeded, StateAborted,
	StateRejected, StatePreempting, StateRecalling, StateRecalled,
}

// StateName is the GoalUpdate state of an actionlib_msgs/GoalStatus number;
// LOST (9) and unknown numbers map to StateLost.
func StateName(status uint8) string {
	if int(status) < len(stateNames) {
		return stateNames[status]
	}
	return StateLost
}

// Terminal reports whether a state is final for actionlib: the server will
// not change it again.
func Terminal(state string) bool {
	switch state {
	case StatePreempted, StateSucceeded, StateAborted, StateRejected, StateRecalled:
		return true
	}
	return false
}
