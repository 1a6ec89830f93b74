// Package dserver proves the bridge's ROS 2 layer as a client of eProsima's
// own Fast DDS Discovery Server (`fast-discovery-server`, Debian's
// fastdds-tools) with a Fast DDS peer as another client, in a network
// namespace the test binary made and whose loopback has no multicast: every
// participant is found through the server, or not at all.
// docs/discovery-server.md says what the tests cover.
package dserver
