#!/usr/bin/env bash
# Installs what actbridge needs on a Debian 12 machine and is missing:
# the ROS 1 master and tools (Debian's ROS packages), Prometheus, headless
# Chromium with chromedriver (the console's browser test), Node.js with npm
# (an MCP client of the TypeScript SDK checks the bridge), the DDS stacks,
# generators and compilers the ROS 2 test peers are built from (CycloneDDS
# with ddsperf, Fast DDS with its fast-discovery-server; see test/ddspeers)
# with rosidl's test definitions, debootstrap (the Fast DDS 3 peers build in a
# Debian 13 root),
# iproute2 (the DDS tests run in network namespaces they make), and checks Go.
# Idempotent: installs nothing when everything is already there.
set -euo pipefail

packages=(
  python3-rosmaster python3-rostopic python3-rosservice python3-rosnode
  python3-roslaunch python3-rospy python3-rosparam python3-rosmsg
  python3-actionlib python3-genpy python3-genmsg python3-std-msgs python3-actionlib-msgs
  python3-std-srvs python3-move-base-msgs python3-trajectory-msgs
  python3-sensor-msgs python3-geometry-msgs python3-nav-msgs python3-tf2-msgs
  ros-robot-state-publisher
  prometheus
  chromium chromium-driver
  cyclonedds-dev cyclonedds-tools libfastrtps-dev fastddsgen fastdds-tools ros2-test-interface-files gcc g++
  debootstrap
  iproute2
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Any Node.js with npm will do (NodeSource's nodejs bundles npm and
# conflicts with Debian's npm package): install Debian's only if none.
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  missing+=(nodejs npm)
fi

if ((${#missing[@]})); then
  echo "deps: installing ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -q
  # Debian starts services on install where it can; actbridge's tests start their own.
  "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then
  echo "deps: go is at /usr/local/go/bin; add it to PATH" >&2
fi
command -v go >/dev/null 2>&1 || { echo "deps: Go 1.26 or newer is required (go not found on PATH)" >&2; exit 1; }
