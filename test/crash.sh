#!/usr/bin/env bash
# The long crash runs: 200 motions (or $1), each through a SIGKILL of the
# bridge at a random moment; fails if any goal reaches the sim twice, a
# confirmed motion's record is lost, or a motion never ends known or
# unknown.
#   test/crash.sh [N]        ROS 1 (issue 5): package test's run over rosmaster and simrobot
#   test/crash.sh [N] ros2   ROS 2 (issue 22): test/ros2mission's run over simrobot --ros 2
#                            in a network namespace, arm and gripper, records checked too
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
export ACTBRIDGE_CRASH_MOTIONS=${1:-200}
case "${2:-ros1}" in
ros1) go test ./test -run 'TestRandomKillsNeverSendAGoalTwice/ros1' -count=1 -v -timeout 60m ;;
ros2) go test ./test/ros2mission -run 'TestRandomKillsOverROS2NeverSendAGoalTwice' -count=1 -v -timeout 90m ;;
*)
	echo "usage: test/crash.sh [N] [ros1|ros2]" >&2
	exit 2
	;;
esac
