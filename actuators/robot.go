package actuators

import (
	"context"
	"time"
)

// State is what a transport knows of the robot now.
type State interface {
	// Actuators reports each actuator's connectivity, in config order.
	Actuators() []ActuatorStatus
	// Joints returns the latest joint readings as cached; the cache may
	// trail the wire by a few tens of milliseconds.
	Joints() JointsSnapshot
	// FreshJoints returns the newest readings once each topic's are
	// current by the freshness rule (Cadence): a sample younger than its
	// topic's bound is taken at once; only an older one waits (bounded
	// by ctx and FreshWait) for a sample received after the call, and
	// Stale says none came. Previews and the check before a send start
	// from these.
	FreshJoints(ctx context.Context) JointsSnapshot
	// Odom returns a base's latest odometry pose; false when there is
	// none or it is stale.
	Odom(base string) (Pose2D, bool)
	// Connected reports whether the transport reaches the robot's graph
	// (ROS 1: the master answers).
	Connected() bool
}

// Motion sends goals with the caller's ids and reports what becomes of
// them. Updates arrive through the observer, in order, per goal.
type Motion interface {
	// Send puts goal on the wire for the named actuator under goalID. It
	// returns once the goal is on the wire, or with an error before it is
	// (then nothing was sent; ErrCanceledBeforeSend also means nothing was
	// sent), or with ErrMaybeSent when it cannot tell whether the goal
	// left (then it may run). A goalID already sent or tracked
	// is refused with ErrDuplicateGoal: a goal is never sent twice. For a
	// Drive, ctx is the deadman: the drive stops when ctx ends.
	Send(ctx context.Context, actuator, goalID string, goal Goal) error
	// Cancel cancels one goal; a cancel never goes out before its goal,
	// and Cancel never waits for a send in progress.
	Cancel(ctx context.Context, actuator, goalID string) error
	// StopAll cancels every goal on every actuator and stops every drive.
	// It takes no lock a send holds while it waits.
	StopAll(ctx context.Context) error
	// Track re-attaches to a goal sent before a restart: its updates
	// resume, or it is reported GoalLost when the server no longer knows it.
	Track(actuator, goalID string)
	// SetObserver installs the single receiver of goal updates. It is
	// called once at a time, in order, never under the transport's locks.
	SetObserver(func(GoalUpdate))
}

// Robot is what the motion tools need: state and motion.
type Robot interface {
	State
	Motion
}

// Graph is the robot's topics: list them, read a few messages, follow one,
// take a camera frame.
type Graph interface {
	// Topics lists the graph's topics.
	Topics(ctx context.Context) ([]TopicInfo, error)
	// SampleTypes lists the message types SampleTopic and WatchTopic decode.
	SampleTypes() []string
	// SampleTopic reads n messages as JSON-ready values, waiting at most
	// timeout.
	SampleTopic(ctx context.Context, topic string, n int, timeout time.Duration) ([]any, error)
	// WatchTopic calls fn with every message of a topic as JSON-ready
	// values until ctx ends, subscribing again after a reconnection.
	WatchTopic(ctx context.Context, topic string, fn func(msg any)) error
	// Snapshot waits for one frame of an image topic.
	Snapshot(ctx context.Context, topic string, timeout time.Duration) (Frame, error)
}

// Parameters are the robot's parameters.
type Parameters interface {
	// ParamNames lists every parameter name.
	ParamNames(ctx context.Context) ([]string, error)
	// GetParam reads one parameter as JSON-ready values (bool, int64,
	// float64, string, []any, map[string]any, []byte).
	GetParam(ctx context.Context, name string) (any, error)
	// SetParam stores a bool, int, float64 or string.
	SetParam(ctx context.Context, name string, value any) error
}

// Services are the robot's services.
type Services interface {
	// Services lists the graph's services, with their providers.
	Services(ctx context.Context) ([]ServiceInfo, error)
	// ServiceType asks a service's provider for its type (a probe: no
	// request is sent).
	ServiceType(ctx context.Context, name string) (string, error)
	// ServiceTypes are the service types CallService can send.
	ServiceTypes() []ServiceType
	// CallService sends one request, already checked against the type,
	// and waits at most timeout for the response. An error wrapping
	// ErrServiceNotSent means the request never left.
	CallService(ctx context.Context, name, typ string, request map[string]any, timeout time.Duration) (map[string]any, error)
}
