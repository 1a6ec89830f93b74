package action

import (
	"fmt"
	"time"

	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/ros2/service"
)

// ServerGoal is one goal a Server accepted, for its owner to run: publish
// feedback, then end it once with Succeed, Abort or (after a cancel was
// accepted) Canceled. A transition rcl_action's state machine does not
// allow is ErrTransition and changes nothing.
type ServerGoal struct {
	s         *Server
	id        GoalID
	goal      *cdr.Message
	stamp     time.Time
	canceling chan struct{} // closed when it goes CANCELING

	// under s.mu
	pending bool // accepted, its reply not yet sent
	state   int8
	result  *cdr.Message
	ended   time.Time
	waiters []service.Replier
}

// ID is the goal's UUID.
func (g *ServerGoal) ID() GoalID { return g.id }

// Goal is the action's Goal message as the client sent it.
func (g *ServerGoal) Goal() *cdr.Message { return g.goal }

// Stamp is when the server accepted the goal.
func (g *ServerGoal) Stamp() time.Time { return g.stamp }

// Status is the goal's state now, in the distro's codes.
func (g *ServerGoal) Status() Status {
	g.s.mu.Lock()
	defer g.s.mu.Unlock()
	return g.s.codes.names.status(g.state)
}

// Canceling is closed when a cancel of the goal is accepted: the owner
// should stop and end it (Canceled, or Succeed or Abort if it got there).
func (g *ServerGoal) Canceling() <-chan struct{} { return g.canceling }

// Execute moves a goal accepted with AcceptAndDefer to EXECUTING.
func (g *ServerGoal) Execute() error {
	return g.transition(g.s.codes.executing, nil, g.s.codes.accepted)
}

// Succeed ends the goal SUCCEEDED with result (nil: a zero Result).
func (g *ServerGoal) Succeed(result *cdr.Message) error {
	return g.transition(g.s.codes.succeeded, result, g.s.codes.executing, g.s.codes.canceling)
}

// Abort ends the goal ABORTED with result (nil: a zero Result).
func (g *ServerGoal) Abort(result *cdr.Message) error {
	return g.transition(g.s.codes.aborted, result, g.s.codes.executing, g.s.codes.canceling)
}

// Canceled ends a CANCELING goal CANCELED with result (nil: a zero
// Result).
func (g *ServerGoal) Canceled(result *cdr.Message) error {
	return g.transition(g.s.codes.canceled, result, g.s.codes.canceling)
}

// Abandon ends a live goal as rclcpp does when the owner releases its
// last handle to it unended: through CANCELING to CANCELED with a zero
// Result, in one status change. Humble's joint_trajectory_controller
// ends a preempted goal so (its setCanceled on an executing goal is an
// invalid transition, caught; then the handle is released).
func (g *ServerGoal) Abandon() error {
	s := g.s
	s.mu.Lock()
	if !s.closed && s.cancelable(g.state) {
		g.state = s.codes.canceling
		close(g.canceling)
	}
	s.mu.Unlock()
	return g.transition(s.codes.canceled, nil, s.codes.canceling)
}

// transition moves the goal to state if it is in one of from; an end
// answers the get_result requests waiting and publishes the status.
func (g *ServerGoal) transition(state int8, result *cdr.Message, from ...int8) error {
	s := g.s
	if result != nil && result.Type != s.resultT {
		return fmt.Errorf("action: a result must be a %s", s.resultT.Name())
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	allowed := false
	for _, f := range from {
		allowed = allowed || g.state == f
	}
	if !allowed {
		return fmt.Errorf("%w: %s to %s", ErrTransition, s.codes.names.status(g.state).Name, s.codes.names.status(state).Name)
	}
	g.state = state
	if s.codes.terminal(state) {
		if result == nil {
			result = cdr.Zero(s.resultT)
		}
		g.result, g.ended = result, time.Now()
		rep := s.resultResponse(state, result)
		for _, w := range g.waiters {
			s.replyLater(w, rep)
		}
		g.waiters = nil
		select {
		case s.ended <- struct{}{}:
		default:
		}
	}
	s.publishStatus()
	return nil
}

// Feedback publishes fb (the action's Feedback message) for the goal,
// while it is live.
func (g *ServerGoal) Feedback(fb *cdr.Message) error {
	s := g.s
	if fb == nil || fb.Type != s.feedbackT {
		return fmt.Errorf("action: feedback must be a %s", s.feedbackT.Name())
	}
	m := cdr.Zero(s.feedbackMsgT)
	m.Set("goal_id", uuidMessage(s.feedbackMsgT, g.id))
	m.Set("feedback", fb)
	b, err := cdr.Encode(m, cdr.LittleEndian)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	if s.codes.terminal(g.state) {
		return fmt.Errorf("%w: feedback after the goal ended", ErrTransition)
	}
	return s.fb.Write(cdr.Pad(b), nil)
}
