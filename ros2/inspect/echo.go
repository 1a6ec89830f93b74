package inspect

import (
	"context"
	"errors"
	"fmt"

	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/ros2/graph"
	"github.com/actbridge/actbridge/ros2/node"
	"github.com/actbridge/actbridge/ros2/qos"
	"github.com/actbridge/actbridge/rtps/wire"
)

// EchoOptions tune Echo; the zero value is ros2 topic echo's defaults.
type EchoOptions struct {
	// Type is the message type; "" takes the one the publishers announce.
	Type string
	// QoS changes the profile, which is otherwise adapted to the
	// publishers as ros2 topic echo adapts it.
	QoS qos.Override
	// Count ends Echo after that many messages; 0 never.
	Count int
	// Skipped, when set, is told of each sample that does not decode as
	// the type; it is skipped either way.
	Skipped func(error)
}

// Echo subscribes to topic once a publisher is there and hands each
// message to each until o.Count messages came, each returns an error, or
// ctx ends (then it returns nil). A publisher QoS keeps from matching is
// node.ErrIncompatibleQoS; one of the same type name and another
// definition (another distro's) is refused, not decoded into garbage.
func (in *Inspector) Echo(ctx context.Context, topic string, o EchoOptions, each func(*cdr.Message) error) error {
	if o.Count < 0 {
		return invalid("count %d < 0", o.Count)
	}
	n, topic, err := in.resolve(topic, false)
	if err != nil {
		return err
	}
	wait, cancel := in.wait(ctx)
	defer cancel()
	g, err := in.c.WaitGraph(wait, func(g graph.Graph) bool {
		t, ok := g.Topic(topic)
		return ok && len(t.Publishers) > 0
	})
	if err != nil {
		return in.notFound("publisher of " + topic)
	}
	t, _ := g.Topic(topic)
	typ := o.Type
	if typ == "" {
		if len(t.Types) != 1 {
			return fmt.Errorf("%s has publishers of several types %v: choose one with --type", topic, t.Types)
		}
		typ = t.Types[0]
	}
	profile, err := o.QoS.Apply(qos.Adapted(t.PublisherQoS()))
	if err != nil {
		return kindError{ErrInvalid, err}
	}
	sub, err := n.NewSubscription(topic, typ, profile, node.SubscriptionOptions{})
	if err != nil {
		return err
	}
	defer sub.Close()
	// A publisher that QoS keeps from matching is known by discovery at
	// once: say so after a settling second rather than the whole timeout.
	quick, cancelQuick := context.WithTimeout(wait, 2*SettleTime)
	err = sub.WaitMatched(quick, 1)
	cancelQuick()
	if err != nil && !errors.Is(err, node.ErrIncompatibleQoS) {
		err = sub.WaitMatched(wait, 1)
	}
	if err != nil {
		if errors.Is(err, node.ErrIncompatibleQoS) {
			return err
		}
		return fmt.Errorf("no publisher of %s matched within %v: %v", topic, in.timeout, err)
	}
	// Same type name, another definition: the samples would decode as garbage.
	if mm := sub.TypeMismatches(); len(mm) > 0 {
		return fmt.Errorf("%s: %s (another distro's definition? see --distro)", topic, mm[0])
	}
	for got := 0; o.Count == 0 || got < o.Count; {
		one, cancel := in.wait(ctx)
		m, info, err := sub.Take(one)
		cancel()
		switch {
		case errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil:
			return fmt.Errorf("no message on %s within %v (%d of %d received)", topic, in.timeout, got, o.Count)
		case ctx.Err() != nil:
			return nil // interrupted
		case err != nil && info.Writer == (wire.GUID{}):
			return err
		case err != nil:
			if o.Skipped != nil {
				o.Skipped(fmt.Errorf("a sample from %v is not a %s: %v", info.Writer, typ, err))
			}
			continue
		}
		if err := each(m); err != nil {
			return err
		}
		got++
	}
	return nil
}
