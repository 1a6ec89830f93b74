package action

import "errors"

// Errors of this package; compare with errors.Is.
var (
	// ErrDuplicateGoal means the UUID was already sent (or attached) by
	// this client: sending it again could crash an rclcpp server.
	ErrDuplicateGoal = errors.New("action: goal UUID already sent")
	// ErrRejected means the server answered accepted=false.
	ErrRejected = errors.New("action: goal rejected")
	// ErrLost means the server's participant left (goodbye or lease end)
	// while the goal was not finished: its outcome is unknown.
	ErrLost = errors.New("action: server lost while the goal was live")
	// ErrUnknownGoal means the client never sent or attached the UUID.
	ErrUnknownGoal = errors.New("action: goal not sent by this client")
	// ErrNoStatus means the server's status topic said nothing in time.
	ErrNoStatus = errors.New("action: no status from the server")
	// ErrClosed means the client or server was closed.
	ErrClosed = errors.New("action: closed")
	// ErrTransition means a server goal was asked for a change its state
	// does not allow (rcl_action's goal state machine).
	ErrTransition = errors.New("action: goal state does not allow it")
)
