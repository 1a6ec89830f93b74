package sim

import "time"

// The sim's own message types: what goals carry in and what the robot
// hands out. A face (sim/ros1face, sim/ros2face) translates between them
// and its wire; the core names no transport.

// TrajectoryPoint is one waypoint of a joint trajectory, or a controller
// state (desired, actual, error).
type TrajectoryPoint struct {
	Positions, Velocities, Accelerations, Effort []float64
	TimeFromStart                                time.Duration
}

// Trajectory is a joint trajectory. It starts at Stamp (now when zero).
type Trajectory struct {
	Stamp      time.Time
	Frame      string
	JointNames []string
	Points     []TrajectoryPoint
}

// JointTolerance is a per-joint tolerance: > 0 overrides the default, 0
// keeps it, < 0 disables the check.
type JointTolerance struct {
	Name                             string
	Position, Velocity, Acceleration float64
}

// TrajectoryGoal is a FollowJointTrajectory goal.
type TrajectoryGoal struct {
	Trajectory                   Trajectory
	PathTolerance, GoalTolerance []JointTolerance
	GoalTimeTolerance            time.Duration
}

// TrajectoryResult is how an arm goal ended (ErrorSuccessful, …).
type TrajectoryResult struct {
	ErrorCode   int32
	ErrorString string
}

// ControllerState is a trajectory controller's desired, actual and error
// state, stamped with simulated time.
type ControllerState struct {
	Stamp                  time.Time
	JointNames             []string
	Desired, Actual, Error TrajectoryPoint
}

// TrajectoryFeedback is an arm goal's feedback: the controller state.
type TrajectoryFeedback = ControllerState

// GripperGoal moves the finger to Position (m), pushing with at most
// MaxEffort (0: the joint's limit).
type GripperGoal struct {
	Position, MaxEffort float64
}

// GripperResult is the finger's state when a gripper goal ended.
type GripperResult struct {
	Position, Effort     float64
	Stalled, ReachedGoal bool
}

// GripperFeedback is the finger's state while a gripper goal runs.
type GripperFeedback GripperResult

// Point3 is a position (m).
type Point3 struct{ X, Y, Z float64 }

// Quaternion is an orientation.
type Quaternion struct{ X, Y, Z, W float64 }

// Pose is a position and orientation.
type Pose struct {
	Position    Point3
	Orientation Quaternion
}

// PoseStamped is a pose in a frame at a time: a navigation goal's target
// and its feedback, the base's pose.
type PoseStamped struct {
	Stamp time.Time
	Frame string
	Pose  Pose
}

// NavigateResult is a navigation goal's (empty) result.
type NavigateResult struct{}

// NavigateFeedback is the base's pose while a navigation goal runs.
type NavigateFeedback = PoseStamped

// Message is one thing the robot produced for its faces to publish:
// *JointState, *ArmState, *Odometry, *ActionStatus, *ActionResult or
// *ActionFeedback.
type Message interface{ message() }

// JointState is every joint's position, velocity and effort: the arm
// joints, the second arm's, then the gripper joint.
type JointState struct {
	Seq                        uint32
	Stamp                      time.Time
	Name                       []string
	Position, Velocity, Effort []float64
}

// ArmState is one arm's controller state (Arm or Arm2).
type ArmState struct {
	Arm string
	ControllerState
}

// Odometry is the base's pose in OdomFrame and its body velocity.
type Odometry struct {
	Seq               uint32
	Stamp             time.Time
	Frame, ChildFrame string // OdomFrame, BaseFrame
	Pose              Pose
	Linear, Angular   float64 // m/s forward, rad/s about z
}

// GoalStatus is one goal's state as clients are told it.
type GoalStatus struct {
	ID     GoalID
	Status uint8
	Text   string
}

// ActionStatus is an action server's status list (Arm, Gripper, …).
// Seq counts the server's stamped messages: statuses, results, feedback.
type ActionStatus struct {
	Action string
	Seq    uint32
	Stamp  time.Time
	List   []GoalStatus
}

// ActionResult ends a goal: Result is a TrajectoryResult, GripperResult
// or NavigateResult.
type ActionResult struct {
	Action string
	Seq    uint32
	Stamp  time.Time
	Status GoalStatus
	Result any
}

// ActionFeedback informs about a running goal: Feedback is a
// TrajectoryFeedback, GripperFeedback or NavigateFeedback.
type ActionFeedback struct {
	Action   string
	Seq      uint32
	Stamp    time.Time
	Status   GoalStatus
	Feedback any
}

func (*JointState) message()     {}
func (*ArmState) message()       {}
func (*Odometry) message()       {}
func (*ActionStatus) message()   {}
func (*ActionResult) message()   {}
func (*ActionFeedback) message() {}
