package bridge

import (
	"context"
	"time"

	"github.com/actbridge/actbridge/spline"
)

// Robot is everything the tool layer needs from the ROS side. The actuators
// package implements it; tests use a fake. Sends return once the goal is on
// the wire (or fail before it is); progress and outcomes arrive through the
// observer as GoalUpdates keyed by the bridge's goal id (the motion id).
type Robot interface {
	// Actuators reports each actuator's connectivity, in a stable order.
	Actuators() []ActuatorStatus
	// Joints returns the latest joint readings (arm and gripper) as cached;
	// the cache may trail the wire by a few tens of milliseconds.
	Joints() JointsSnapshot
	// FreshJoints returns readings read from the wire after the call
	// (bounded by ctx and a short wait): previews and the check before a
	// send start from these.
	FreshJoints(ctx context.Context) JointsSnapshot
	// Odom returns the base's latest pose.
	Odom() (Pose2D, bool)
	// MasterReachable reports whether the ROS master answers.
	MasterReachable() bool

	SendTrajectory(ctx context.Context, goalID string, joints []string, points []spline.Point) error
	SendGripper(ctx context.Context, goalID string, position, maxEffort float64) error
	SendNavigate(ctx context.Context, goalID string, goal Pose2D) error
	// Drive publishes a twist at a fixed rate for d, with a deadman: it sends
	// zero at the end, on Cancel, on StopAll and on error.
	Drive(ctx context.Context, goalID string, linear, angular float64, d time.Duration) error
	// Cancel cancels one goal the bridge sent; never before its goal.
	Cancel(ctx context.Context, actuator, goalID string) error
	// StopAll cancels every goal on every actuator and sends a zero twist.
	// It takes no lock the other calls hold.
	StopAll(ctx context.Context) error
	// Track re-attaches to a goal sent before a restart: its updates resume,
	// or it is reported lost when the server no longer knows it.
	Track(actuator, goalID string)
	// SetObserver installs the single receiver of goal updates.
	SetObserver(func(GoalUpdate))

	// Topics lists the graph's topics; SampleTopic reads n messages as JSON.
	Topics(ctx context.Context) ([]TopicInfo, error)
	SampleTopic(ctx context.Context, topic string, n int, timeout time.Duration) ([]any, error)
}

// ActuatorStatus is one actuator's connectivity as the planner sees it.
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

// JointsSnapshot is the latest /joint_states as received.
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

// GoalUpdate is news about a goal the bridge sent or tracks. State uses the
// actionlib names in lower case (pending, active, preempted, succeeded,
// aborted, rejected, preempting, recalling, recalled), or "lost" when the
// server no longer reports the goal.
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
