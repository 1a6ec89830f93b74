package ros1

import (
	"sync"
	"sync/atomic"

	"github.com/bluenviron/goroslib/v2"
)

// subscriptions knows which topics the bridge's node subscribes to and lets
// SampleTopic tap them: goroslib refuses a second subscriber to a topic on
// the same node, and a goroslib subscriber beside our raw joint_states one
// would unregister it from the master when closed.
type subscriptions struct {
	mu    sync.Mutex
	owned map[string]int // topic → live subscribers (node incarnations overlap briefly)
	taps  map[string][]chan<- any
	// tapping is how many taps exist, so the 1 kHz joint_states callback
	// costs one atomic load when nobody samples.
	tapping atomic.Int32
}

func newSubscriptions() *subscriptions {
	return &subscriptions{owned: map[string]int{}, taps: map[string][]chan<- any{}}
}

// subscribe creates a subscriber whose messages also reach the topic's taps;
// the returned func closes it.
func subscribe[T any](n *goroslib.Node, s *subscriptions, topic string, cb func(*T)) (func(), error) {
	sub, err := goroslib.NewSubscriber(goroslib.SubscriberConf{
		Node:  n,
		Topic: topic,
		Callback: func(m *T) {
			cb(m)
			s.deliver(topic, m)
		},
	})
	if err != nil {
		return nil, err
	}
	release := s.own(topic)
	return func() {
		sub.Close()
		release()
	}, nil
}

// own records that our node subscribes to topic until release is called.
func (s *subscriptions) own(topic string) (release func()) {
	s.mu.Lock()
	s.owned[topic]++
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		if s.owned[topic]--; s.owned[topic] <= 0 {
			delete(s.owned, topic)
		}
		s.mu.Unlock()
	}
}

// deliver offers a message of an owned topic to its taps, if any.
func (s *subscriptions) deliver(topic string, m any) {
	if s.tapping.Load() > 0 {
		s.offer(topic, m)
	}
}

func (s *subscriptions) isOwned(topic string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.owned[topic] > 0
}

// tap returns a channel that receives the topic's messages (dropping them
// when full) until the returned stop is called.
func (s *subscriptions) tap(topic string, buf int) (<-chan any, func()) {
	ch := make(chan any, buf)
	s.mu.Lock()
	s.taps[topic] = append(s.taps[topic], ch)
	s.mu.Unlock()
	s.tapping.Add(1)
	return ch, func() {
		s.mu.Lock()
		list := s.taps[topic]
		for i, c := range list {
			if c == (chan<- any)(ch) {
				list = append(list[:i], list[i+1:]...)
				break
			}
		}
		if len(list) == 0 {
			delete(s.taps, topic)
		} else {
			s.taps[topic] = list
		}
		s.mu.Unlock()
		s.tapping.Add(-1)
	}
}

func (s *subscriptions) offer(topic string, m any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, ch := range s.taps[topic] {
		select {
		case ch <- m:
		default:
		}
	}
}
