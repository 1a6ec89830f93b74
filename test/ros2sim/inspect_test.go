package ros2sim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// inspectCLI runs the built `actbridge ros2 <args>` on domain, localhost
// discovery as the sim's, and returns stdout, stderr and the exit status.
func inspectCLI(t *testing.T, domain int, args ...string) (string, string, int) {
	t.Helper()
	return actbridgeCLI(t, domain, append([]string{"ros2"}, args...)...)
}

// actbridgeCLI runs the built `actbridge <args>` with ROS 2's variables
// for domain and localhost discovery, as the sim's.
func actbridgeCLI(t *testing.T, domain int, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), builds.Build(t, "github.com/actbridge/actbridge/cmd/actbridge"), args...)
	cmd.Env = append(os.Environ(), fmt.Sprintf("ROS_DOMAIN_ID=%d", domain), "ROS_AUTOMATIC_DISCOVERY_RANGE=", "ROS_LOCALHOST_ONLY=",
		"ROS_STATIC_PEERS=", "ROS_DISTRO=jazzy")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return out.String(), errOut.String(), exit.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return out.String(), errOut.String(), 0
}

// TestROS2CLIListsActionsServicesAndParametersAsTheROS2ToolsDo: against
// the sim's ros2_control graph, actions lists the trajectory action with
// its server; services hides the actions' _action services unless
// --include-hidden-services, as ros2 service list does; params list and
// get print a controller's parameters as ros2 param does. A node without
// parameter services lists nothing (and says why on stderr); a missing
// node, a missing parameter and a get on such a node fail with the
// reason and exit status 1; a get without its parameter name is a usage
// error (2).
func TestROS2CLIListsActionsServicesAndParametersAsTheROS2ToolsDo(t *testing.T) {
	const domain = 110
	sim := startSim(t, domain)
	expect := func(args []string, code int, stdout, stderr []string, notStdout ...string) {
		t.Helper()
		out, errOut, got := inspectCLI(t, domain, append(args, "--timeout", "20s")...)
		ok := got == code
		for _, s := range stdout {
			ok = ok && strings.Contains(out, s)
		}
		for _, s := range stderr {
			ok = ok && strings.Contains(errOut, s)
		}
		for _, s := range notStdout {
			ok = ok && !strings.Contains(out, s)
		}
		if !ok {
			t.Fatalf("actbridge ros2 %v: exit %d (want %d)\nstdout:\n%s\nstderr:\n%s\nsim:\n%s", args, got, code, out, errOut, sim.Output())
		}
	}
	const fjt = "/joint_trajectory_controller/follow_joint_trajectory"
	expect([]string{"actions"}, 0, []string{fjt + " [control_msgs/action/FollowJointTrajectory]\n  server /joint_trajectory_controller (Go rtps)\n",
		"/navigate_to_pose [nav2_msgs/action/NavigateToPose]\n"}, nil)
	expect([]string{"services"}, 0, []string{"/joint_trajectory_controller/list_parameters [rcl_interfaces/srv/ListParameters]\n  server /joint_trajectory_controller (Go rtps)\n"}, nil,
		"/_action/")
	out, errOut, code := inspectCLI(t, domain, "actions", "--json", "--timeout", "20s")
	type action struct {
		Name    string
		Servers []struct{ Node, Reliability string }
	}
	var actions []action
	if err := json.Unmarshal([]byte(out), &actions); code != 0 || err != nil || !slices.ContainsFunc(actions, func(a action) bool {
		return a.Name == fjt && len(a.Servers) == 1 && a.Servers[0].Node == "/joint_trajectory_controller" && a.Servers[0].Reliability == "reliable"
	}) {
		t.Fatalf("actions --json: exit %d, %v\n%s\n%s", code, err, out, errOut)
	}
	expect([]string{"services", "--include-hidden-services"}, 0, []string{fjt + "/_action/send_goal [", "/joint_trajectory_controller/list_parameters ["}, nil)

	expect([]string{"params", "list", "/joint_trajectory_controller"}, 0,
		[]string{"  allow_nonzero_velocity_at_trajectory_end\n  command_interfaces\n  constraints.elbow_joint.goal\n", "  constraints.goal_time\n", "  joints\n  state_interfaces\n"}, nil)
	expect([]string{"params", "list"}, 0, []string{"/gripper_controller:\n  goal_tolerance\n  joint\n  stall_timeout\n", "/joint_trajectory_controller:\n  allow_nonzero"}, nil,
		"/joint_state_broadcaster:")
	expect([]string{"params", "get", "/joint_trajectory_controller", "command_interfaces"}, 0, []string{"String values are: ['position']\n"}, nil)
	expect([]string{"params", "get", "joint_trajectory_controller", "allow_nonzero_velocity_at_trajectory_end"}, 0, []string{"Boolean value is: False\n"}, nil)
	expect([]string{"params", "get", "/gripper_controller", "joint", "--hide-type"}, 0, []string{"gripper_finger_joint\n"}, nil, "value is")

	expect([]string{"params", "list", "/joint_state_broadcaster"}, 0, nil, []string{"serves no parameters"})
	if out, _, _ := inspectCLI(t, domain, "params", "list", "/joint_state_broadcaster"); out != "" {
		t.Fatalf("params list of a node without parameters printed %q", out)
	}
	expect([]string{"params", "get", "/joint_state_broadcaster", "joints"}, 1, nil, []string{"serves no parameters"})
	expect([]string{"params", "get", "/joint_trajectory_controller", "nope"}, 1, nil, []string{"/joint_trajectory_controller has no parameter nope"})
	out, errOut, code = inspectCLI(t, domain, "params", "get", "/no_such_node", "joints", "--timeout", "2s")
	if code != 1 || out != "" || !strings.Contains(errOut, "no node /no_such_node found on domain 110 within 2s") {
		t.Fatalf("missing node: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	expect([]string{"params", "get", "/joint_trajectory_controller"}, 2, nil, []string{"usage: actbridge ros2 params"})
}
