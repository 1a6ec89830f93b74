package sim

import "github.com/bluenviron/goroslib/v2/pkg/msgs/geometry_msgs"

// The goals, results and feedback the action servers take and give, for
// a face other than ROS 1's; named here so that such a face need not
// import the ROS 1 message package they are defined in.
type (
	TrajectoryGoal     = trajGoal
	TrajectoryResult   = trajResult
	TrajectoryFeedback = trajFeedback
	GripperGoal        = gripGoal
	GripperResult      = gripResult
	GripperFeedback    = gripFeedback
)

// NavigateGoal is a goal for the base to reach target, as MoveBaseGoal
// without the move_base wrapper.
func (r *Robot) NavigateGoal(id GoalID, target geometry_msgs.PoseStamped) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.navSrv.handleGoal(r.clock.Now(), r.wall(), id, target)
}
