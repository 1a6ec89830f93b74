package action

import (
	"fmt"
	"strings"

	"github.com/actbridge/actbridge/msgs/ros2"
)

// Status is a goal's state as this client knows it: the distro's
// action_msgs/GoalStatus code and its name, or Lost.
type Status struct {
	Code int8
	// Name is the code's constant in the distro without "STATUS_"
	// ("SUCCEEDED"), or "PENDING" before the server answered and
	// "REJECTED" when it refused the goal (ROS 2 has no status for it).
	Name string
	// Lost says the server left before the goal ended; Code is the last
	// known one.
	Lost bool
}

// Terminal reports whether the goal has ended (succeeded, canceled or
// aborted: its result is final) or was rejected (it never ran).
func (s Status) Terminal() bool {
	return s.Name == "SUCCEEDED" || s.Name == "CANCELED" || s.Name == "ABORTED" || s.Name == "REJECTED"
}

func (s Status) String() string {
	if s.Lost {
		return s.Name + " (lost)"
	}
	return s.Name
}

// statusNames maps a distro's GoalStatus codes to their names.
type statusNames map[int8]string

func loadStatusNames(set *msgs.Set) (statusNames, error) {
	d := set.Definition("action_msgs/msg/GoalStatus")
	if d == nil {
		return nil, fmt.Errorf("action: %s has no action_msgs/msg/GoalStatus", set.Distro)
	}
	names := statusNames{}
	for _, c := range d.Constants {
		if v, ok := c.Value.(int8); ok {
			names[v] = strings.TrimPrefix(c.Name, "STATUS_")
		}
	}
	for _, want := range []string{"UNKNOWN", "ACCEPTED", "EXECUTING", "CANCELING", "SUCCEEDED", "CANCELED", "ABORTED"} {
		if _, ok := names.code(want); !ok {
			return nil, fmt.Errorf("action: %s's GoalStatus has no STATUS_%s", set.Distro, want)
		}
	}
	return names, nil
}

func (n statusNames) status(code int8) Status {
	name, ok := n[code]
	if !ok {
		name = fmt.Sprintf("STATUS(%d)", code)
	}
	return Status{Code: code, Name: name}
}

func (n statusNames) code(name string) (int8, bool) {
	for c, s := range n {
		if s == name {
			return c, true
		}
	}
	return 0, false
}
