// Package roslink owns the bridge's and the sim's connection to a ROS
// master: the master URI from the environment (goroslib ignores it),
// re-registration after a master restart (goroslib never does it), and
// parameter escaping that goroslib lacks.
//
// Create publishers, subscribers and servers in the Setup given to Open:
// Link runs it again on the fresh node it makes after every master restart.
package roslink
