package ros1

import (
	"fmt"
	"sync"

	"github.com/bluenviron/goroslib/v2"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/actionlib_msgs"
)

// rosActionWire is an action's publishers on one goroslib node.
type rosActionWire struct {
	goal, cancel *goroslib.Publisher
	goalTopic    string
	subscribers  func(topic string) (int, error)
}

func (w *rosActionWire) writeGoal(msg any) { w.goal.Write(msg) }

func (w *rosActionWire) writeCancel(id actionlib_msgs.GoalID) { w.cancel.Write(&id) }

func (w *rosActionWire) goalSubscribers() (int, error) { return w.subscribers(w.goalTopic) }

// actionTopics is how one action kind's typed messages reach the generic
// client: G is the goal wrapper published on <ns>/goal, R and F the result
// and feedback wrappers.
type actionTopics[G, R, F any] struct {
	result   func(*R) (actionlib_msgs.GoalStatus, any)
	feedback func(*F) (actionlib_msgs.GoalStatus, any)
}

// setupAction creates the action's publishers and subscribers on n and
// makes them the client's wire; the teardown releases exactly those.
func setupAction[G, R, F any](n *goroslib.Node, c *actionClient, t actionTopics[G, R, F], subs *subscriptions, busCount func(string) (int, error)) (func(), error) {
	var closers []func()
	var box *wireBox
	teardown := func() {
		if box != nil {
			c.dropWire(box) // first: no send may pick a closing wire
		}
		closeAll(closers)
	}
	fail := func(err error) (func(), error) {
		teardown()
		return nil, fmt.Errorf("%s (%s): %w", c.name, c.ns, err)
	}
	goalPub, err := goroslib.NewPublisher(goroslib.PublisherConf{Node: n, Topic: c.ns + "/goal", Msg: new(G)})
	if err != nil {
		return fail(err)
	}
	closers = append(closers, goalPub.Close)
	cancelPub, err := goroslib.NewPublisher(goroslib.PublisherConf{Node: n, Topic: c.ns + "/cancel", Msg: &actionlib_msgs.GoalID{}})
	if err != nil {
		return fail(err)
	}
	closers = append(closers, cancelPub.Close)

	// Subscribe before the wire is visible, so a send never writes a goal
	// whose status and result nobody listens to.
	s, err := subscribe(n, subs, c.ns+"/status", func(m *actionlib_msgs.GoalStatusArray) { c.onStatus(m.StatusList) })
	if err != nil {
		return fail(err)
	}
	closers = append(closers, s)
	s, err = subscribe(n, subs, c.ns+"/result", func(m *R) { c.onResult(t.result(m)) })
	if err != nil {
		return fail(err)
	}
	closers = append(closers, s)
	s, err = subscribe(n, subs, c.ns+"/feedback", func(m *F) { c.onFeedback(t.feedback(m)) })
	if err != nil {
		return fail(err)
	}
	closers = append(closers, s)

	box = c.setWire(&rosActionWire{goal: goalPub, cancel: cancelPub, goalTopic: c.ns + "/goal", subscribers: busCount})
	return teardown, nil
}

// closeAll runs closers concurrently and waits for them: each goroslib
// Close unregisters from the master over XML-RPC, and one after the other
// they can outlast roslink's close timeout on a busy machine.
func closeAll(closers []func()) {
	var wg sync.WaitGroup
	for _, f := range closers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f()
		}()
	}
	wg.Wait()
}
