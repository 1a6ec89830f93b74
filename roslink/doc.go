// Package roslink owns the bridge's and the sim's connection to a ROS
// master: the master URI from the environment, re-registration after a master
// restart, and parameter escaping that goroslib lacks.
package roslink
