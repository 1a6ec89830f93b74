package doctor

import (
	"time"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/ros2/graph"
)

// Facts is what Gather read from the robot, for Judge.
type Facts struct {
	// Where names the graph ("ROS 2 jazzy, domain 3, localhost discovery").
	Where string
	// Reachable: another participant is known (ROS 2), the master
	// answers (ROS 1). Advice says what discovery could not reach and
	// what to set ("" when nothing is known).
	Reachable bool
	Advice    string
	// Actuators are the transport's own verdicts, as serve reports them
	// on /healthz: connected, and ambiguous (more than one server or
	// state publisher where the config names none).
	Actuators []actuators.ActuatorStatus
	// Topics are the robot's topics and types as the transport lists
	// them; TopicsErr when it could not.
	Topics    []actuators.TopicInfo
	TopicsErr error
	// Publishers are, by topic, the nodes publishing it as a ROS 1
	// master lists them; PublishersErr when it could not (nil over ROS 2,
	// whose graph says more).
	Publishers    map[string][]string
	PublishersErr error
	// URDF is the robot description the transport read, or URDFErr.
	URDF    string
	URDFErr error
	// MaxClockSkew overrides the package's MaxClockSkew when positive.
	MaxClockSkew time.Duration
	// ROS2 holds what only a ROS 2 graph tells; nil over ROS 1.
	ROS2 *ROS2Facts
}

// ROS2Facts is the ROS 2 graph as a second participant sees it.
type ROS2Facts struct {
	Distro msgs.Distro // the config's
	Graph  graph.Graph
	// ActionTypes are the action types the transport sends each
	// actuator's goals as ("control_msgs/action/GripperCommand").
	ActionTypes map[string]string
	// Stamps hold, by state topic, one message's header stamp and when
	// it arrived here.
	Stamps map[string]Stamp
	// UseSimTime is each action server node's use_sim_time parameter,
	// where the node answered.
	UseSimTime map[string]bool
}

// Stamp is one message's header stamp and the local time it arrived;
// Err says why none was read.
type Stamp struct {
	Stamp, Received time.Time
	Err             error
}
