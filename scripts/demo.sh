#!/usr/bin/env bash
# Starts the demo: a real rosmaster on loopback, the simulated robot and the
# bridge, in the background, with logs and pids under .demo/. Stop it with
# `make demo-stop` (scripts/demo.sh stop).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=.demo
mkdir -p "$dir"

stop() {
  if [ -f "$dir/pids" ]; then
    # Reverse order: bridge, sim, master.
    tac "$dir/pids" | while read -r name pid; do
      if kill -0 "$pid" 2>/dev/null; then
        kill "$pid" 2>/dev/null || true
        for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
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

if [ "${1:-}" = stop ]; then stop; exit 0; fi
stop >/dev/null 2>&1 || true

ros_port=${ROS_PORT:-11311}
if (exec 3<>"/dev/tcp/127.0.0.1/$ros_port") 2>/dev/null; then ros_port=$(free_port); fi
listen=${ACTBRIDGE_LISTEN:-127.0.0.1:8765}
export ROS_MASTER_URI="http://127.0.0.1:$ros_port"
export ROS_HOSTNAME=127.0.0.1

rosmaster --core -p "$ros_port" >"$dir/rosmaster.log" 2>&1 &
echo "rosmaster $!" >>"$dir/pids"
for _ in $(seq 1 100); do (exec 3<>"/dev/tcp/127.0.0.1/$ros_port") 2>/dev/null && break; sleep 0.1; done

bin/simrobot >"$dir/simrobot.log" 2>&1 &
echo "simrobot $!" >>"$dir/pids"

bin/actbridge serve --config launch/robots/sim.yaml --listen "$listen" --data-dir "$dir/data" --wait-master 20s >"$dir/actbridge.log" 2>&1 &
echo "actbridge $!" >>"$dir/pids"

for _ in $(seq 1 200); do
  curl -fsS "http://$listen/healthz" 2>/dev/null | grep -q '"ready":true' && break
  sleep 0.1
done

cat <<MSG

actbridge demo is running (logs in $dir/):
  rosmaster   ROS_MASTER_URI=$ROS_MASTER_URI     (pid $(awk '$1=="rosmaster"{print $2}' "$dir/pids"))
  simrobot    6-joint arm, gripper, diff-drive base  (pid $(awk '$1=="simrobot"{print $2}' "$dir/pids"))
  actbridge   MCP       http://$listen/mcp          (pid $(awk '$1=="actbridge"{print $2}' "$dir/pids"))
              metrics   http://$listen/metrics
              console   http://$listen/console
              health    http://$listen/healthz

Try:  ROS_MASTER_URI=$ROS_MASTER_URI rostopic hz /joint_states
      bin/actbridge tools export --format mcp | head
Stop: make demo-stop
MSG
