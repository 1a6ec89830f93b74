// Package qos holds ROS 2's QoS profiles (rmw's qos_profiles.h and
// rcl_action's defaults) as RTPS QoS, and reads per-topic overrides from
// their config form. Deadline, lifespan and liveliness stay at ROS 2's
// defaults (infinite, automatic), which RTPS endpoints announce by leaving
// them out.
package qos
