package ros2

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/ros2/graph"
	"github.com/actbridge/actbridge/ros2/names"
	"github.com/actbridge/actbridge/ros2/node"
	"github.com/actbridge/actbridge/ros2/qos"
)

// Bounds of the graph look-ups and of WatchTopic.
const (
	// discoveryWait is how long a look-up waits for a name the graph does
	// not list yet: a publisher or server that just started is announced
	// within it.
	discoveryWait = time.Second
	// watchEvery is the shortest gap between two messages WatchTopic hands
	// on: conditions need the trend, not every message of a 100 Hz topic.
	watchEvery = 50 * time.Millisecond
	// watchCheck is how often WatchTopic looks for publishers of another type.
	watchCheck = time.Second
)

// Topics lists the graph's topics with their types in ROS 2 form
// ("sensor_msgs/msg/JointState"), sorted by name; hidden topics (an
// action's, say) are left out as `ros2 topic list` leaves them out. A
// topic whose endpoints disagree on the type lists every type, joined by
// ", ".
func (r *Robot) Topics(context.Context) ([]actuators.TopicInfo, error) {
	g := r.rctx.Graph()
	out := make([]actuators.TopicInfo, 0, len(g.Topics))
	for _, t := range g.Topics {
		if !names.IsHidden(t.Name) {
			out = append(out, actuators.TopicInfo{Name: t.Name, Type: strings.Join(t.Types, ", ")})
		}
	}
	return out, nil
}

// SampleTypes lists the message types SampleTopic and WatchTopic decode:
// every message of the robot's distro's set, sorted.
func (r *Robot) SampleTypes() []string {
	set, err := r.access.types(r.Distro())
	if err != nil {
		return nil
	}
	return slices.Clone(set.messages) // the catalogue is shared by every call
}

// discover waits (at most discoveryWait, within ctx) until find finds
// what it looks for in the graph; missing is the error when it does not,
// also when ctx's own deadline cut the wait short.
func discover[T any](ctx context.Context, c *node.Context, find func(graph.Graph) (T, bool), missing error) (T, error) {
	wait, cancel := context.WithTimeout(ctx, discoveryWait)
	defer cancel()
	var found T
	_, err := c.WaitGraph(wait, func(g graph.Graph) (ok bool) { found, ok = find(g); return ok })
	switch {
	case err == nil:
		return found, nil
	case errors.Is(err, node.ErrClosed):
		return found, fmt.Errorf("%w: %w", actuators.ErrClosed, err)
	case errors.Is(ctx.Err(), context.Canceled):
		return found, ctx.Err()
	}
	return found, missing
}

// published waits for a publisher of topic, and returns the topic and
// its one type.
func (r *Robot) published(ctx context.Context, topic string) (graph.Topic, string, error) {
	t, err := discover(ctx, r.rctx, func(g graph.Graph) (graph.Topic, bool) {
		t, ok := g.Topic(topic)
		return t, ok && len(t.Publishers) > 0
	}, fmt.Errorf("%w: %s is not published (see Topics)", actuators.ErrUnknownTopic, topic))
	switch {
	case err != nil:
		return t, "", err
	case len(t.Types) != 1:
		return t, "", fmt.Errorf("%w: %s is published with several types %v", actuators.ErrUnsupportedType, topic, t.Types)
	}
	return t, t.Types[0], nil
}

// subscribe makes a subscription of typ on topic that matches the
// topic's publishers (qos.Adapted). A type the distro's set lacks, or
// publishers whose definition of it differs, is ErrUnsupportedType.
func (r *Robot) subscribe(ctx context.Context, t graph.Topic, typ string, o node.SubscriptionOptions) (*node.Subscription, error) {
	sub, err := r.node.NewSubscription(t.Name, typ, qos.Adapted(t.PublisherQoS()), o)
	switch {
	case errors.Is(err, node.ErrType):
		return nil, fmt.Errorf("%w: %s has type %s: %v", actuators.ErrUnsupportedType, t.Name, typ, err)
	case errors.Is(err, node.ErrClosed):
		return nil, fmt.Errorf("%w: %w", actuators.ErrClosed, err)
	case err != nil:
		return nil, fmt.Errorf("subscribe %s: %w", t.Name, err)
	}
	// Matching completes within a discovery round; a publisher of the same
	// type name but another definition would hand us garbage.
	wait, cancel := context.WithTimeout(ctx, discoveryWait)
	_ = sub.WaitMatched(wait, 1)
	cancel()
	if mm := sub.TypeMismatches(); len(mm) > 0 {
		sub.Close()
		return nil, fmt.Errorf("%w: %s: %s (another distro's definition?)", actuators.ErrUnsupportedType, t.Name, mm[0])
	}
	return sub, nil
}

// absolute puts a topic given without its leading slash at the root.
func absolute(topic string) string {
	if !strings.HasPrefix(topic, "/") {
		return "/" + topic
	}
	return topic
}

// SampleTopic reads up to n messages of a topic within timeout (bounded
// by actuators.SampleBounds) and
// returns them as JSON-ready values with ROS field names; times and
// durations are seconds, as on ROS 1. Fewer than n messages is not an
// error; none is actuators.ErrNoMessages. A topic nobody publishes is
// actuators.ErrUnknownTopic; one of a type outside SampleTypes is
// actuators.ErrUnsupportedType.
func (r *Robot) SampleTopic(ctx context.Context, topic string, n int, timeout time.Duration) ([]any, error) {
	n, timeout, err := actuators.SampleBounds(n, timeout)
	if err != nil {
		return nil, err
	}
	topic = absolute(topic)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	t, typ, err := r.published(ctx, topic)
	if err != nil {
		return nil, err
	}
	sub, err := r.subscribe(ctx, t, typ, node.SubscriptionOptions{})
	if err != nil {
		return nil, err
	}
	defer sub.Close()
	var got []any
	for len(got) < n {
		m, _, err := sub.Take(ctx)
		switch {
		case err == nil:
			got = append(got, messageJSON(m))
		case ctx.Err() == nil && !errors.Is(err, node.ErrClosed):
			continue // a sample that does not decode; the next may
		case len(got) > 0:
			return got, nil
		case errors.Is(ctx.Err(), context.DeadlineExceeded):
			return nil, fmt.Errorf("%w on %s (%s) within %s", actuators.ErrNoMessages, topic, typ, timeout)
		case ctx.Err() != nil:
			return nil, ctx.Err()
		default:
			return nil, fmt.Errorf("%w: %w", actuators.ErrClosed, err)
		}
	}
	return got, nil
}

// WatchTopic calls fn with the topic's messages as JSON-ready values (at
// most one per watchEvery) until ctx ends, then returns nil. It waits for
// the topic to be published; its subscription outlives publishers that
// leave and come back (DDS matches them again), and is made again when
// the topic's publishers change to another type. A topic of a type
// outside SampleTypes fails with actuators.ErrUnsupportedType.
func (r *Robot) WatchTopic(ctx context.Context, topic string, fn func(msg any)) error {
	topic = absolute(topic)
	for ctx.Err() == nil {
		t, typ, err := r.published(ctx, topic)
		switch {
		case errors.Is(err, actuators.ErrUnknownTopic):
			continue // published waited discoveryWait; keep waiting
		case errors.Is(err, actuators.ErrClosed):
			return err
		case err != nil && ctx.Err() != nil:
			return nil
		case err != nil:
			return err
		}
		sub, err := r.subscribe(ctx, t, typ, node.SubscriptionOptions{LatestOnly: true})
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		err = r.watchOn(ctx, sub, typ, fn)
		sub.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// watchOn delivers sub's messages until ctx ends (nil) or the topic's
// publishers turn to another type than typ (nil, to subscribe again).
func (r *Robot) watchOn(ctx context.Context, sub *node.Subscription, typ string, fn func(any)) error {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan struct{})
	go func() { // the type check; ends with wctx
		defer close(done)
		tick := time.NewTicker(watchCheck)
		defer tick.Stop()
		for {
			select {
			case <-wctx.Done():
				return
			case <-tick.C:
				if t, ok := r.rctx.Graph().Topic(sub.Topic()); ok && len(t.Publishers) > 0 && !slices.Contains(t.Types, typ) {
					cancel()
					return
				}
			}
		}
	}()
	defer func() { cancel(); <-done }()
	var last time.Time
	for {
		m, _, err := sub.Take(wctx)
		switch {
		case wctx.Err() != nil:
			return nil
		case errors.Is(err, node.ErrClosed):
			return fmt.Errorf("%w: %w", actuators.ErrClosed, err)
		case err != nil:
			continue
		}
		if now := time.Now(); now.Sub(last) >= watchEvery {
			last = now
			fn(messageJSON(m))
		}
	}
}

// The builtin_interfaces types JSON values turn into seconds.
const (
	timeType     = "builtin_interfaces/msg/Time"
	durationType = "builtin_interfaces/msg/Duration"
)

// messageJSON turns a message into JSON-ready values with the ROS field
// names, as ROS 1's transport does: builtin_interfaces Time and Duration
// become seconds; NaN and ±Inf become nil, which encoding/json cannot
// write otherwise; uint8[] stays []byte (base64, as rosbridge does);
// other arrays become []any.
func messageJSON(m *cdr.Message) any {
	if m == nil {
		return nil
	}
	switch m.Type.Name() {
	case timeType, durationType:
		sec, _ := m.Get("sec").(int32)
		ns, _ := m.Get("nanosec").(uint32)
		return float64(sec) + float64(ns)/1e9
	}
	out := make(map[string]any, m.Type.NumField())
	for i := range m.Type.NumField() {
		var v any
		if i < len(m.Fields) {
			v = m.Fields[i]
		}
		out[m.Type.Field(i).Name] = valueJSON(v)
	}
	return out
}

func valueJSON(v any) any {
	switch x := v.(type) {
	case *cdr.Message:
		return messageJSON(x)
	case float32:
		return orNil(float64(x))
	case float64:
		return orNil(x)
	case int8:
		return int64(x)
	case int16:
		return int64(x)
	case int32:
		return int64(x)
	case uint8:
		return uint64(x)
	case uint16:
		return uint64(x)
	case uint32:
		return uint64(x)
	case []uint8:
		return x
	case []*cdr.Message:
		return listJSON(x, func(m *cdr.Message) any { return messageJSON(m) })
	case []float32:
		return listJSON(x, func(f float32) any { return orNil(float64(f)) })
	case []float64:
		return listJSON(x, orNil)
	case []bool:
		return listJSON(x, func(b bool) any { return b })
	case []string:
		return listJSON(x, func(s string) any { return s })
	case []int8:
		return listJSON(x, func(i int8) any { return int64(i) })
	case []int16:
		return listJSON(x, func(i int16) any { return int64(i) })
	case []uint16:
		return listJSON(x, func(i uint16) any { return uint64(i) })
	case []int32:
		return listJSON(x, func(i int32) any { return int64(i) })
	case []uint32:
		return listJSON(x, func(i uint32) any { return uint64(i) })
	case []int64:
		return listJSON(x, func(i int64) any { return i })
	case []uint64:
		return listJSON(x, func(i uint64) any { return i })
	}
	return v // bool, string, int64 and uint64 as they are
}

func listJSON[T any](xs []T, f func(T) any) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = f(x)
	}
	return out
}

// orNil is f, or nil for NaN and ±Inf, which JSON cannot hold.
func orNil(f float64) any {
	if !finite(f) {
		return nil
	}
	return f
}
