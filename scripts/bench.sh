#!/usr/bin/env bash
# make bench: every measurement of issues 8, 19, 20 (rtps) and 22 (ros2) against its floor, measured in the
# same run, printed as one markdown table (docs/bench.md, "The latest full table"). About 15
# minutes on 2 cores; starts and stops its own rosmaster, simrobot, bridge,
# and for the rtps rows ddsperf and the Cyclone C peer in a network namespace;
# the ros2 rows run a ROS 2 sim and bridge in a namespace of their own.
# Profile a bridge without changing the tree:
#   ACTBRIDGE_BENCH_BUILDFLAGS=-overlay=<json> (see test/bench/doc.go).
# Measure some rows only: ACTBRIDGE_BENCH_ONLY=confirm,navigate make bench.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
table=$(mktemp /tmp/actbridge-bench-table.XXXXXX)
log=$(mktemp /tmp/actbridge-bench-log.XXXXXX)
load0=$(cut -d' ' -f1-3 /proc/loadavg)
start=$(date +%s)
echo "bench: full run, about 15 minutes; log: $log" >&2
if ! ACTBRIDGE_BENCH_TABLE="$table" go test ./test/bench -run '^TestBenchTable$' -count=1 -timeout 30m -v >"$log" 2>&1; then
  tail -n 60 "$log" >&2
  echo "bench: failed; full log in $log" >&2
  rm -f "$table"
  exit 1
fi
cpu=$(lscpu | sed -n 's/^Model name: *//p' | head -n1)
echo "Machine: $(nproc) cores ($cpu), $(free -g | awk '/^Mem:/{print $2}') GB RAM, $(uname -sr), $(go env GOVERSION);" \
  "load average $load0 before, $(cut -d' ' -f1-3 /proc/loadavg) after; run took $(( $(date +%s) - start )) s; $(git rev-parse --short HEAD 2>/dev/null || echo unknown)."
echo
cat "$table"
rm -f "$table" "$log"
