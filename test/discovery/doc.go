// Package discovery tests who finds whom on one host: ten CycloneDDS, ten
// Fast DDS 2.9 and ten Fast DDS 3.1 participants in the configuration
// their rmw builds for each ROS 2 discovery range, against the bridge's
// participant in each of its ranges, inside a network namespace the test
// made (docs/discovery.md holds the table).
package discovery
