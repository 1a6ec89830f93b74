// Package rostest starts a real rosmaster (from the Debian packages) for
// tests and runs the ROS command-line tools against it.
//
// Every master gets a free loopback port, its own log directory, and is
// killed by pid when the test ends; nothing is shared between tests.
package rostest
