#!/usr/bin/env bash
# Starts the demo in the background, with logs and pids under .demo/:
#   scripts/demo.sh           ROS 2 (make demo): the simulated robot's ROS 2
#                             face and the bridge, localhost-only discovery,
#                             no rosmaster, nothing of ROS 2 installed
#   scripts/demo.sh --ros 1   ROS 1 (make demo ROS=1): a real rosmaster on
#                             loopback, the simulated robot and the bridge
#   scripts/demo.sh stop      (make demo-stop) stops whichever runs, by pid
# The ROS 2 demo needs bash and coreutils beside the binaries: no curl, no
# ss, no python (a fresh Debian 12 may lack them).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=.demo
mkdir -p "$dir"

stop() {
  if [ -f "$dir/pids" ]; then
    # Reverse order: bridge, sim, master.
    tac "$dir/pids" | while read -r name pid; do
      # Only a process that is still ours: after a reboot the pid may be another's.
      if kill -0 "$pid" 2>/dev/null && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q -- "$name"; then
        kill "$pid" 2>/dev/null || true
        # The bridge closes its streams for up to 3 s, then records a clean end;
        # a SIGKILL before that would bring the next demo up latched.
        for _ in $(seq 1 150); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$pid" 2>/dev/null || true
        echo "stopped $name (pid $pid)"
      fi
    done
    rm -f "$dir/pids"
  fi
}

free_port() {
  /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

pid_of() { awk -v n="$1" '$1==n{print $2}' "$dir/pids"; }

# healthz prints the bridge's /healthz answer, over bash's /dev/tcp.
healthz() {
  (
    exec 3<>"/dev/tcp/${listen%:*}/${listen##*:}"
    printf 'GET /healthz HTTP/1.0\r\nHost: %s\r\n\r\n' "$listen" >&3
    cat <&3
  ) 2>/dev/null
}

# wait_ready waits for the bridge's /healthz to say ready, or gives up
# after 20 s and says where the logs are.
wait_ready() {
  for _ in $(seq 1 200); do
    healthz | grep -q '"ready":true' && return 0
    sleep 0.1
  done
  echo "actbridge is not ready after 20 s; see $dir/actbridge.log and $dir/simrobot.log" >&2
  return 1
}

# domain_free: no UDP socket on this host is bound in the port range RTPS
# gives a ROS 2 domain (7400 + 250 * id, 250 ports), so no other ROS 2
# process here, another demo or a test, shares the domain.
# It reads /proc/net/udp{,6}: the local address column ends in the port, in hex.
domain_free() {
  local lo=$((7400 + 250 * $1)) hi=$((7400 + 250 * $1 + 249)) addr port
  while read -r _ addr _; do
    port=$((16#${addr##*:}))
    if ((port >= lo && port <= hi)); then return 1; fi
  done < <(tail -q -n +2 /proc/net/udp /proc/net/udp6 2>/dev/null)
  return 0
}

ros=2
case "${1:-}" in
stop) stop; exit 0 ;;
--ros) ros=${2:?--ros needs 1 or 2} ;;
"") ;;
*) echo "usage: $0 [--ros 1|2] | stop" >&2; exit 2 ;;
esac
stop >/dev/null 2>&1 || true
listen=${ACTBRIDGE_LISTEN:-127.0.0.1:8765}

demo_ros2() {
  # The domain: ROS_DOMAIN_ID when set (the user's choice, used as is);
  # otherwise 0 when no other ROS 2 process on this host uses it, else the
  # first free one.
  local domain=${ROS_DOMAIN_ID:-}
  if [ -z "$domain" ]; then
    domain=0
    while ! domain_free "$domain"; do
      domain=$((domain + 1))
      if [ "$domain" -gt 101 ]; then echo "no free ROS 2 domain on this host" >&2; exit 1; fi
    done
  fi
  # The distro launch/robots/sim-ros2.yaml names (not $ROS_DISTRO, which
  # may name a ROS 1 install).
  local distro=jazzy
  # Localhost only: no DDS packet leaves the host. simrobot takes the
  # variable; the bridge's config says discovery_range: localhost.
  export ROS_DOMAIN_ID=$domain ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST
  unset ROS_STATIC_PEERS ROS_LOCALHOST_ONLY

  bin/simrobot --ros 2 --distro "$distro" >"$dir/simrobot.log" 2>&1 &
  echo "simrobot $!" >>"$dir/pids"
  bin/actbridge serve --config launch/robots/sim-ros2.yaml --listen "$listen" --data-dir "$dir/data" >"$dir/actbridge.log" 2>&1 &
  echo "actbridge $!" >>"$dir/pids"
  wait_ready || { stop; exit 1; }

  cat <<MSG

actbridge demo (ROS 2 $distro) is running (logs in $dir/):
  simrobot    ros2_control robot: arm, gripper, diff-drive base, Nav2  (pid $(pid_of simrobot))
  actbridge   MCP       http://$listen/mcp          (pid $(pid_of actbridge))
              metrics   http://$listen/metrics
              console   http://$listen/console   (operator: $(operator_token))
              health    http://$listen/healthz
  ROS 2       ROS_DOMAIN_ID=$domain, ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST (no packet leaves this host)

$(next_steps)
  The robot's ROS 2 graph, without ROS 2 installed:
       ROS_DOMAIN_ID=$domain bin/actbridge ros2 topics --config launch/robots/sim-ros2.yaml
  Where to go from here: docs/getting-started.md
Stop: make demo-stop
MSG
}

# next_steps prints the three things to try first, the same on both ROS
# versions: a scripted first motion, the console, a client configuration.
next_steps() {
  cat <<NEXT
Next, three things to try:
  1. A first motion, scripted (preview, confirm, wait, for arm, gripper and base):
       go run ./examples/planner
  2. Watch it and approve in the console: http://$listen/console
  3. Connect your own MCP client: paste this into its MCP configuration
     (Claude Code: .mcp.json; Cursor: .cursor/mcp.json; more in docs/clients.md)
       {"mcpServers": {"actbridge": {"type": "http", "url": "http://$listen/mcp"}}}
     or for Claude Code: claude mcp add --transport http actbridge http://$listen/mcp
NEXT
}

# operator_token says where the console's operator token is: the one the
# bridge wrote (no ACTBRIDGE_OPERATOR_TOKEN set), or the environment's.
operator_token() {
  if [ -f "$dir/data/operator.token" ]; then
    echo "token in $dir/data/operator.token"
  else
    echo "token in \$ACTBRIDGE_OPERATOR_TOKEN"
  fi
}

demo_ros1() {
  local ros_port=${ROS_PORT:-11311}
  if (exec 3<>"/dev/tcp/127.0.0.1/$ros_port") 2>/dev/null; then ros_port=$(free_port); fi
  export ROS_MASTER_URI="http://127.0.0.1:$ros_port"
  export ROS_HOSTNAME=127.0.0.1

  rosmaster --core -p "$ros_port" >"$dir/rosmaster.log" 2>&1 &
  echo "rosmaster $!" >>"$dir/pids"
  for _ in $(seq 1 100); do (exec 3<>"/dev/tcp/127.0.0.1/$ros_port") 2>/dev/null && break; sleep 0.1; done

  bin/simrobot >"$dir/simrobot.log" 2>&1 &
  echo "simrobot $!" >>"$dir/pids"

  bin/actbridge serve --config launch/robots/sim.yaml --listen "$listen" --data-dir "$dir/data" --wait-master 20s >"$dir/actbridge.log" 2>&1 &
  echo "actbridge $!" >>"$dir/pids"
  wait_ready || { stop; exit 1; }

  cat <<MSG

actbridge demo (ROS 1) is running (logs in $dir/):
  rosmaster   ROS_MASTER_URI=$ROS_MASTER_URI     (pid $(pid_of rosmaster))
  simrobot    6-joint arm, gripper, diff-drive base  (pid $(pid_of simrobot))
  actbridge   MCP       http://$listen/mcp          (pid $(pid_of actbridge))
              metrics   http://$listen/metrics
              console   http://$listen/console   (operator: $(operator_token))
              health    http://$listen/healthz

$(next_steps)
  The robot's ROS 1 graph:
       ROS_MASTER_URI=$ROS_MASTER_URI rostopic hz /joint_states
  Where to go from here: docs/getting-started.md
Stop: make demo-stop
MSG
}

case "$ros" in
2) demo_ros2 ;;
1) demo_ros1 ;;
*) echo "--ros $ros: want 1 or 2" >&2; exit 2 ;;
esac
