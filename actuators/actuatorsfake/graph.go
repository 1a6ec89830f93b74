package actuatorsfake

import (
	"context"
	"fmt"
	"time"

	"github.com/actbridge/actbridge/actuators"
)

// The fake's graph: two topics, numbered samples, no camera.

var topics = []actuators.TopicInfo{{Name: "/odom", Type: "nav_msgs/Odometry"}, {Name: "/joint_states", Type: "sensor_msgs/JointState"}}

// Topics lists /odom and /joint_states.
func (r *Robot) Topics(context.Context) ([]actuators.TopicInfo, error) {
	return append([]actuators.TopicInfo(nil), topics...), nil
}

// SampleTypes are the two topics' types.
func (r *Robot) SampleTypes() []string { return []string{topics[0].Type, topics[1].Type} }

// SampleTopic returns n messages {topic, seq} of a known topic.
func (r *Robot) SampleTopic(_ context.Context, topic string, n int, _ time.Duration) ([]any, error) {
	known := false
	for _, t := range topics {
		known = known || t.Name == topic
	}
	if !known {
		return nil, fmt.Errorf("%w: %s", actuators.ErrUnknownTopic, topic)
	}
	out := make([]any, n)
	for i := range out {
		out[i] = map[string]any{"topic": topic, "seq": i}
	}
	return out, nil
}

// WatchTopic delivers nothing until ctx ends.
func (r *Robot) WatchTopic(ctx context.Context, _ string, _ func(any)) error {
	<-ctx.Done()
	return nil
}

// Snapshot fails: the fake has no camera.
func (r *Robot) Snapshot(_ context.Context, topic string, _ time.Duration) (actuators.Frame, error) {
	return actuators.Frame{}, fmt.Errorf("%w: %s", actuators.ErrUnknownTopic, topic)
}
