#!/usr/bin/env bash
# Installs what a make target needs on a Debian 12 machine and is missing,
# and checks Go. Idempotent: installs nothing when everything is there.
#   scripts/deps.sh demo   make demo (ROS 2): Go only; installs nothing,
#                          needs no root
#   scripts/deps.sh ros1   make demo ROS=1: Debian's ROS 1 master, tools and
#                          messages (apt-get, as root or with sudo)
#   scripts/deps.sh test   make test, make bench (the default): the ROS 1
#                          set, Prometheus, headless Chromium with
#                          chromedriver (the console's browser test), Node.js
#                          with npm (an MCP client of the TypeScript SDK),
#                          the DDS stacks, generators and compilers the ROS 2
#                          test peers are built from (CycloneDDS with ddsperf,
#                          Fast DDS with its fast-discovery-server; see
#                          test/ddspeers) with rosidl's test definitions,
#                          debootstrap (the Fast DDS 3 peers build in a
#                          Debian 13 root) and iproute2 (the DDS tests run in
#                          network namespaces they make)
set -euo pipefail

ros1=(
  python3-rosmaster python3-rostopic python3-rosservice python3-rosnode
  python3-roslaunch python3-rospy python3-rosparam python3-rosmsg
  python3-actionlib python3-genpy python3-genmsg python3-std-msgs python3-actionlib-msgs
  python3-std-srvs python3-move-base-msgs python3-trajectory-msgs
  python3-sensor-msgs python3-geometry-msgs python3-nav-msgs python3-tf2-msgs
  ros-robot-state-publisher
)
test=(
  "${ros1[@]}"
  prometheus
  chromium chromium-driver
  cyclonedds-dev cyclonedds-tools libfastrtps-dev fastddsgen fastdds-tools ros2-test-interface-files gcc g++
  debootstrap
  iproute2
)

target=${1:-test}
case "$target" in
demo) packages=() ;;
ros1) packages=("${ros1[@]}") ;;
test) packages=("${test[@]}") ;;
*) echo "usage: $0 [demo|ros1|test]" >&2; exit 2 ;;
esac

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Any Node.js with npm will do (NodeSource's nodejs bundles npm and
# conflicts with Debian's npm package): install Debian's only if none.
if [ "$target" = test ] && { ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; }; then
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

# Go: the one thing every target needs. Debian 12's golang (1.19) is too
# old; a Go of 1.21 or newer fetches the 1.26 go.mod names by itself.
if ! command -v go >/dev/null 2>&1; then
  if [ -x /usr/local/go/bin/go ]; then
    echo "deps: go is at /usr/local/go/bin; add it to PATH" >&2
  else
    cat >&2 <<'MSG'
deps: Go 1.26 or newer is required (go not found on PATH). Without root:
  mkdir -p "$HOME/.local" && curl -fsSL https://go.dev/dl/go1.26.8.linux-amd64.tar.gz | tar -xz -C "$HOME/.local"   # arm64: linux-arm64
  export PATH="$PATH:$HOME/.local/go/bin"
MSG
  fi
  exit 1
fi
v=$(go env GOVERSION 2>/dev/null || true)
minor=$(sed -n 's/^go1\.\([0-9]*\).*/\1/p' <<<"$v")
if [ -z "$minor" ] || [ "$minor" -lt 21 ]; then
  echo "deps: $(command -v go) is ${v:-of unknown version}; Go 1.26 or newer is required (1.21+ fetches it by itself)" >&2
  exit 1
fi
