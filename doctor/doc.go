// Package doctor checks a robot against a bridge config before the
// bridge serves it: the configured actions and topics are there, each
// with one server or publisher, their types and QoS fit, the type hashes
// are the config's distro's, the robot description's joints cover the
// configured ones and the robot's clock is sane. Each check passes or
// fails with the fix for the failure.
//
// Gather reads the robot (IO: the transport and, over ROS 2, a second
// participant's view of the graph); Judge is a pure function of what was
// read, so the rules are tested without a robot.
package doctor
