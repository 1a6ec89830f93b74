package node

import (
	"context"
	"errors"
	"fmt"

	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/ros2/qos"
	"github.com/actbridge/actbridge/rtps"
)

// Publisher writes messages of one type on one topic.
type Publisher struct {
	endpoint
	w *rtps.Writer
}

// NewPublisher announces a publisher of typ ("sensor_msgs/msg/JointState")
// on topic (resolved and remapped for the node) with QoS q, or the
// Context's override for the topic. A type the distro lacks is an error
// (ErrType).
func (n *Node) NewPublisher(topic, typ string, q qos.Profile) (*Publisher, error) {
	e, err := n.newEndpoint(topic, typ, q, true)
	if err != nil {
		return nil, err
	}
	w, err := n.c.p.NewWriter(e.data)
	if err != nil {
		return nil, err
	}
	p := &Publisher{endpoint: *e, w: w}
	if err := p.register(w.GUID(), w.Close); err != nil {
		return nil, err
	}
	return p, nil
}

// Publish encodes m (XCDR1, little endian) and writes it.
func (p *Publisher) Publish(m *cdr.Message) error {
	if m.Type == nil || m.Type.Name() != p.s.Name() {
		return fmt.Errorf("%w: %s publishes %s", ErrType, p.topic, p.typ)
	}
	b, err := cdr.Encode(m, cdr.LittleEndian)
	if err != nil {
		return err
	}
	if err := p.w.Write(b, nil); errors.Is(err, rtps.ErrClosed) {
		return ErrClosed
	} else if err != nil {
		return err
	}
	return nil
}

// New returns a zero message of the publisher's type to fill in.
func (p *Publisher) New() *cdr.Message { return cdr.Zero(p.s) }

// WaitAcknowledged waits until every matched reliable subscription has
// acknowledged every message published so far.
func (p *Publisher) WaitAcknowledged(ctx context.Context) error { return p.w.WaitAcknowledged(ctx) }
