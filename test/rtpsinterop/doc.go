// Package rtpsinterop holds the interop tests of package rtps against the
// vendor test peers of test/ddspeers (Fast DDS and CycloneDDS): discovery
// both ways and ROS-shaped samples, encoded and decoded by package cdr,
// carried in each direction. It has no code of its own; it exists so that
// rtps never imports test support.
package rtpsinterop
