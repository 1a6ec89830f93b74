// Package names holds ROS 2's rules for node, namespace, topic, service and
// action names (rcl's and rmw's validation and expansion) and their mapping
// onto DDS: topic names ("rt/…", "rq/…Request", "rr/…Reply", an action's
// five entities) and type names ("pkg::msg::dds_::Type_"), both ways.
package names
