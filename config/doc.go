// Package config is the robot YAML: which transport reaches the robot
// (ros1, the default, or ros2 with its distro and discovery keys), its
// actuators (any number of each kind, names unique), the guarded tools'
// access lists, rate limits, step caps, and the limits file merged with
// the URDF. Load checks everything a config can get wrong before anything
// connects, and names the field. docs/configuration.md documents every
// key; docs_test.go keeps it true.
package config
