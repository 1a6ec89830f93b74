package ros1face

import (
	"testing"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/actionlib_msgs"

	"github.com/actbridge/actbridge/msgs/ros1"
	"github.com/actbridge/actbridge/sim"
)

// The sim numbers goal states and trajectory error codes itself; on the
// wire they must be actionlib's and control_msgs' numbers.
func TestSimCodesAreROS1Codes(t *testing.T) {
	states := map[uint8]uint8{
		sim.StatusPending: actionlib_msgs.GoalStatus_PENDING, sim.StatusActive: actionlib_msgs.GoalStatus_ACTIVE,
		sim.StatusPreempted: actionlib_msgs.GoalStatus_PREEMPTED, sim.StatusSucceeded: actionlib_msgs.GoalStatus_SUCCEEDED,
		sim.StatusAborted: actionlib_msgs.GoalStatus_ABORTED, sim.StatusRejected: actionlib_msgs.GoalStatus_REJECTED,
		sim.StatusPreempting: actionlib_msgs.GoalStatus_PREEMPTING, sim.StatusRecalling: actionlib_msgs.GoalStatus_RECALLING,
		sim.StatusRecalled: actionlib_msgs.GoalStatus_RECALLED,
	}
	for s, w := range states {
		if s != w {
			t.Errorf("sim state %s is %d, actionlib's %d", sim.StatusName(s), s, w)
		}
	}
	codes := map[int32]int32{
		sim.ErrorSuccessful: msgs.FollowJointTrajectorySuccessful, sim.ErrorInvalidGoal: msgs.FollowJointTrajectoryInvalidGoal,
		sim.ErrorInvalidJoints: msgs.FollowJointTrajectoryInvalidJoints, sim.ErrorOldHeaderTimestamp: msgs.FollowJointTrajectoryOldHeaderTimestamp,
		sim.ErrorPathToleranceViolated: msgs.FollowJointTrajectoryPathToleranceViolated,
		sim.ErrorGoalToleranceViolated: msgs.FollowJointTrajectoryGoalToleranceViolated,
	}
	for s, w := range codes {
		if s != w {
			t.Errorf("sim error code %d, control_msgs' %d (%s)", s, w, msgs.TrajectoryErrorName(w))
		}
	}
}

// Every message the robot produces has a ROS 1 topic this face publishes.
func TestEveryRobotMessageHasATopic(t *testing.T) {
	cfg := sim.DefaultConfig()
	cfg.URDF, cfg.SecondArm = sim.DualArmURDF, true
	r, err := sim.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	r.GripperGoal(sim.GoalID{ID: "g"}, sim.GripperGoal{Position: 0.01})
	r.NavigateGoal(sim.GoalID{ID: "n"}, sim.PoseStamped{Frame: "odom", Pose: sim.Pose{Position: sim.Point3{X: 1}, Orientation: sim.Quaternion{W: 1}}})
	r.Advance(1500 * time.Millisecond)
	topics := map[string]bool{}
	for _, m := range r.Drain() {
		ws := wire(m)
		if len(ws) == 0 {
			t.Fatalf("%T has no ROS 1 topic", m)
		}
		for _, w := range ws {
			topics[w.topic] = true
		}
	}
	for _, want := range []string{TopicJointStates, TopicArmState, TopicArm2State, TopicOdom, TopicTF,
		sim.ArmAction + "/status", sim.Arm2Action + "/status", sim.GripperAction + "/feedback", sim.GripperAction + "/result",
		sim.MoveBaseAction + "/feedback", sim.MoveBaseAction + "/status"} {
		if !topics[want] {
			t.Errorf("nothing on %s", want)
		}
	}
}
