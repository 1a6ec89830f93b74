package main

import (
	"context"
	"fmt"
	"log"
	"os/signal"
	"syscall"

	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/ros2/node"
	"github.com/actbridge/actbridge/sim"
	"github.com/actbridge/actbridge/sim/ros2face"
)

const defaultDistro = string(msgs.Jazzy)

// checkROS checks --ros and --distro; --ros 2 makes the arm hold after an
// abort, as ros2_control's joint_trajectory_controller does.
func (o *options) checkROS() error {
	if o.ros != 1 && o.ros != 2 {
		return fmt.Errorf("--ros %d: want 1 or 2", o.ros)
	}
	if _, err := msgs.ParseDistro(o.distro); err != nil {
		return fmt.Errorf("--distro: %w", err)
	}
	if o.ros == 2 {
		o.cfg.HoldOnAbort = true
	}
	return nil
}

// run2 serves the robot on ROS 2 (--ros 2), discovery from ROS 2's
// variables as ros2/node reads them (unset range: localhost only).
func run2(o options, getenv func(string) string, logger *log.Logger) int {
	disc, err := node.DiscoveryFromEnv(func(k string) (string, bool) {
		v := getenv(k)
		return v, v != ""
	})
	if err != nil {
		logger.Printf("simrobot: %v", err)
		return 2
	}
	robot, err := sim.New(o.cfg)
	if err != nil {
		logger.Printf("simrobot: %v", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	logger.Printf("simrobot: ROS 2 %s, domain %d, discovery %s, node /%s, arm joints %v",
		o.distro, disc.Domain, disc.Range, o.name, robot.ArmJoints())
	err = ros2face.Serve(ctx, robot, ros2face.Config{
		Distro:    msgs.Distro(o.distro),
		Discovery: disc,
		Name:      o.name,
		Logf:      logger.Printf,
		Ready: func() {
			logger.Printf("simrobot: serving %s %s %s %s %s",
				ros2face.TopicJointStates, ros2face.TopicRobotDescription, ros2face.TopicOdom, ros2face.TopicCmdVel, ros2face.TopicCameraImage)
		},
	})
	if err != nil {
		logger.Printf("simrobot: %v", err)
		return 1
	}
	logger.Printf("simrobot: stopped")
	return 0
}
