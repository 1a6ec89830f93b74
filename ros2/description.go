package ros2

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/ros2/node"
	"github.com/actbridge/actbridge/ros2/qos"
	"github.com/actbridge/actbridge/rtps/wire"
)

// descriptionQoS is transient-local as robot_state_publisher offers it,
// with room for several writers' samples: a keep-last-1 reader keeps one
// sample of the topic, so a second publisher's would push the robot's out
// before it was read.
var descriptionQoS = func() qos.Profile {
	q := qos.Latched
	q.QoS.Depth = maxDescriptionSources
	return q
}()

// descriptionCheck is how often WatchRobotDescription asks the graph
// whether more than one participant publishes the description.
const descriptionCheck = time.Second

// RobotDescription reads the URDF as ROS 2's robot_state_publisher
// offers it: a std_msgs/String on the config's robot_description_param
// topic, reliable and transient-local, so a subscriber that comes late
// still gets it; only from description_node's participant when the
// config names it. It waits until ctx ends.
func (r *Robot) RobotDescription(ctx context.Context) (string, error) {
	sub, err := r.node.NewSubscription(r.cfg.DescriptionParam, "std_msgs/msg/String", descriptionQoS, node.SubscriptionOptions{})
	if err != nil {
		return "", fmt.Errorf("ros2: %s: %w", r.cfg.DescriptionParam, err)
	}
	defer sub.Close()
	for {
		m, info, err := sub.Take(ctx)
		if ctx.Err() != nil {
			return "", fmt.Errorf("%w: no %s published: %w", actuators.ErrNotConnected, r.cfg.DescriptionParam, ctx.Err())
		}
		if err == nil && r.descriptionFrom(sub.Topic(), info.Writer.Prefix) {
			s, _ := m.Get("data").(string)
			return s, nil
		}
	}
}

// WatchRobotDescription hands each the robot description of the one
// participant that publishes it (description_node's when the config names
// it), with the writer, whenever that one's URDF is new to the watch: on
// each sample, and every descriptionCheck, when it tells ambiguous who
// publishes it if more than one participant does and the config names
// none ("" once one is left). So a URDF that changes is seen at once, and
// a stray publisher's URDF gives way to the robot's when the stray leaves.
func (r *Robot) WatchRobotDescription(ctx context.Context, each func(urdf, source string), ambiguous func(why string)) error {
	sub, err := r.node.NewSubscription(r.cfg.DescriptionParam, "std_msgs/msg/String", descriptionQoS, node.SubscriptionOptions{})
	if err != nil {
		return fmt.Errorf("ros2: %s: %w", r.cfg.DescriptionParam, err)
	}
	defer sub.Close()
	w := &descriptionWatch{topic: sub.Topic(), r: r, each: each, ambiguous: ambiguous, latest: map[wire.GUIDPrefix]descriptionSample{}}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel() // first: the ticker ends however the loop ends
	wg.Go(func() {
		t := time.NewTicker(descriptionCheck)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				w.deliver()
			}
		}
	})
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
		w.keep(info.Writer.Prefix, s, "writer "+info.Writer.String())
		w.deliver()
	}
}

// maxDescriptionSources bounds how many participants' descriptions a
// watch keeps: a flood of publishers costs at most this many URDFs.
const maxDescriptionSources = 16

// descriptionWatch keeps each publishing participant's newest URDF and
// what was last handed on.
type descriptionWatch struct {
	topic     string
	r         *Robot
	each      func(urdf, source string)
	ambiguous func(why string)

	mu        sync.Mutex
	seq       uint64
	latest    map[wire.GUIDPrefix]descriptionSample
	delivered uint64 // seq of the sample last handed to each
}

type descriptionSample struct {
	urdf, source string
	seq          uint64
}

func (w *descriptionWatch) keep(p wire.GUIDPrefix, urdf, source string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seq++
	if _, ok := w.latest[p]; !ok && len(w.latest) >= maxDescriptionSources {
		var oldest wire.GUIDPrefix
		first := true
		for q, s := range w.latest {
			if first || s.seq < w.latest[oldest].seq {
				oldest, first = q, false
			}
		}
		delete(w.latest, oldest)
	}
	w.latest[p] = descriptionSample{urdf, source, w.seq}
}

// deliver tells ambiguous what the graph says and hands each the chosen
// participant's newest URDF if it was not handed on yet; with no
// publisher listed yet (the graph lags the sample), the newest of all.
// It runs under w.mu whole, from the sample loop and the ticker, so an
// older answer never overwrites a newer one.
func (w *descriptionWatch) deliver() {
	w.mu.Lock()
	defer w.mu.Unlock()
	p, found, perr := pickNamed("publishers of "+w.topic, publishersOf(w.r.rctx.Graph(), w.topic), w.r.cfg.DescriptionNode, "set description_node in the config")
	why := ""
	if perr != nil {
		why = perr.Error()
	}
	w.ambiguous(why)
	var s descriptionSample
	switch {
	case perr != nil:
		return
	case found:
		s = w.latest[p]
	case w.r.cfg.DescriptionNode == "":
		for _, x := range w.latest {
			if x.seq > s.seq {
				s = x
			}
		}
	}
	if s.seq == 0 || s.seq == w.delivered {
		return
	}
	w.delivered = s.seq
	w.each(s.urdf, s.source)
}

// descriptionFrom reports whether a description from participant writer
// counts: any writer's, unless the config names description_node, then
// only that node's participant's.
func (r *Robot) descriptionFrom(topic string, writer wire.GUIDPrefix) bool {
	if r.cfg.DescriptionNode == "" {
		return true
	}
	p, found, err := pick("publishers of "+topic, publishersOf(r.rctx.Graph(), topic), r.cfg.DescriptionNode)
	return err == nil && found && p == writer
}
