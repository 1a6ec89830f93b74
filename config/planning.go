package config

import (
	"fmt"
	"regexp"

	"github.com/actbridge/actbridge/actuators"
)

// Planning asks MoveIt's move_group for an arm's pose goals (transport
// ros2): arm_move_pose's joint path is then move_group's collision-aware
// plan, checked by the bridge's own limits and sent through the arm's
// FollowJointTrajectory; without a move_group on the graph the bridge
// plans itself and the preview says so.
type Planning struct {
	// Group is the MoveIt planning group of the arm (e.g. manipulator).
	Group string `yaml:"group"`
	// Service is move_group's GetMotionPlan service; empty means
	// DefaultPlanningService.
	Service string `yaml:"service"`
	// Node names the one move_group to ask when more than one serves the
	// service ("/ns/node"); unset, more than one is ambiguous_server.
	Node string `yaml:"node"`
	// TimeS is how long move_group may plan, seconds (0: 5).
	TimeS float64 `yaml:"time_s"`
}

// DefaultPlanningService is the service move_group serves plans on.
const DefaultPlanningService = "/plan_kinematic_path"

// maxPlanningTime bounds time_s: a preview waits that long.
const maxPlanningTime = 60

var planningGroupRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,63}$`)

// validatePlanning checks an actuator's planning block: an arm's, over
// ROS 2, with a group; it fills the service's default.
func (a *ActuatorConfig) validatePlanning(transport string, f func(string) string) error {
	p := a.Planning
	if p == nil {
		return nil
	}
	bad := func(field, format string, args ...any) error {
		return fmt.Errorf("%w: %s: %s", ErrConfig, f(field), fmt.Sprintf(format, args...))
	}
	switch {
	case a.Kind != actuators.KindArm:
		return bad("planning", "only an arm has a planning group")
	case transport != TransportROS2:
		return bad("planning", "MoveIt planning needs transport ros2 (MoveIt 1's messages are not carried)")
	case !planningGroupRE.MatchString(p.Group):
		return bad("planning.group", "%q is not a MoveIt planning group name", p.Group)
	case p.Node != "" && !nodeRE.MatchString(p.Node):
		return bad("planning.node", "%q is not a node name (/ns/node)", p.Node)
	case !(p.TimeS >= 0 && p.TimeS <= maxPlanningTime):
		return bad("planning.time_s", "%v must be in (0, %d] seconds, or 0 for 5", p.TimeS, maxPlanningTime)
	}
	if p.Service == "" {
		p.Service = DefaultPlanningService
	}
	if !rosNameRE.MatchString(p.Service) {
		return bad("planning.service", "%q is not a service name", p.Service)
	}
	return nil
}
