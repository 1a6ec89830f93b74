package ros2

import (
	"context"
	"errors"
	"fmt"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/ros2/node"
	"github.com/actbridge/actbridge/ros2/qos"
)

// RobotDescription reads the URDF as ROS 2's robot_state_publisher
// offers it: a std_msgs/String on the config's robot_description_param
// topic, reliable and transient-local, so a subscriber that comes late
// still gets it. It waits until ctx ends.
func (r *Robot) RobotDescription(ctx context.Context) (string, error) {
	sub, err := r.node.NewSubscription(r.cfg.DescriptionParam, "std_msgs/msg/String", qos.Latched, node.SubscriptionOptions{LatestOnly: true})
	if err != nil {
		return "", fmt.Errorf("ros2: %s: %w", r.cfg.DescriptionParam, err)
	}
	defer sub.Close()
	for {
		m, _, err := sub.Take(ctx)
		if ctx.Err() != nil {
			return "", fmt.Errorf("%w: no %s published: %w", actuators.ErrNotConnected, r.cfg.DescriptionParam, ctx.Err())
		}
		if err == nil {
			s, _ := m.Get("data").(string)
			return s, nil
		}
	}
}

// WatchRobotDescription hands each to every robot description published
// while ctx lasts, with the writer that published it, so a URDF that
// changes (or a second publisher of another one) is seen at once.
func (r *Robot) WatchRobotDescription(ctx context.Context, each func(urdf, source string)) error {
	sub, err := r.node.NewSubscription(r.cfg.DescriptionParam, "std_msgs/msg/String", qos.Latched, node.SubscriptionOptions{})
	if err != nil {
		return fmt.Errorf("ros2: %s: %w", r.cfg.DescriptionParam, err)
	}
	defer sub.Close()
	for {
		m, info, err := sub.Take(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if errors.Is(err, node.ErrClosed) {
			return err
		}
		if err != nil {
			continue // a sample that does not decode is not a description
		}
		s, _ := m.Get("data").(string)
		each(s, "writer "+info.Writer.String())
	}
}
