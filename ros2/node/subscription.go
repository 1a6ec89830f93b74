package node

import (
	"context"
	"errors"

	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/ros2/qos"
	"github.com/actbridge/actbridge/rtps"
	"github.com/actbridge/actbridge/rtps/wire"
)

// SubscriptionOptions change how a subscription hands samples over.
type SubscriptionOptions struct {
	// LatestOnly keeps only the newest sample not yet taken: a reader of
	// joint states at 1 kHz that looks at 50 Hz decodes 50 samples a
	// second, not 1000. It sets the reader's history to keep-last 1.
	LatestOnly bool
}

// Subscription receives messages of one type on one topic.
type Subscription struct {
	endpoint
	r *rtps.Reader
}

// SampleInfo tells where a sample came from.
type SampleInfo struct {
	Writer wire.GUID
	SN     wire.SequenceNumber
}

// NewSubscription announces a subscription of typ on topic (resolved and
// remapped for the node) with QoS q, or the Context's override for the
// topic. A type the distro lacks is an error (ErrType).
func (n *Node) NewSubscription(topic, typ string, q qos.Profile, o SubscriptionOptions) (*Subscription, error) {
	e, err := n.newEndpoint(topic, typ, q, false)
	if err != nil {
		return nil, err
	}
	if o.LatestOnly {
		e.data.QoS.History, e.data.QoS.Depth = rtps.KeepLast, 1
	}
	r, err := n.c.p.NewReader(e.data)
	if err != nil {
		return nil, err
	}
	s := &Subscription{endpoint: *e, r: r}
	if err := s.register(r.GUID(), r.Close); err != nil {
		return nil, err
	}
	return s, nil
}

// Take waits for the next sample (the newest, with LatestOnly) and
// decodes it. A sample that does not decode as the subscription's type is
// returned as an error with its SampleInfo; the next Take goes on. It
// fails with ctx's error, or ErrClosed.
func (s *Subscription) Take(ctx context.Context) (*cdr.Message, SampleInfo, error) {
	smp, err := s.r.Take(ctx)
	if errors.Is(err, rtps.ErrClosed) {
		return nil, SampleInfo{}, ErrClosed
	}
	if err != nil {
		return nil, SampleInfo{}, err
	}
	info := SampleInfo{Writer: smp.Writer, SN: smp.SN}
	m, err := cdr.Decode(s.s, smp.Payload)
	return m, info, err
}
