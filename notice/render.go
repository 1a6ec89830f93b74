package notice

import (
	"bytes"
	"fmt"
	"path/filepath"

	"github.com/actbridge/actbridge/msgs/ros2"
)

// ros1Types are the ROS 1 message definitions msgs/ros1 reproduces as Go
// types (their definitions and MD5 sums are the official ones).
var ros1Types = []struct{ pkg, repo, licence string }{
	{"actionlib_msgs", "github.com/ros/common_msgs", "BSD-3-Clause"},
	{"control_msgs", "github.com/ros-controls/control_msgs", "BSD-3-Clause"},
	{"move_base_msgs", "github.com/ros-planning/navigation_msgs", "BSD-3-Clause"},
}

// Render is the NOTICE text: actbridge's own licence, then every module
// the binaries link and every interface definition they embed, with its
// licence.
func Render(mods []Module, ros2 map[string]msgs.Source) []byte {
	var b bytes.Buffer
	b.WriteString(`actbridge
Licensed under the Apache License, Version 2.0 (LICENSE).

The actbridge and simrobot binaries contain the following works of others,
each under its own licence. A release carries their licence texts in
THIRD_PARTY_LICENSES. This file is generated: go test ./notice -update.

Go modules linked into the binaries:

`)
	for _, m := range mods {
		fmt.Fprintf(&b, "  %s %s\n    licence: %s (%s)\n", m.Path, m.Version, m.Licence, filepath.Base(m.LicenceFile))
	}
	b.WriteString("\nROS 2 interface definitions embedded in the binaries (msgs/ros2; README.md there cites branch and commit):\n\n")
	for _, n := range msgs.PackageNames(ros2) {
		s := ros2[n]
		fmt.Fprintf(&b, "  %s\n    from %s, licence: %s\n", n, s.Repository, s.Licence)
	}
	b.WriteString("\nROS 1 message definitions reproduced as Go types (msgs/ros1):\n\n")
	for _, r := range ros1Types {
		fmt.Fprintf(&b, "  %s\n    from %s, licence: %s\n", r.pkg, r.repo, r.licence)
	}
	return b.Bytes()
}
