package msgs

import (
	"io/fs"
	"slices"
)

// Source is where a package's definitions come from and under which
// licence (an SPDX expression): what a binary that embeds them must credit.
type Source struct {
	Repository string
	Licence    string
}

// sources names the upstream of every package in any set (README.md
// cites branch and commit per distro). A package added without an entry
// fails TestEveryEmbeddedPackageHasALicence.
var sources = map[string]Source{
	"action_msgs":                 {"github.com/ros2/rcl_interfaces", "Apache-2.0"},
	"builtin_interfaces":          {"github.com/ros2/rcl_interfaces", "Apache-2.0"},
	"rcl_interfaces":              {"github.com/ros2/rcl_interfaces", "Apache-2.0"},
	"type_description_interfaces": {"github.com/ros2/rcl_interfaces", "Apache-2.0"},
	"geometry_msgs":               {"github.com/ros2/common_interfaces", "Apache-2.0"},
	"nav_msgs":                    {"github.com/ros2/common_interfaces", "Apache-2.0"},
	"sensor_msgs":                 {"github.com/ros2/common_interfaces", "Apache-2.0"},
	"std_msgs":                    {"github.com/ros2/common_interfaces", "Apache-2.0"},
	"std_srvs":                    {"github.com/ros2/common_interfaces", "Apache-2.0"},
	"trajectory_msgs":             {"github.com/ros2/common_interfaces", "Apache-2.0"},
	"unique_identifier_msgs":      {"github.com/ros2/unique_identifier_msgs", "Apache-2.0"},
	"rmw_dds_common":              {"github.com/ros2/rmw_dds_common", "Apache-2.0"},
	"control_msgs":                {"github.com/ros-controls/control_msgs", "BSD-3-Clause"},
	"nav2_msgs":                   {"github.com/ros-navigation/navigation2", "Apache-2.0"},
	"tf2_msgs":                    {"github.com/ros2/geometry2", "BSD-3-Clause"},
	"shape_msgs":                  {"github.com/ros2/common_interfaces", "Apache-2.0"},
	"moveit_msgs":                 {"github.com/moveit/moveit_msgs", "BSD-3-Clause"},
	"ur_dashboard_msgs":           {"github.com/UniversalRobots/Universal_Robots_ROS2_Driver", "BSD-3-Clause"},
	"franka_msgs":                 {"github.com/frankarobotics/franka_ros2", "Apache-2.0"},
	"object_recognition_msgs":     {"github.com/wg-perception/object_recognition_msgs", "BSD-3-Clause"},
}

// Packages lists every package of every distro's set, sorted, with its
// source; a package without one has the zero Source.
func Packages() (map[string]Source, error) {
	out := map[string]Source{}
	for _, d := range Distros() {
		entries, err := fs.ReadDir(definitions, string(d))
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if e.IsDir() {
				out[e.Name()] = sources[e.Name()]
			}
		}
	}
	return out, nil
}

// PackageNames is Packages' keys, sorted.
func PackageNames(p map[string]Source) []string {
	names := make([]string, 0, len(p))
	for n := range p {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}
