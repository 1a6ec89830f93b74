package ros2face

import (
	"fmt"
	"sync"
	"time"

	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/ros2/action"
	"github.com/actbridge/actbridge/ros2/node"
	"github.com/actbridge/actbridge/ros2/service"
	"github.com/actbridge/actbridge/sim"
)

// goalBridge ties one ROS 2 action server to one of the sim's action
// servers: a goal the owner accepts runs in the sim under the goal UUID's
// text form, and the sim's results and feedback end and inform the ROS 2
// goal. The sim core decides; the bridge only translates.
type goalBridge struct {
	f    *face
	name string // the sim's action short name (sim.Arm, …)
	srv  *action.Server
	conv converter
	// resultT and feedbackT are the server's own types (it compares them).
	resultT, feedbackT *cdr.Struct

	mu    sync.Mutex
	goals map[string]*bridgedGoal // live goals by sim id
}

// converter is an action's translation between the two faces.
type converter interface {
	// submit checks a ROS 2 goal as the ROS 2 controller would and hands
	// it to the sim; an error rejects the goal.
	submit(id sim.GoalID, goal *cdr.Message) error
	// end is the ROS 2 ending of a sim result; it fills the zero Result out.
	end(e simEnd, b *bridgedGoal, out *cdr.Message) (ending, error)
	// feedback fills the zero Feedback out from a sim feedback.
	feedback(simFeedback any, b *bridgedGoal, out *cdr.Message) error
}

// ending is how a ROS 2 goal ends.
type ending int

const (
	endSucceed ending = iota
	endAbort
	endCancel
	// endAbandon is rclcpp's end of a handle released unended: CANCELED
	// through CANCELING, a zero Result.
	endAbandon
)

// bridgedGoal is one live goal: its ROS 2 handle once accepted, whether
// a cancel of it was accepted, and a sim ending that came before the handle.
type bridgedGoal struct {
	goal      *cdr.Message
	accepted  time.Time // simulated time of arrival
	g         *action.ServerGoal
	canceling bool
	pending   *simEnd
}

// simEnd is a sim result: its actionlib state and text, and its Result.
type simEnd struct {
	st   uint8
	text string
	res  any
}

// newGoalBridge serves the action name of type typ for the sim's action
// short, on node n.
func (f *face) newGoalBridge(n *node.Node, name, typ, short string, conv converter) (*goalBridge, error) {
	b := &goalBridge{f: f, name: short, conv: conv, goals: map[string]*bridgedGoal{}}
	var err error
	if b.resultT, err = f.set.Struct(typ + "_Result"); err != nil {
		return nil, err
	}
	if b.feedbackT, err = f.set.Struct(typ + "_Feedback"); err != nil {
		return nil, err
	}
	srv, err := action.NewServer(f.ctx.Participant(), f.set, name, typ, action.Handlers{
		Goal: b.goal, Accepted: b.accepted, Cancel: b.cancel,
	}, action.ServerOptions{
		Service:     service.Options{Endpoints: n.Announce},
		OnDuplicate: b.duplicate,
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	b.srv = srv
	return b, nil
}

// simID is a goal UUID as the sim's goal log shows it.
func simID(id action.GoalID) string {
	return fmt.Sprintf("%x-%x-%x-%x-%x", id[0:4], id[4:6], id[6:8], id[8:10], id[10:16])
}

func (b *goalBridge) goal(id action.GoalID, m *cdr.Message) action.GoalResponse {
	sid := simID(id)
	b.mu.Lock()
	b.goals[sid] = &bridgedGoal{goal: m, accepted: b.f.r.Now()}
	b.mu.Unlock()
	err := b.conv.submit(sim.GoalID{ID: sid}, m)
	if err == nil {
		if o, ok := b.f.r.Goal(b.name, sid); ok && o.Status == sim.StatusRejected {
			err = fmt.Errorf("the controller rejected it: %s", o.Text)
		} else if !ok {
			// The ignore_goals fault dropped it: accepted, never run.
			b.drop(sid)
			return action.AcceptAndDefer
		}
	}
	if err != nil {
		b.f.logf("ros2face: %s rejects goal %s: %v", b.name, sid, err)
		b.drop(sid)
		return action.Reject
	}
	return action.AcceptAndExecute
}

func (b *goalBridge) drop(sid string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.goals, sid)
}

func (b *goalBridge) accepted(g *action.ServerGoal) {
	sid := simID(g.ID())
	b.mu.Lock()
	bg := b.goals[sid]
	if bg == nil {
		b.mu.Unlock()
		return
	}
	bg.g = g
	p := bg.pending
	b.mu.Unlock()
	if p != nil {
		b.result(sid, *p)
	}
}

func (b *goalBridge) cancel(g *action.ServerGoal) bool {
	sid := simID(g.ID())
	b.mu.Lock()
	if bg := b.goals[sid]; bg != nil {
		bg.canceling = true
	}
	b.mu.Unlock()
	if err := b.f.r.Cancel(b.name, sim.GoalID{ID: sid}); err != nil {
		b.f.logf("ros2face: %s cancel %s: %v", b.name, sid, err)
	}
	return true
}

// duplicate is the server's report of a send_goal naming a UUID it holds:
// the sim logs and counts it as the ROS 1 face's server does.
func (b *goalBridge) duplicate(id action.GoalID) {
	sid := simID(id)
	b.f.logf("ros2face: %s: duplicate goal UUID %s, not run again", b.name, sid)
	if err := b.f.r.DuplicateGoal(b.name, sim.GoalID{ID: sid}); err != nil {
		b.f.logf("ros2face: %v", err)
	}
}

// result ends the ROS 2 goal of a sim result; one that arrives before the
// goal's handle waits for it.
func (b *goalBridge) result(sid string, e simEnd) {
	b.mu.Lock()
	bg := b.goals[sid]
	if bg == nil {
		b.mu.Unlock()
		return
	}
	if bg.g == nil {
		bg.pending = &e
		b.mu.Unlock()
		return
	}
	delete(b.goals, sid)
	b.mu.Unlock()
	msg := cdr.Zero(b.resultT)
	how, err := b.conv.end(e, bg, msg)
	if err == nil {
		switch how {
		case endSucceed:
			err = bg.g.Succeed(msg)
		case endAbort:
			err = bg.g.Abort(msg)
		case endCancel:
			// The server goes CANCELING after our Cancel handler said yes;
			// the sim may have ended the goal in between.
			select {
			case <-bg.g.Canceling():
			case <-time.After(time.Second):
			}
			err = bg.g.Canceled(msg)
		case endAbandon:
			err = bg.g.Abandon()
		}
	}
	if err != nil {
		b.f.logf("ros2face: %s goal %s ends %s: %v", b.name, sid, sim.StatusName(e.st), err)
	}
}

// feedback publishes a sim feedback for its ROS 2 goal.
func (b *goalBridge) feedback(sid string, fb any) {
	b.mu.Lock()
	bg := b.goals[sid]
	b.mu.Unlock()
	if bg == nil || bg.g == nil {
		return
	}
	m := cdr.Zero(b.feedbackT)
	err := b.conv.feedback(fb, bg, m)
	if err == nil {
		err = bg.g.Feedback(m)
	}
	if err != nil {
		b.f.logf("ros2face: %s feedback %s: %v", b.name, sid, err)
	}
}

// ended is the ending of a sim result common to every action: the sim's
// SUCCEEDED and ABORTED; PREEMPTED or RECALLED after an accepted cancel
// is CANCELED, otherwise (a newer goal took over) preempted.
func ended(st uint8, b *bridgedGoal, preempted ending) ending {
	switch {
	case st == sim.StatusSucceeded:
		return endSucceed
	case (st == sim.StatusPreempted || st == sim.StatusRecalled) && b.canceling:
		return endCancel
	case st == sim.StatusPreempted || st == sim.StatusRecalled:
		return preempted
	}
	return endAbort
}
