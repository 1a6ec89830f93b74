// Package ddspeers builds and runs the test peers: small programs on
// Debian's CycloneDDS (C, cycpeer.c) and Fast DDS (C++, fastpeer.cpp) that
// serialize, publish and read samples of the types in [Registry], so that
// our CDR and RTPS code is checked against real DDS stacks, not only
// against itself.
//
// [Build] turns the type definitions into DDS IDL the way rmw does
// (module pkg { module msg { module dds_ { struct Type_ … }}}), runs idlc
// and fastddsgen, generates the per-type sample readers and compiles both
// peers, once: the binaries are cached by a hash of everything that went
// into them. The peers' command line is in README.md.
//
// [BuildNodes] builds cycnode and fastnode, the same two stacks playing
// ROS 2 nodes each in its own RMW's dialect (rmw_cyclonedds's in-band
// request header, rmw_fastrtps's related_sample_identity): Trigger and
// parameter services, a scripted FollowJointTrajectory action server, and
// the ros_discovery_info graph. Each rejects a frame of the other dialect
// loudly ([MalformedExit]). The Start* helpers run their modes and
// document every flag and JSON line.
//
// [Peers.Fast3] and [NodePeers.Fast3] build the Fast DDS peers a second
// time, against Fast DDS 3.1 inside a Debian 13 root (scripts/debian13-root.sh,
// docs/fastdds3.md), and return a launcher that runs them there.
package ddspeers
