package main

import (
	"cmp"
	"context"
	"fmt"
	"log"
	"os/signal"
	"strings"
	"syscall"

	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/ros2/names"
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
	if o.namespace != "" {
		if o.ros != 2 {
			return fmt.Errorf("--namespace %s: only with --ros 2", o.namespace)
		}
		if !strings.HasPrefix(o.namespace, "/") {
			o.namespace = "/" + o.namespace // as launch_ros's PushRosNamespace takes it
		}
		if err := names.ValidateNamespace(o.namespace); err != nil {
			return fmt.Errorf("--namespace: %w", err)
		}
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
	ns := func(name string) string { return o.namespace + name }
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	how := string(disc.Range)
	if len(disc.Servers) > 0 {
		how = fmt.Sprintf("through discovery servers %v (client)", disc.Servers)
	}
	full, _ := names.NodeFullName(o.name, cmp.Or(o.namespace, "/"))
	logger.Printf("simrobot: ROS 2 %s, domain %d, discovery %s, node %s, arm joints %v",
		o.distro, disc.Domain, how, full, robot.ArmJoints())
	err = ros2face.Serve(ctx, robot, ros2face.Config{
		Distro:    msgs.Distro(o.distro),
		Discovery: disc,
		Name:      o.name,
		Namespace: o.namespace,
		Logf:      logger.Printf,
		Ready: func() {
			logger.Printf("simrobot: serving %s %s %s %s %s %s",
				ns(ros2face.TopicJointStates), ns(ros2face.TopicRobotDescription), ns(ros2face.TopicOdom), ns(ros2face.TopicCmdVel),
				ns(ros2face.TopicCameraImage), ns(ros2face.TopicTF))
		},
	})
	if err != nil {
		logger.Printf("simrobot: %v", err)
		return 1
	}
	logger.Printf("simrobot: stopped")
	return 0
}
