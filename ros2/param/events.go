package param

import (
	"context"
	"fmt"
	"time"

	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/ros2/names"
	"github.com/actbridge/actbridge/ros2/qos"
	"github.com/actbridge/actbridge/ros2/service"
	"github.com/actbridge/actbridge/rtps"
)

// EventsTopic is the ROS topic every node reports parameter changes on.
const EventsTopic = "/parameter_events"

// Event is one rcl_interfaces/ParameterEvent: a node's parameters that
// appeared, changed or were deleted.
type Event struct {
	Stamp                 time.Time
	Node                  string
	New, Changed, Deleted []Parameter
}

// Events subscribes to /parameter_events (keep-last 1000, reliable, as
// rclcpp publishes it). Close it to withdraw the reader.
type Events struct {
	r    *rtps.Reader
	e    rtps.EndpointData
	t    *cdr.Struct
	hook service.EndpointHook
}

// SubscribeEvents starts the subscription; hook (may be nil) is told of
// the reader, for a node's ros_discovery_info.
func SubscribeEvents(p *rtps.Participant, set *msgs.Set, hook service.EndpointHook) (*Events, error) {
	t, err := set.Struct("rcl_interfaces/msg/ParameterEvent")
	if err != nil {
		return nil, err
	}
	topic, _ := names.TopicDDS(EventsTopic)
	typ, _ := names.TypeDDS("rcl_interfaces/msg/ParameterEvent")
	ud := service.TypeHashUserData(set, "rcl_interfaces/msg/ParameterEvent")
	r, e, err := hook.NewReader(p, rtps.EndpointData{Topic: topic, Type: typ, QoS: qos.ParameterEvents.QoS, UserData: ud})
	if err != nil {
		return nil, err
	}
	return &Events{r: r, e: e, t: t, hook: hook}, nil
}

// Next waits for the next event, from any node.
func (e *Events) Next(ctx context.Context) (Event, error) {
	for {
		s, err := e.r.Take(ctx)
		if err != nil {
			return Event{}, err
		}
		m, err := cdr.Decode(e.t, s.Payload)
		if err != nil {
			continue // a sample that does not decode is not an event
		}
		return eventOf(m)
	}
}

func eventOf(m *cdr.Message) (Event, error) {
	var ev Event
	ev.Node, _ = m.Get("node").(string)
	if st, ok := m.Get("stamp").(*cdr.Message); ok {
		sec, _ := st.Get("sec").(int32)
		ns, _ := st.Get("nanosec").(uint32)
		ev.Stamp = time.Unix(int64(sec), int64(ns))
	}
	var err error
	for _, f := range []struct {
		dst  *[]Parameter
		name string
	}{{&ev.New, "new_parameters"}, {&ev.Changed, "changed_parameters"}, {&ev.Deleted, "deleted_parameters"}} {
		if *f.dst, err = parametersOf(m.Get(f.name)); err != nil {
			return ev, fmt.Errorf("event of %s: %w", ev.Node, err)
		}
	}
	return ev, nil
}

// Close withdraws the subscription.
func (e *Events) Close() error {
	e.hook.Withdrawn(e.e)
	return e.r.Close()
}
