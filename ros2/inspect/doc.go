// Package inspect looks at a ROS 2 graph as the ros2 command-line tools
// do, without ROS 2 installed: topics, nodes, services and actions with
// their endpoints, a topic's messages, one service call, and a node's
// parameters. It owns the tools' rules (which names are hidden, how an
// action is found, what "not found" says) so that a command only prints.
//
// An Inspector is one participant with a settled view of the graph. Each
// method waits at most Options.Timeout for what it asks for and fails
// with ErrNotFound, saying what discovery saw and what to set, when
// nothing came.
package inspect
