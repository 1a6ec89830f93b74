package ros1

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/bluenviron/goroslib/v2"
	"github.com/bluenviron/goroslib/v2/pkg/msgproc"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/actionlib_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/control_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/diagnostic_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/geometry_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/nav_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/rosgraph_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/sensor_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/tf2_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/trajectory_msgs"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/msgs/ros1"
)

// sampler subscribes to a topic of one known type on n, offering every
// message to out (dropping when it is full).
type sampler func(n *goroslib.Node, topic string, out chan<- any) (func(), error)

func samplerOf[T any]() sampler {
	return func(n *goroslib.Node, topic string, out chan<- any) (func(), error) {
		s, err := goroslib.NewSubscriber(goroslib.SubscriberConf{
			Node: n, Topic: topic,
			Callback: func(m *T) {
				select {
				case out <- m:
				default:
				}
			},
		})
		if err != nil {
			return nil, err
		}
		return s.Close, nil
	}
}

// sampleTypes are the message types SampleTopic can decode: goroslib needs
// a Go type to subscribe, so arbitrary types cannot be read. Keyed by the
// ROS type name the Go type declares.
var sampleTypes = func() map[string]sampler {
	list := []struct {
		zero any
		s    sampler
	}{
		{sensor_msgs.JointState{}, samplerOf[sensor_msgs.JointState]()},
		{sensor_msgs.Imu{}, samplerOf[sensor_msgs.Imu]()},
		{sensor_msgs.BatteryState{}, samplerOf[sensor_msgs.BatteryState]()},
		{sensor_msgs.LaserScan{}, samplerOf[sensor_msgs.LaserScan]()},
		{sensor_msgs.Range{}, samplerOf[sensor_msgs.Range]()},
		{sensor_msgs.Temperature{}, samplerOf[sensor_msgs.Temperature]()},
		{nav_msgs.Odometry{}, samplerOf[nav_msgs.Odometry]()},
		{nav_msgs.Path{}, samplerOf[nav_msgs.Path]()},
		{geometry_msgs.Twist{}, samplerOf[geometry_msgs.Twist]()},
		{geometry_msgs.TwistStamped{}, samplerOf[geometry_msgs.TwistStamped]()},
		{geometry_msgs.PoseStamped{}, samplerOf[geometry_msgs.PoseStamped]()},
		{geometry_msgs.PoseWithCovarianceStamped{}, samplerOf[geometry_msgs.PoseWithCovarianceStamped]()},
		{geometry_msgs.WrenchStamped{}, samplerOf[geometry_msgs.WrenchStamped]()},
		{control_msgs.JointTrajectoryControllerState{}, samplerOf[control_msgs.JointTrajectoryControllerState]()},
		{trajectory_msgs.JointTrajectory{}, samplerOf[trajectory_msgs.JointTrajectory]()},
		{actionlib_msgs.GoalStatusArray{}, samplerOf[actionlib_msgs.GoalStatusArray]()},
		{actionlib_msgs.GoalID{}, samplerOf[actionlib_msgs.GoalID]()},
		{msgs.FollowJointTrajectoryActionGoal{}, samplerOf[msgs.FollowJointTrajectoryActionGoal]()},
		{msgs.FollowJointTrajectoryActionFeedback{}, samplerOf[msgs.FollowJointTrajectoryActionFeedback]()},
		{msgs.FollowJointTrajectoryActionResult{}, samplerOf[msgs.FollowJointTrajectoryActionResult]()},
		{msgs.GripperCommandActionGoal{}, samplerOf[msgs.GripperCommandActionGoal]()},
		{msgs.GripperCommandActionFeedback{}, samplerOf[msgs.GripperCommandActionFeedback]()},
		{msgs.GripperCommandActionResult{}, samplerOf[msgs.GripperCommandActionResult]()},
		{msgs.MoveBaseActionGoal{}, samplerOf[msgs.MoveBaseActionGoal]()},
		{msgs.MoveBaseActionFeedback{}, samplerOf[msgs.MoveBaseActionFeedback]()},
		{msgs.MoveBaseActionResult{}, samplerOf[msgs.MoveBaseActionResult]()},
		{diagnostic_msgs.DiagnosticArray{}, samplerOf[diagnostic_msgs.DiagnosticArray]()},
		{tf2_msgs.TFMessage{}, samplerOf[tf2_msgs.TFMessage]()},
		{rosgraph_msgs.Log{}, samplerOf[rosgraph_msgs.Log]()},
		{rosgraph_msgs.Clock{}, samplerOf[rosgraph_msgs.Clock]()},
		{std_msgs.String{}, samplerOf[std_msgs.String]()},
		{std_msgs.Bool{}, samplerOf[std_msgs.Bool]()},
		{std_msgs.Float64{}, samplerOf[std_msgs.Float64]()},
		{std_msgs.Float32{}, samplerOf[std_msgs.Float32]()},
		{std_msgs.Int32{}, samplerOf[std_msgs.Int32]()},
		{std_msgs.Int64{}, samplerOf[std_msgs.Int64]()},
		{std_msgs.UInt8{}, samplerOf[std_msgs.UInt8]()},
		{std_msgs.Empty{}, samplerOf[std_msgs.Empty]()},
		{std_msgs.Header{}, samplerOf[std_msgs.Header]()},
		{std_msgs.Float64MultiArray{}, samplerOf[std_msgs.Float64MultiArray]()},
	}
	m := make(map[string]sampler, len(list))
	for _, e := range list {
		name, err := msgproc.Type(e.zero)
		if err != nil {
			panic(fmt.Sprintf("actuators: sample type %T: %v", e.zero, err))
		}
		m[name] = e.s
	}
	return m
}()

// SampleTypes lists the message types SampleTopic supports, sorted.
func SampleTypes() []string {
	out := make([]string, 0, len(sampleTypes))
	for t := range sampleTypes {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// Topics lists the graph's topics with their types (the master's
// getTopicTypes), sorted by name.
func (r *Robot) Topics(ctx context.Context) ([]actuators.TopicInfo, error) {
	topics, err := r.masterTopics(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]actuators.TopicInfo, 0, len(topics))
	for name, info := range topics {
		out = append(out, actuators.TopicInfo{Name: name, Type: info.Type})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// masterTopics asks the master, giving up when ctx ends (goroslib's call
// itself is bounded by its 10 s HTTP timeout).
func (r *Robot) masterTopics(ctx context.Context) (map[string]*goroslib.InfoTopic, error) {
	n := r.link.Node()
	if n == nil {
		return nil, fmt.Errorf("%w: no ROS node", actuators.ErrNotConnected)
	}
	type answer struct {
		m   map[string]*goroslib.InfoTopic
		err error
	}
	ch := make(chan answer, 1) // the call finishes on its own if ctx ends first
	go func() {
		m, err := n.MasterGetTopics()
		ch <- answer{m, err}
	}()
	select {
	case a := <-ch:
		if a.err != nil {
			return nil, fmt.Errorf("%w: ask the master for topics: %v", actuators.ErrNotConnected, a.err)
		}
		return a.m, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// SampleTopic reads up to n messages of a topic within timeout (bounded
// by actuators.SampleBounds) and
// returns them as JSON-ready values with ROS field names; times and
// durations are seconds. Fewer than n messages is not an error; none is
// actuators.ErrNoMessages. Topics of types outside SampleTypes fail with
// actuators.ErrUnsupportedType.
func (r *Robot) SampleTopic(ctx context.Context, topic string, n int, timeout time.Duration) ([]any, error) {
	n, timeout, err := actuators.SampleBounds(n, timeout)
	if err != nil {
		return nil, err
	}
	if !strings.HasPrefix(topic, "/") {
		topic = "/" + topic
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	topics, err := r.masterTopics(ctx)
	if err != nil {
		return nil, err
	}
	info, ok := topics[topic]
	if !ok {
		return nil, fmt.Errorf("%w: %s is not published (see Topics)", actuators.ErrUnknownTopic, topic)
	}
	sub, ok := sampleTypes[info.Type]
	if !ok {
		return nil, fmt.Errorf("%w: %s has type %s; supported types: %s", actuators.ErrUnsupportedType, topic, info.Type, strings.Join(SampleTypes(), ", "))
	}

	var ch <-chan any
	if r.subs.isOwned(topic) {
		// Our node already subscribes; goroslib allows one subscriber per topic.
		tch, stop := r.subs.tap(topic, n)
		defer stop()
		ch = tch
	} else {
		node := r.link.Node()
		if node == nil {
			return nil, fmt.Errorf("%w: no ROS node", actuators.ErrNotConnected)
		}
		out := make(chan any, n)
		closeSub, err := sub(node, topic, out)
		if err != nil {
			return nil, fmt.Errorf("subscribe %s: %w", topic, err)
		}
		defer closeSub()
		ch = out
	}
	var got []any
	for len(got) < n {
		select {
		case m := <-ch:
			got = append(got, rosJSON(m))
		case <-ctx.Done():
			if len(got) == 0 {
				if ctx.Err() == context.DeadlineExceeded {
					return nil, fmt.Errorf("%w on %s (%s) within %s", actuators.ErrNoMessages, topic, info.Type, timeout)
				}
				return nil, ctx.Err()
			}
			return got, nil
		}
	}
	return got, nil
}

// SampleTypes lists the message types SampleTopic and WatchTopic decode.
func (r *Robot) SampleTypes() []string { return SampleTypes() }
