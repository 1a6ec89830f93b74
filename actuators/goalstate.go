package actuators

// GoalState is where a goal stands, as a transport reports it. Transports
// map their own words here (actionlib's numbers, ROS 2's action states);
// the tool layer sees only these.
type GoalState string

// Goal states.
const (
	// GoalPending: the server has the goal and has not started it.
	GoalPending GoalState = "pending"
	// GoalActive: the server is executing the goal.
	GoalActive GoalState = "active"
	// GoalCanceling: a cancel reached the server; the goal has not ended.
	GoalCanceling GoalState = "canceling"
	GoalSucceeded GoalState = "succeeded"
	// GoalAborted: the server gave up on the goal.
	GoalAborted GoalState = "aborted"
	// GoalCanceled: canceled after it started (actionlib's preempted).
	GoalCanceled GoalState = "canceled"
	// GoalRejected: the server refused the goal without starting it.
	GoalRejected GoalState = "rejected"
	// GoalRecalled: canceled before it started; it never moved anything.
	GoalRecalled GoalState = "recalled"
	// GoalLost: the server stopped reporting the goal (or never did)
	// without a result. It is not final: if the server reports the goal
	// again, its real state follows.
	GoalLost GoalState = "lost"
)

// Terminal reports whether the server will not change s again.
func (s GoalState) Terminal() bool {
	switch s {
	case GoalSucceeded, GoalAborted, GoalCanceled, GoalRejected, GoalRecalled:
		return true
	}
	return false
}

// GoalUpdate is news about a goal the caller sent or tracks.
type GoalUpdate struct {
	Actuator string
	GoalID   string
	State    GoalState
	Progress float64 // 0..1, when known
	Result   any     // terminal result, actuator-specific JSON shape
	Text     string
}
