// Package config is the robot YAML: which transport reaches the robot
// (transport: ros1 for now), its actuators (any number of each kind,
// names unique), the guarded tools' access lists, rate limits, step caps,
// and the limits file merged with the URDF. Load checks everything a
// config can get wrong before anything connects, and names the field.
package config
