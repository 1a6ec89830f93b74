package ros1

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/bluenviron/goroslib/v2"

	"github.com/actbridge/actbridge/actuators"
)

// watchEvery is the shortest gap between two messages WatchTopic hands
// on: conditions need the trend, not every message of a 100 Hz topic.
const watchEvery = 50 * time.Millisecond

// WatchTopic calls fn with the topic's messages as JSON-ready values until
// ctx ends (then it returns nil). It waits for the topic to appear and
// subscribes again when the node is replaced after a master restart. A
// topic of a type outside SampleTypes fails with actuators.ErrUnsupportedType.
func (r *Robot) WatchTopic(ctx context.Context, topic string, fn func(msg any)) error {
	if !strings.HasPrefix(topic, "/") {
		topic = "/" + topic
	}
	for ctx.Err() == nil {
		node := r.link.Node()
		var sub sampler
		if node != nil {
			if topics, err := r.masterTopics(ctx); err == nil {
				if info, ok := topics[topic]; ok {
					if sub, ok = sampleTypes[info.Type]; !ok {
						return fmt.Errorf("%w: %s has type %s", actuators.ErrUnsupportedType, topic, info.Type)
					}
				}
			}
		}
		if sub == nil {
			if !sleepCtx(ctx, 2*time.Second) {
				return nil
			}
			continue
		}
		if err := r.watchOn(ctx, node, topic, sub, fn); err != nil {
			return err
		}
	}
	return nil
}

// watchOn delivers messages until ctx ends or node is replaced.
func (r *Robot) watchOn(ctx context.Context, node *goroslib.Node, topic string, sub sampler, fn func(any)) error {
	var ch <-chan any
	owned := r.subs.isOwned(topic)
	if owned {
		tch, stop := r.subs.tap(topic, 16)
		defer stop()
		ch = tch
	} else {
		out := make(chan any, 16)
		closeSub, err := sub(node, topic, out)
		if err != nil {
			sleepCtx(ctx, 2*time.Second)
			return nil // WatchTopic tries again from the top
		}
		defer closeSub()
		ch = out
	}
	check := time.NewTicker(time.Second)
	defer check.Stop()
	var last time.Time
	for {
		select {
		case <-ctx.Done():
			return nil
		case m := <-ch:
			if now := time.Now(); now.Sub(last) >= watchEvery {
				last = now
				fn(rosJSON(m))
			}
		case <-check.C:
			if !owned && r.link.Node() != node {
				return nil
			}
		}
	}
}

func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
