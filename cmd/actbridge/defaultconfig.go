package main

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"strings"
)

// demoConfig is what serve, check-config and tools export read without
// --config: the ROS 2 demo's robot (make demo), relative to a checkout.
const demoConfig = "launch/robots/sim-ros2.yaml"

// shippedConfigs are the robot configs under launch/robots, named when the
// default is missing (a test keeps the list equal to the directory).
var shippedConfigs = []string{
	"sim-ros2.yaml", "sim.yaml", "sim-arm-only.yaml", "sim-base-only.yaml", "sim-dual-arm.yaml",
	"gazebo-ros2.yaml", "ur.yaml", "ur-lyrical.yaml", "franka-fr3.yaml", "turtlebot4.yaml",
	"turtlebot4-namespaced.yaml",
}

// defaultConfigHere refuses, with the shipped configs named, a command run
// without --config outside a checkout, where the default path names
// nothing; a missing file given with --config is config.Load's to report.
func defaultConfigHere(flags *flag.FlagSet, path string) error {
	given := false
	flags.Visit(func(f *flag.Flag) { given = given || f.Name == "config" })
	if given {
		return nil
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return usageError{fmt.Sprintf("no --config given and %s (the ROS 2 demo's robot) is not under the current directory: "+
		"run from a checkout of actbridge, or pass --config with your robot's file; the shipped ones, under launch/robots/: %s",
		path, strings.Join(shippedConfigs, ", "))}
}
